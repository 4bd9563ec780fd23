"""Which models a batch checks (directories, globs, files) and where each model's evidence bundle goes."""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from pathlib import Path

from ...base.errors import UsageError
from ..evidence.bundle import check_destination

MODEL_SUFFIX = ".onnx"


GLOB_CHARACTERS = frozenset("*?[")


def find_models(arguments: Sequence[str]) -> list[str]:
    """The models named by ``arguments``: files, directories (every ``*.onnx`` below, recursively) and globs.

    Sorted and deduplicated (two spellings of one file count once; the first
    in sorted order is kept). A named file is taken whatever its suffix and
    even when it does not exist (its check then says why it cannot be read);
    a directory without any ``.onnx`` file, or a pattern that matches
    nothing, is a :class:`~sonnx.base.errors.UsageError`.
    """
    if not arguments:
        raise UsageError("name at least one model, directory or glob")
    found: list[str] = []
    for arg in arguments:
        if os.path.isdir(arg):
            below = _walk(arg)
            if not below:
                raise UsageError(f"{arg}: the directory holds no {MODEL_SUFFIX} file")
            found.extend(below)
        elif GLOB_CHARACTERS & set(arg) and not os.path.exists(arg):
            matched = sorted(glob.glob(arg, recursive=True))
            models = [m for p in matched for m in (_walk(p) if os.path.isdir(p) else [p])]
            if not models:
                raise UsageError(f"{arg}: the pattern matches no model")
            found.extend(models)
        else:
            found.append(arg)
    seen: set[str] = set()
    out: list[str] = []
    for path in sorted(os.path.normpath(p) for p in found):
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out


def _walk(directory: str) -> list[str]:
    out: list[str] = []
    for folder, dirs, files in os.walk(directory):
        dirs.sort()
        out.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(MODEL_SUFFIX))
    return out


def bundle_directory(root: str, model: str) -> str:
    """``ROOT/<model path relative to the current directory>``; a model outside it is a UsageError."""
    rel = os.path.relpath(os.path.abspath(model))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        raise UsageError(
            f"--evidence: {model} is outside the current directory, so it has no place under {root}; "
            "run the batch from a directory that holds every model"
        )
    return os.path.join(root, rel)


def check_destination_tree(directory: str) -> None:
    """Make the parents of a bundle directory and refuse a destination in use (before any model is checked)."""
    try:
        Path(directory).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--evidence: cannot create {Path(directory).parent}: {exc.strerror or exc}") from None
    check_destination(directory)
