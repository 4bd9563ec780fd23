"""``sonnx qualify OUTDIR``: run the qualification suite here and write the kit's documents, all or nothing.

The documents are built in a fresh folder beside OUTDIR and moved into place
in one rename when everything is written, so an interrupted run (Ctrl-C, a
full disk) leaves no half-written kit. An OUTDIR that exists and is not empty is
refused unless ``force`` is given; then the old folder is replaced only once
the new one is complete.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...base.errors import UsageError
from ...base.files import WriteError, write_directory
from ...base.progress import Say, quiet
from ...base.text import counted
from . import documents as docs
from . import pages
from .cases import SUITES, suite
from .runner import CaseResult, run_cases

Renderer = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class Qualification:
    """What one run of the kit gave: where it wrote, the case results, the summary document."""

    directory: Path
    results: tuple[CaseResult, ...]
    summary: dict[str, Any]

    @property
    def exit_code(self) -> int:
        """0 every case passed, 1 a case failed, 2 a case could not run here."""
        return int(self.summary["exit_code"])

    @property
    def conclusion(self) -> str:
        return str(self.summary["conclusion"])


def check_outdir(outdir: str, force: bool) -> Path:
    """Refuse an OUTDIR that is a file, or a non-empty folder without ``force``, or whose parent is missing."""
    p = Path(outdir)
    if p.exists() or p.is_symlink():
        if not p.is_dir() or p.is_symlink():
            raise UsageError(f"{outdir} exists and is not a folder")
        if any(p.iterdir()) and not force:
            raise UsageError(f"{outdir} exists and is not empty (give --force to replace it)")
    if not p.resolve().parent.is_dir():
        raise UsageError(f"the folder {p.resolve().parent} does not exist")
    return p


def _write(folder: Path, name: str, doc: dict[str, Any], render: Renderer) -> None:
    (folder / f"{name}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / f"{name}.html").write_text(render(doc), encoding="utf-8")


def _fill(folder: Path, suite_name: str, jobs: int, say: Say) -> tuple[list[CaseResult], dict[str, Any]]:
    start = time.perf_counter()
    cases = suite(suite_name)
    say(f"running the {suite_name} qualification suite: {counted(len(cases), 'case')}")
    results = run_cases(cases, folder / "models", jobs, say)
    when = docs.now()
    runs = folder / "runs"
    runs.mkdir()
    for r in results:
        if r.report is not None:
            (runs / f"{r.case.id}.json").write_text(json.dumps(r.report, indent=2, ensure_ascii=False) + "\n",
                                                     encoding="utf-8")
    _write(folder, "requirements", docs.requirements_document(), pages.requirements_page)
    _write(folder, "procedures", docs.procedures_document(suite_name, results), pages.procedures_page)
    _write(folder, "configuration-index", docs.configuration_index(suite_name, folder / "models", when),
           pages.configuration_page)
    _write(folder, "known-problems", docs.known_problems_document(), pages.known_problems_page)
    summary = docs.summary_document(suite_name, results, when, time.perf_counter() - start)
    _write(folder, "accomplishment-summary", summary, pages.summary_page)
    return results, summary


def qualify(
    outdir: str | os.PathLike[str],
    *,
    suite_name: str = "small",
    jobs: int = 1,
    force: bool = False,
    progress: Say | None = None,
) -> Qualification:
    """Run the ``small`` or ``full`` qualification suite and write the kit into ``outdir``.

    Raises :class:`~sonnx.base.errors.UsageError` for an unknown suite, a
    ``jobs`` below 1 or an ``outdir`` that cannot be used, and
    :class:`~sonnx.base.errors.WriteError` when the kit cannot be written.
    """
    say = progress or quiet
    if suite_name not in SUITES:
        raise UsageError(f"--suite: unknown suite {suite_name!r} (known: {', '.join(SUITES)})")
    if jobs < 1:
        raise UsageError(f"--jobs: at least 1 worker, not {jobs}")
    dest = check_outdir(os.fspath(outdir), force)
    results, summary = write_directory(
        dest, lambda tmp: _fill(tmp, suite_name, jobs, say),
        lambda why: WriteError(f"{outdir}: cannot write the kit: {why}"),
    )
    say(f"wrote {dest}: {summary['conclusion']}")
    return Qualification(dest, tuple(results), summary)
