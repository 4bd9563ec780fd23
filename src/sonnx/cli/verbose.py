"""What ``-v/--verbose`` adds to a check: the engines behind each verdict, on stderr after the report.

The report says what holds; a reviewer who asks how it was established finds
it here without reading the JSON: whether the SMT engine ran (and with which
solver parameters, or why the automatic choice left it out), and for each
verdict the engine(s) that decided it (``direct``, ``direct+smt/search``,
``executor``...) and the details it recorded (schedules run, seeds).
These lines go to stderr, so stdout stays the report in the chosen format.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TextIO

from ..base.text import printable
from ..checking.report import ModelReport


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str, sort_keys=False)


def verbose_lines(report: ModelReport) -> Iterator[str]:
    """The lines ``-v`` prints for one model's report (none for a model that could not be read)."""
    if report.error is not None:
        return
    name = report.path
    smt = report.smt
    if smt is None:
        yield f"{name}: engines: direct only (the SMT engine was not asked for)"
    elif smt.skipped is not None:
        yield f"{name}: engines: direct only ({smt.skipped})"
    else:
        yield f"{name}: engines: direct and SMT, solver parameters {_compact(smt.parameters)}"
    for v in report.verdicts:
        line = f"{name}: {v.rule_id} {v.status.value} by {v.engine}"
        if v.assumes:
            line += f", assuming {'; '.join(v.assumes)}"
        if v.details:
            line += f"; recorded {_compact(dict(v.details))}"
        yield line


def write_verbose(stderr: TextIO, prog: str, reports: Iterable[ModelReport]) -> None:
    """Write the ``-v`` lines of every report to ``stderr``, each prefixed by ``prog``."""
    for report in reports:
        for line in verbose_lines(report):
            stderr.write(f"{prog}: {printable(line)}\n")
