"""Records of passing Coq checks, so identical inputs are compiled once per tree.

``make test`` checks the Coq development of ``proofs/coq/`` in its Coq step, and
the docs build prints the same check's result on the proofs page. Compiling
every file is by far the longest part of the check; its outcome is a function
of the inputs :func:`tools.coq_check.inputs_digest` hashes (the listed files,
the theorem table, the checker and the coqc in use). After a check that
compiled and passed, the ``Print Assumptions`` output of every theorem is kept
in ``build/coq-verified/<digest>.json``; a later check of the same inputs
reads it instead of compiling again, and still does the scan for unproved
steps, the table's checks and the assumption check on that output. A clean
clone (as in CI) has no record, so its first check compiles every file. A
change to any input changes the digest, so an old record is never read for it.

The record also keeps the OCaml that the compile extracted (``Extract.v`` and
``ExtractNested.v`` write it), file by file: the extraction is a function of
the same inputs, so ``tools/coq_runner.py`` can build the extracted runner from
a record of these inputs with ``ocamlfind`` alone instead of compiling the
Coq files a second time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from sonnx.base.records import framed_digest, read_record, write_record

FORMAT = 2


def digest(parts: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 over named byte strings, each framed by its name and length."""
    return framed_digest(f"sonnx coq check record {FORMAT}", parts)


def recall(record: Path, theorems: Sequence[str]) -> dict[str, str] | None:
    """The recorded ``Print Assumptions`` text of each theorem, or None when the record is absent or unusable.

    A record is used only when it is well formed, names its own digest and holds exactly the theorems
    asked for; anything else means compiling again, never a pass taken on trust.
    """
    data = read_record(record, FORMAT)
    if data is None:
        return None
    printed = data.get("printed")
    if not isinstance(printed, dict) or sorted(printed) != sorted(theorems):
        return None
    if not all(isinstance(text, str) for text in printed.values()):
        return None
    return dict(printed)


def recall_extracted(record: Path, theorems: Sequence[str], names: Sequence[str]) -> dict[str, str] | None:
    """The recorded text of each extracted OCaml file of ``names``, or None.

    Only from a record :func:`recall` accepts for ``theorems`` and that holds every one of ``names`` as
    text: a partial extraction means compiling again.
    """
    if recall(record, theorems) is None:
        return None
    extracted = json.loads(record.read_text(encoding="utf-8")).get("extracted")
    if not isinstance(extracted, dict) or not all(isinstance(extracted.get(name), str) for name in names):
        return None
    return {name: extracted[name] for name in names}


def remember(record: Path, printed: dict[str, str], extracted: dict[str, str] | None = None) -> None:
    """Write the record of a passing check atomically (a reader sees the whole file or none).

    ``extracted`` maps each OCaml file the compile extracted to its text.
    """
    write_record(record, FORMAT, {"printed": printed, "extracted": extracted or {}})
