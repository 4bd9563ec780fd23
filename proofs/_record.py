"""Records of a run of every theorem module, so that the same inputs are run in one process once per tree.

``make test`` runs the theorems in its test suite (``tests/spec/test_proofs_isolation.py`` runs them all in
one process in the registry's order, as ``python -m proofs --json --record DIR``) and again in the docs build,
which publishes each theorem's report on the proof results page. A theorem's outcome is a function of the
code it runs (z3 is called with a fixed seed and a resource limit, and each query in a context of its own:
``_kit.solve``): the files of the ``proofs`` and ``sonnx`` packages that ran, and the Python and library
versions installed. A run with ``--record DIR`` keeps every theorem's result and printed report in
``DIR/<digest>.json`` under the SHA-256 of those inputs (:func:`inputs_digest`); the docs build reads the
record of its own inputs' digest instead of running the theorems again, and runs them when there is none (a
clean clone, a changed file, another z3). A record never turns a failure into a pass: it holds the outcomes
as they were, FAILED included, and the page shows them.
"""

from __future__ import annotations

import importlib.metadata
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sonnx.base.records import framed_digest, read_record, write_record

FORMAT = 1

_RESULT_KEYS = ("theorem", "proved", "verdict", "review_items", "proved_in_coq", "outcomes")


def package_folders() -> list[Path]:
    """The folders of the ``proofs`` and ``sonnx`` packages this process imports (what a theorem runs)."""
    import proofs
    import sonnx

    return [Path(proofs.__file__).resolve().parent, Path(sonnx.__file__).resolve().parent]


# Written by setuptools-scm from git when the package is installed or built (a test of the suite builds a
# wheel): it names the commit, which is no code a theorem runs, and may appear in the middle of a run.
_GENERATED = ("sonnx/base/_version.py",)


def _files(folder: Path) -> Iterable[tuple[str, bytes]]:
    for path in sorted(folder.rglob("*")):
        name = f"{folder.name}/{path.relative_to(folder).as_posix()}"
        if path.is_file() and path.suffix not in (".pyc", ".pyo") and name not in _GENERATED:
            yield name, path.read_bytes()


def inputs_digest(folders: Sequence[Path] | None = None) -> str:
    """The SHA-256 of every file under ``folders`` (by default :func:`package_folders`) and of the environment.

    Compiled files and the generated version module are left out (see ``_GENERATED``).

    The environment is the Python version and the name and version of every installed distribution (z3,
    NumPy, onnx among them). Each part is framed by its name and length, so no two inputs hash alike by
    moving bytes from one part to the next.
    """
    dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()})
    parts: list[tuple[str, bytes]] = [("python", sys.version.encode()), ("distributions", "\n".join(dists).encode())]
    for folder in folders if folders is not None else package_folders():
        parts.extend(_files(folder))
    return framed_digest(f"sonnx theorem record {FORMAT}", parts)


def recall(record: Path, modules: Sequence[str]) -> dict[str, dict[str, Any]] | None:
    """Each module's recorded ``{"result": ..., "report": ...}``, or None when the record is absent or unusable.

    Used only when well formed, naming its own digest and holding exactly ``modules``, each with a whole
    result (the keys of ``_kit.result_record``) and its report text: anything else means running again.
    """
    data = read_record(record, FORMAT)
    if data is None:
        return None
    theorems = data.get("theorems")
    if not isinstance(theorems, dict) or sorted(theorems) != sorted(modules):
        return None
    for entry in theorems.values():
        if not isinstance(entry, dict) or not isinstance(entry.get("report"), str):
            return None
        result = entry.get("result")
        if not isinstance(result, dict) or any(key not in result for key in _RESULT_KEYS):
            return None
        if not isinstance(result["outcomes"], list) or not all(isinstance(o, dict) for o in result["outcomes"]):
            return None
    return {name: theorems[name] for name in modules}


def remember(record: Path, theorems: Mapping[str, Mapping[str, Any]]) -> None:
    """Write a record atomically (a reader sees the whole file or none): module -> result and report."""
    write_record(record, FORMAT, {"theorems": theorems})
