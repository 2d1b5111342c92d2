"""The exactness rules of the counting engine, in one place: which float holds which integer sum.

Intuition: every count is a sum of non-negative integers, and a float sum of
integers is exact as long as every partial sum stays below the width of its
mantissa (then the order of summation does not matter either). The matrix
products run in floats because that is where BLAS and the GPU are fast, so
each product picks the narrowest float that holds its largest entry:

- a product whose entries are sums of at most ``N`` integer weights (``N``
  the total weight, ``n`` when unweighted) runs in float32 while
  ``N < 2**24`` (:data:`FLOAT32_EXACT`: every integer up to 2**24 is a
  float32), else in float64;
- a reduction of such entries against weights (at most ``N**2``) runs in
  float32 while ``N**2 < 2**24``, else in float64, exact while
  ``N**2 < 2**53`` (:data:`FLOAT64_EXACT`);
- totals over items (at most ``N**3`` for triples) are taken in int64, exact
  while below 2**63 (:data:`INT64_LIMIT`); past that a count would wrap
  around, so it is refused.

The kernels (:mod:`~mtlib.relations.kernels`) ask these functions for their
dtypes by name (``"float32"``, ``"float64"``) and translate the name into
their array library's dtype; nothing else in mtlib states a bound.
"""

from __future__ import annotations

from mtlib.relations.errors import MtlibInputError

__all__ = [
    "FLOAT32_EXACT",
    "FLOAT64_EXACT",
    "INT64_LIMIT",
    "check_float64_sums",
    "check_int64_total",
    "product_dtype",
    "reduction_dtype",
    "violation_rate",
]

#: Every integer below this is a float32 (24 bits of mantissa).
FLOAT32_EXACT = 2**24
#: Every integer below this is a float64 (53 bits of mantissa).
FLOAT64_EXACT = 2**53
#: int64 totals stay exact below this.
INT64_LIMIT = 2**63


def product_dtype(total: int) -> str:
    """The float of a product whose entries are sums of at most ``total`` integer weights.

    Example:
        >>> product_dtype(1_000), product_dtype(2**24)
        ('float32', 'float64')
    """
    return "float32" if total < FLOAT32_EXACT else "float64"


def reduction_dtype(total: int) -> str:
    """The float of a reduction of product entries against weights: its sums reach ``total**2``.

    Example:
        >>> reduction_dtype(4_000), reduction_dtype(5_000)
        ('float32', 'float64')
    """
    return "float32" if total**2 < FLOAT32_EXACT else "float64"


def check_float64_sums(bound: int, where: str) -> None:
    """Refuse a float64 reduction whose sums may reach ``bound``: past 2**53 they would round.

    Raises:
        MtlibInputError: ``bound`` is 2**53 or more, naming ``where``.
    """
    if bound >= FLOAT64_EXACT:
        raise MtlibInputError(f"{where}: sums up to {bound:,} are too large to count exactly in float64 (2**53)")


def check_int64_total(total: int, power: int, where: str, what: str) -> int:
    """``total`` when ``total**power`` (the largest count made of it) fits in int64.

    Raises:
        MtlibInputError: past the bound, naming ``where``: a count there would wrap around, never be exact.
    """
    if total**power >= INT64_LIMIT:
        raise MtlibInputError(
            f"{where}: a total weight of {total:,} is too large to count its {what} exactly "
            f"(needs total**{power} < 2**63)"
        )
    return total


def violation_rate(violations: int, cases: int) -> float:
    """``violations / cases``, nan without cases (the rate is then undefined, never 0).

    Example:
        >>> violation_rate(1, 4), violation_rate(0, 0)
        (0.25, nan)
    """
    return violations / cases if cases else float("nan")
