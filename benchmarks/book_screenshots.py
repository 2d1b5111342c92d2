"""Screenshots of the built course book in headless Chromium: the tour and an experiment chapter, as a reader sees them.

Not part of ``make test`` or ``make bench`` (it needs a browser). On Debian or Ubuntu::

    apt-get install -y chromium          # Debian's package (Ubuntu: chromium-browser)
    make book PROFILE=smoke              # or make book: the quick run's book
    .venv/bin/python benchmarks/book_screenshots.py            # -> book/_build/screenshots/*.png

Each page is opened from the file system (``file://``) in a fresh, empty browser profile with every
background network feature off, so a page that tried to fetch something would show it (broken fonts,
missing images). ``tour_opened`` shows the tour with every folded cell open, as clicking each would. A page is
taken whole (a window as tall as :data:`TALLEST`), the blank end cut off, and cut
into tiles of :data:`TILE` pixels (``tour_1.png``, ``tour_2.png``, ...) that an image viewer shows legibly.
One JSON line per page: the page, its height in pixels and the tiles written.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: (page relative to the site, name of its PNGs, open the folded cells): the landing page, the tour as it opens
#: and as it looks once every answer was clicked open, one experiment chapter, a paper, the teachers' page.
PAGES = (
    ("index.html", "index", False),
    ("lessons/00_tour.html", "tour", False),
    ("lessons/00_tour.html", "tour_opened", True),
    ("experiments/04_montague_adjectives.html", "chapter04", False),
    ("papers/carvalho.html", "paper_carvalho", False),
    ("teachers.html", "teachers", False),
)
#: Window width, the tallest page taken whole, and the height of each tile a long page is cut into.
WIDTH, TALLEST, TILE, GAP = 1280, 16000, 1600, 900
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--virtual-time-budget=3000",
)


def browser(name: str | None) -> str:
    """The Chromium executable: ``name``, else ``chromium`` or ``chromium-browser`` on the PATH."""
    found = shutil.which(name) if name else shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        raise SystemExit("no chromium on the PATH: apt-get install -y chromium (Debian), then run this again")
    return found


def shoot(chromium: str, url: str, size: str, png: Path) -> None:
    """One screenshot of ``url`` at window ``size`` (``"W,H"``) into ``png``, in a new empty profile."""
    with tempfile.TemporaryDirectory(prefix="book-chromium-") as profile:
        cmd = [chromium, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}", f"--screenshot={png}", url]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not png.exists():
        raise SystemExit(f"chromium failed on {url} (exit {done.returncode}):\n{done.stderr[-2000:]}")


def tiles(whole: Path, name: str, out: Path) -> tuple[int, list[Path]]:
    """Cut a page's screenshot at the end of its text, into tiles of :data:`TILE` rows.

    The theme stretches the page to the window (sidebar rule, footer at the bottom), so the end of the text is
    the start of the first long white gap (:data:`GAP` rows) in the middle column, where the text runs.
    """
    import numpy as np
    from PIL import Image

    with Image.open(whole) as image:
        page = image.convert("RGB")
    middle = np.asarray(page)[:, page.width // 4 : page.width * 3 // 4]
    inked = (middle < 245).any(axis=(1, 2))
    height, white = page.height, 0
    for row, ink in enumerate(inked):
        white = 0 if ink else white + 1
        if white >= GAP:
            height = row - GAP + 40
            break
    written = []
    for i, top in enumerate(range(0, height, TILE), 1):
        tile = out / f"{name}_{i}.png"
        page.crop((0, top, page.width, min(top + TILE, height))).save(tile)
        written.append(tile)
    return height, written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", default=str(ROOT / "book" / "_build" / "html"), help="the built site")
    parser.add_argument("--out", default=str(ROOT / "book" / "_build" / "screenshots"), help="where the PNGs go")
    parser.add_argument("--chromium", default=None, help="the browser executable (default: chromium on the PATH)")
    args = parser.parse_args(argv)
    site, out = Path(args.site).resolve(), Path(args.out).resolve()
    if not (site / "index.html").exists():
        raise SystemExit(f"no book at {site}: build it with make book (or make book PROFILE=smoke)")
    out.mkdir(parents=True, exist_ok=True)
    chromium = browser(args.chromium)
    for old in out.glob("*.png"):
        old.unlink()
    for page, name, opened in PAGES:
        whole = out / f"{name}_whole.png"
        target = site / page
        if opened:  # what a click shows: a copy of the page beside it (same relative links), every <details> open
            copy = target.with_name(f".opened-{target.name}")
            copy.write_text(target.read_text(encoding="utf-8").replace("<details ", "<details open "), encoding="utf-8")
            target = copy
        try:
            shoot(chromium, target.as_uri(), f"{WIDTH},{TALLEST}", whole)
        finally:
            if opened:
                target.unlink()
        height, written = tiles(whole, name, out)
        whole.unlink()
        print(json.dumps({"page": page, "height": height, "tiles": [t.name for t in written]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
