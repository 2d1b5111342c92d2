"""Backends of frozen encoding: the model's own torch forward, or an ONNX graph run by onnxruntime.

Intuition: a frozen encoder's ``embed`` is a fixed function of token ids. Traced
once into an ONNX graph (fp32, the same weights and pooling) and run by
onnxruntime, it gives the same sentence vectors, with less per-operation
overhead than eager torch on a CPU (``benchmarks/bench_onnx.py`` measures the
speed and the agreement). Only ``embed`` changes backend: ``features``,
``classify``, fine-tuning and trained heads always run in torch.

The graph is exported once per model identity into the cache
(``$MTLIB_CACHE/onnx/<identity>-<key>/``): the ``.onnx`` file is
content-addressed and its SHA-256 is held by a ``graph.json`` record written
last (:func:`~mtlib.utils.cache.write_record`), so a damaged or partial
export is reported and exported again, never run. Right after an export the
graph is checked against torch on batches of other shapes than the one it was
traced with (one unpadded text, a padded batch); a graph whose vectors differ
by more than :data:`VERIFY_TOL` in cosine is refused with an error.

The backend of a load is ``backend=`` (``"torch"``, ``"onnx"``, or ``"auto"``:
``$MTLIB_BACKEND``, which ``python -m mtrun --backend onnx`` sets for its
notebooks, else ``"torch"``). Embeddings of each backend are cached apart: the
torch ones under ``(identity, "embed")`` as before, the ONNX ones under
``(identity, "embed", "backend=onnx")``.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.utils.cache import (
    addressed_name,
    cache_root,
    read_record,
    record_file,
    sha256_hex,
    stable_hash,
    write_record,
)
from mtlib.utils.context import AUTO, BACKEND_ENV, BACKEND_VALUES, BACKENDS, resolve_backend

__all__ = [
    "AUTO",
    "BACKENDS",
    "BACKEND_ENV",
    "BACKEND_VALUES",
    "EXPORT_FORMAT",
    "ONNX_MAX_TOKENS",
    "OPSET",
    "VERIFY_TOL",
    "OnnxEncoder",
    "cosine_gap",
    "export_folder",
    "export_graph",
    "onnx_encoder",
    "resolve_backend",
]

#: ONNX opset of the exported graphs.
OPSET = 17
#: Version of the export recipe (wrapper, inputs, opset): a new one keys new cache entries.
EXPORT_FORMAT = 1
#: Token budget of an ONNX batch (batch size x longest length): onnxruntime is fastest on small batches. Measured
#: with minilm at 1 thread on 400 mixed-length sentences: 512 tokens 2.2x torch's time, 1,024 2.0x, 2,048 1.8x,
#: 8,192 1.1x (256: as 512).
ONNX_MAX_TOKENS = 512
#: Largest 1 - cosine between torch's and the graph's vector of a text that an export may show.
VERIFY_TOL = 1e-5
#: Texts traced into the graph: two lengths, so the traced batch is padded (the mask is a real input).
TRACE_TEXTS = ("the cat sat on the mat", "a dog")
#: Batches an export is checked on: shapes other than the traced one (no padding; more texts, longer).
VERIFY_BATCHES = (
    ("there was no cherry tree in the garden",),
    ("yes", "every student read the story about the king", "a warm, funny film with a terrific cast and crew"),
)


def cosine_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Largest ``1 - cos(a_i, b_i)`` over rows, in float64; ``a`` and ``b`` of shape ``(n, d)``.

    Example:
        >>> cosine_gap(np.array([[1.0, 0.0]]), np.array([[2.0, 0.0]]))
        0.0
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) == 0:
        return 0.0
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    cos = (a * b).sum(1) / np.where(norms > 0, norms, 1.0)
    return float(np.abs(1.0 - cos).max())


def _as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.ascontiguousarray(value)


class OnnxEncoder:
    """An exported ``embed`` graph, run by onnxruntime on the CPU in fp32.

    Args:
        graph: The ONNX model's bytes.
        inputs: Names of its inputs, keys of the tokenizer's output (``input_ids``, ``attention_mask``...).
        source: ``"exported"`` (traced by this process) or ``"cache"`` (read from the cache).
        path: The cached ``.onnx`` file, or ``None`` when nothing was written (``use_cache=False``).
        threads: onnxruntime's intra-op threads (torch's thread count when ``None``).

    Calling it with one tokenised batch returns the sentence vectors, shape ``(b, d)`` float32.
    """

    def __init__(
        self,
        graph: bytes,
        inputs: Sequence[str],
        source: str,
        path: Path | None = None,
        threads: int | None = None,
    ) -> None:
        import onnxruntime as ort

        if threads is None:
            import torch

            threads = torch.get_num_threads()
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, int(threads))
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        self.inputs, self.source, self.path, self.threads = list(inputs), source, path, options.intra_op_num_threads

    def __repr__(self) -> str:
        return f"OnnxEncoder(inputs={self.inputs}, source={self.source!r}, threads={self.threads})"

    def __call__(self, batch: Mapping[str, Any]) -> np.ndarray:
        missing = [name for name in self.inputs if name not in batch]
        if missing:
            raise ValueError(f"the ONNX graph needs the inputs {self.inputs}; the batch lacks {missing}")
        feed = {name: _as_numpy(batch[name]).astype(np.int64, copy=False) for name in self.inputs}
        return np.asarray(self.session.run(None, feed)[0], dtype=np.float32)


def export_folder(identity: str, kind: str, root: Path | None = None) -> Path:
    """The cache folder of one model's graph (its identity, family, opset and export recipe), in ``root``."""
    readable = identity.replace("/", "_").replace("@", "-")[:60]
    return cache_root(root) / "onnx" / f"{readable}-{stable_hash([identity, kind, OPSET, EXPORT_FORMAT], 16)}"


def _graph_module(model: Any, names: Sequence[str], extras: Mapping[str, Any]) -> Any:
    """A torch module ``(tensors named by names) -> model._embed_encoded(batch)``, the traced function."""
    import torch

    class EmbedGraph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model.backbone if model.st is None else model.st

        def forward(self, *tensors: Any) -> Any:
            return model._embed_encoded({**extras, **dict(zip(names, tensors))}).float()

    return EmbedGraph().eval()


def export_graph(model: Any) -> tuple[bytes, list[str], float]:
    """Trace a transformer model's ``embed`` into an ONNX graph and check it against torch.

    Args:
        model: A :class:`~mtlib.models.adapters.transformer.TransformerModel`
            (its ``_encode`` tokenises, its ``_embed_encoded`` pools).

    Returns:
        ``(graph bytes, input names, largest 1 - cosine against torch on the check batches)``.

    Raises:
        RuntimeError: the export failed, or the graph's vectors differ from
            torch's by more than :data:`VERIFY_TOL` (the message names the model).
    """
    import torch

    sample = model._encode(list(TRACE_TEXTS))
    names = [k for k, v in sample.items() if isinstance(v, torch.Tensor)]
    extras = {k: v for k, v in sample.items() if not isinstance(v, torch.Tensor)}
    args = tuple(model._to_device({n: sample[n] for n in names}).values())
    axes = {**{n: {0: "batch", 1: "tokens"} for n in names}, "embedding": {0: "batch"}}
    buf = io.BytesIO()
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # tracer notes on shape-dependent Python branches; checked below
            torch.onnx.export(
                _graph_module(model, names, extras),
                args,
                buf,
                dynamo=False,
                opset_version=OPSET,
                input_names=names,
                output_names=["embedding"],
                dynamic_axes=axes,
                do_constant_folding=True,
            )
    except Exception as err:
        raise RuntimeError(
            f"ONNX export of {model.name!r} failed ({type(err).__name__}: {err}); use backend='torch' for it"
        ) from err
    graph = buf.getvalue()
    encoder = OnnxEncoder(graph, names, "exported")
    gap = 0.0
    for texts in VERIFY_BATCHES:
        batch = model._encode(list(texts))
        with torch.inference_mode():
            ref = model._embed_encoded(model._to_device(batch)).float().cpu().numpy()
        gap = max(gap, cosine_gap(encoder(batch), ref))
    if not gap <= VERIFY_TOL:
        raise RuntimeError(
            f"the ONNX graph of {model.name!r} gives vectors that differ from torch's (largest 1 - cosine "
            f"{gap:.3g} > {VERIFY_TOL}); use backend='torch' for this model"
        )
    return graph, names, gap


def onnx_encoder(model: Any, *, use_cache: bool = True) -> OnnxEncoder:
    """The ONNX encoder of a transformer model: from the cache, else exported (and cached).

    A cached graph is used only when its record's digests match (a damaged
    one warns and is exported again) and the bytes read are the ones recorded.

    Args:
        model: A :class:`~mtlib.models.adapters.transformer.TransformerModel`.
        use_cache: Read and write the cache; ``False`` exports in memory.

    Returns:
        An :class:`OnnxEncoder` whose ``source`` says whether it was ``"exported"`` now or read from the ``"cache"``.
    """
    record_path = (
        export_folder(model.identity, model.kind, getattr(model, "cache_dir", None)) / "graph.json"
        if use_cache
        else None
    )
    record = read_record(record_path) if record_path is not None else None
    if record_path is not None and record is not None and record.get("identity") == model.identity:
        path = record_file(record_path.parent, record, "model.onnx")
        try:
            graph = path.read_bytes()
        except FileNotFoundError:  # replaced by another process meanwhile
            graph = b""
        if sha256_hex(graph) == record["files"]["model.onnx"]["sha256"]:
            return OnnxEncoder(graph, record["inputs"], "cache", path)
    graph, names, gap = export_graph(model)
    if record_path is None:
        return OnnxEncoder(graph, names, "exported")
    import onnxruntime
    import torch

    meta = {
        "identity": model.identity,
        "kind": model.kind,
        "name": model.name,
        "opset": OPSET,
        "format": EXPORT_FORMAT,
        "inputs": names,
        "precision": "fp32",
        "torch": torch.__version__,
        "onnxruntime": onnxruntime.__version__,
        "verify_max_1_minus_cosine": gap,
    }
    write_record(record_path, meta, {"model.onnx": graph})
    return OnnxEncoder(graph, names, "exported", record_path.parent / addressed_name("model.onnx", sha256_hex(graph)))
