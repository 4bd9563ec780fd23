"""The models a change touches: the paths a commit changes mapped to the ONNX models to check again.

A version-control hook (``sonnx-check --changed-files``, the pre-commit hook) is given the paths a commit
changes, not the models. A model's verdicts depend on its own file and on the external data files it names,
so a commit that changes only ``weights.bin`` must check again every model that reads ``weights.bin``.

Where such a model can be. The loader refuses an external-data location that is absolute, climbs with
``..`` or resolves, once symbolic links are followed, outside the model's folder (:mod:`sonnx.loader.external`).
So a model can read a file only when the model's folder is the file's resolved folder or one above it. The
search therefore lists, for each changed path, the ``*.onnx`` files of its resolved folder and of every
folder above it, up to and including the folder the search is rooted at (the current directory: pre-commit
runs its hooks at the top of the repository). A changed path outside that root is looked up in its own
folder only. Nothing is listed recursively downwards.

Which of those models read the file. A model whose bytes never spell ``location`` names no external data
(the loader finds a tensor's file under that key only), so it is passed over without being parsed. The
others are loaded without their weights by sonnx's own loader, and the files they read are the ones
:func:`sonnx.loader.external.external_locations` lists from the loaded model (every graph, nested
or in a function, and every tensor attribute): the same paths the check would open. A model that cannot be
read or loaded is kept: whether it reads the changed file cannot be decided, so the check must run and say
why the model is unusable (exit 2), never pass over it in silence.

A changed ``.onnx`` path is itself a model to check. A changed path that no model reads is ignored. Every
model is listed once, in the order found.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterable, Iterator, Sequence

from ..base.errors import SonnxError
from ..loader import load_model
from ..loader.external import external_locations

MODEL_SUFFIX = ".onnx"
"""The suffix of a model file (the pre-commit hook's ``files`` pattern passes these too)."""

_LOCATION_KEY = b"location"


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root


def folders_above(path: str, root: str) -> Iterator[str]:
    """The resolved folder of ``path``, then each folder above it up to ``root`` (resolved) included.

    A path outside ``root`` yields its own folder only.
    """
    folder = os.path.dirname(os.path.realpath(path))
    if not _inside(folder, root):
        yield folder
        return
    while True:
        yield folder
        if folder == root:
            return
        folder = os.path.dirname(folder)


def names_external_data(path: str) -> bool:
    """False only when the file at ``path`` is readable and its bytes never spell ``location``.

    A model without that key names no external data file, so no change to another file can change its
    verdicts. A file that cannot be read answers True: the check decides what is wrong with it.
    """
    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size == 0:
                return False
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
                return view.find(_LOCATION_KEY) >= 0
    except (OSError, ValueError):
        return True


def files_read(model_path: str) -> set[str] | None:
    """The resolved paths of the external data files the model reads, or None when it cannot be loaded."""
    try:
        model = load_model(model_path, read_weights=False, weights_from_file=True)
        folder = os.path.realpath(os.path.dirname(os.path.abspath(model_path)))
        return {os.path.realpath(os.path.join(folder, loc)) for loc in external_locations(model, model_path)}
    except (SonnxError, ValueError):
        return None


def _display(path: str, root: str) -> str:
    """``path`` relative to ``root`` when inside it (as pre-commit names files), else absolute."""
    return os.path.relpath(path, root) if _inside(path, root) else path


def _models_in(folder: str) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    paths = (os.path.join(folder, n) for n in names if n.endswith(MODEL_SUFFIX))
    return [p for p in paths if os.path.isfile(p)]


def models_for_changes(changed: Sequence[str], root: str | None = None) -> list[str]:
    """The models to check for a change of the paths ``changed``: the ``.onnx`` paths among them, then every
    model (found as the module says) that reads one of them as external data, each once.

    ``root`` is where the search stops going up (default: the current directory). The models found are named
    relative to ``root``; the changed ``.onnx`` paths are kept as given.
    """
    top = os.path.realpath(root if root is not None else os.getcwd())
    out: dict[str, str] = {}

    def add(path: str, shown: str) -> None:
        out.setdefault(os.path.realpath(path), shown)

    for path in changed:
        if path.endswith(MODEL_SUFFIX):
            add(path, path)
    targets = {os.path.realpath(p) for p in changed}
    reads: dict[str, set[str] | None] = {}
    for folder in _unique(f for p in changed for f in folders_above(p, top)):
        for model in _models_in(folder):
            if os.path.realpath(model) in out:
                continue
            if model not in reads:
                reads[model] = files_read(model) if names_external_data(model) else set()
            used = reads[model]
            if used is None or used & targets:
                add(model, _display(model, top))
    return list(out.values())


def _unique(items: Iterable[str]) -> Iterator[str]:
    seen: set[str] = set()
    for item in items:
        if item not in seen:
            seen.add(item)
            yield item
