"""The kit's documents as JSON-ready dicts: requirements, procedures, configuration index, known problems, summary.

Every document carries a ``schema`` key naming its layout and version. The
documents are a pure function of the TORs, the case results and the running
build, except the fields that say when and how long: ``generated_at`` (in the
configuration index and the summary) and ``seconds`` (per case in the
procedures, and the total in the summary).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from ...base.build_info import PEER_DISTRIBUTIONS, build_identity
from ...base.errors import EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATED
from ...base.text import counted
from ...rules.registry import rules_for
from . import requirements as tor
from .cases import Case, rule_tors
from .runner import FAILED, NOT_RUN, PASSED, CaseResult

VERIFIED, NOT_COVERED = "VERIFIED", "NOT COVERED"
SCHEMA_PREFIX = "sonnx-qualify"
VARYING_FIELDS = ("generated_at", "seconds")
"""The only fields whose values differ between two runs of the same suite with the same build and environment."""


def schema(name: str) -> str:
    return f"{SCHEMA_PREFIX}-{name}/1"


def proved_and_violated(case: Case) -> tuple[set[str], set[str]]:
    """The rules' TORs a case verifies on their VIOLATED side, and those on their PROVED side."""
    rules = tuple(r.id for r in rules_for(case.profile))
    covered = set(rule_tors(case, rules))
    e = case.expect
    violated = {tor.rule_tor_id(r) for r in (*e.violated, *e.warnings)} & covered
    return violated, covered - violated


@dataclass(frozen=True)
class TorStatus:
    """How one TOR fared: its status and the cases that verify it (by side, for a rule's TOR)."""

    requirement: tor.Requirement
    status: str
    cases: tuple[str, ...]
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.requirement.id, "status": self.status, "cases": list(self.cases), "why": self.why}


def tor_statuses(results: Sequence[CaseResult]) -> list[TorStatus]:
    """Each TOR's status from the case results: FAILED, NOT RUN, NOT COVERED or VERIFIED.

    A rule's TOR is covered only by a case that shows it VIOLATED and one that
    shows it PROVED; a TOR of the tool's behaviour by any case naming it.
    """
    out = []
    for req in tor.requirements():
        sides: dict[str, list[CaseResult]] = {"violated": [], "proved": [], "tool": []}
        for r in results:
            violated, proved = proved_and_violated(r.case)
            if req.id in violated:
                sides["violated"].append(r)
            if req.id in proved:
                sides["proved"].append(r)
            if req.id in r.case.tors:
                sides["tool"].append(r)
        covering = [*sides["violated"], *sides["proved"], *sides["tool"]]
        ids = tuple(dict.fromkeys(r.case.id for r in covering))
        failed = [r.case.id for r in covering if r.status == FAILED]
        not_run = [r.case.id for r in covering if r.status == NOT_RUN]
        missing = [s for s in ("violated", "proved") if req.rule is not None and not sides[s]]
        if failed:
            out.append(TorStatus(req, FAILED, ids, f"failed: {', '.join(dict.fromkeys(failed))}"))
        elif not_run:
            out.append(TorStatus(req, NOT_RUN, ids, f"not run here: {', '.join(dict.fromkeys(not_run))}"))
        elif not covering or missing:
            what = f"no case shows it {' or '.join(missing)}" if covering else "no case of this suite verifies it"
            out.append(TorStatus(req, NOT_COVERED, ids, what))
        else:
            out.append(TorStatus(req, VERIFIED, ids, "every case verifying it passed"))
    return out


def requirements_document() -> dict[str, Any]:
    return {"schema": schema("requirements"), "requirements": [r.to_json() for r in tor.requirements()]}


def procedures_document(suite: str, results: Sequence[CaseResult]) -> dict[str, Any]:
    return {"schema": schema("procedures"), "suite": suite, "cases": [r.to_json() for r in results]}


TOOLING_EXTRAS = ("dev", "docs")
"""Extras that hold the project's own tooling (tests, linters, the docs build), left out of the index."""


def _requirement_name(spec: str) -> str | None:
    """The distribution a requirement line of sonnx's metadata names, or None for one of a tooling extra."""
    requirement, _, marker = spec.partition(";")
    if any(f'extra == "{extra}"' in marker for extra in TOOLING_EXTRAS):
        return None
    name = requirement.split("[")[0]
    for sep in "<>=!~ (":
        name = name.split(sep)[0]
    return name.strip() or None


def _distributions() -> dict[str, str | None]:
    """The installed version of each library sonnx depends on or offers as an extra (None: not installed).

    Read from sonnx's own metadata when it is installed, beside the libraries whose behaviour the verdicts
    depend on (:data:`sonnx.base.build_info.PEER_DISTRIBUTIONS`) and protobuf, which onnx parses with.
    """
    names = {*PEER_DISTRIBUTIONS, "protobuf", "threadpoolctl"}
    try:
        declared = metadata.requires("sonnx") or []
    except metadata.PackageNotFoundError:
        declared = []
    names.update(n for n in map(_requirement_name, declared) if n)
    out: dict[str, str | None] = {}
    for name in sorted(names, key=str.lower):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def configuration_index(suite: str, models: Path, when: str) -> dict[str, Any]:
    """The exact build, interpreter, libraries and platform the suite ran on, and the test inputs' digests."""
    files = sorted(p.name for p in models.iterdir() if p.is_file())
    return {
        "schema": schema("configuration-index"),
        "generated_at": when,
        "build": build_identity(),
        "python": {"implementation": platform.python_implementation(), "version": sys.version.split()[0],
                   "executable_prefix": sys.prefix},
        "distributions": _distributions(),
        "platform": {"platform": platform.platform(), "machine": platform.machine(), "system": platform.system()},
        "suite": suite,
        "test_inputs": {f"models/{name}": hashlib.sha256((models / name).read_bytes()).hexdigest() for name in files},
    }


def known_problems_document() -> dict[str, Any]:
    """The packaged known problems (tools/known_problems.py writes them from the documented deviations)."""
    data = json.loads(resources.files("sonnx.data").joinpath("known_problems.json").read_text("utf-8"))
    return {"schema": schema("known-problems"), "source": data["schema"], "problems": data["problems"]}


def exit_code(suite: str, results: Sequence[CaseResult], tors: Sequence[TorStatus]) -> int:
    """1 when a case failed; else 2 when a case could not run, or the full suite leaves a TOR uncovered; else 0.

    The small suite is a subset by design: the TORs it does not cover are listed in its conclusion and do not
    change its exit code.
    """
    if any(r.status == FAILED for r in results):
        return EXIT_VIOLATED
    if any(r.status == NOT_RUN for r in results):
        return EXIT_UNUSABLE
    if suite == "full" and any(t.status != VERIFIED for t in tors):
        return EXIT_UNUSABLE
    return EXIT_OK


def conclusion(suite: str, results: Sequence[CaseResult], tors: Sequence[TorStatus]) -> str:
    """The one sentence of the summary; "all TORs verified in this environment" only when nothing is missing."""
    failed = sum(r.status == FAILED for r in results)
    not_run = sum(r.status == NOT_RUN for r in results)
    open_tors = [t.requirement.id for t in tors if t.status != VERIFIED]
    if failed:
        return f"FAILED: {counted(failed, 'case')} failed; the TORs they verify do not hold in this environment"
    if not_run:
        return (f"INCOMPLETE: {counted(not_run, 'case')} could not run in this environment; "
                "no conclusion on the TORs they verify")
    if open_tors:
        n_tors = counted(len(open_tors), "TOR")
        listed = f"{', '.join(open_tors[:5])}{', ...' if len(open_tors) > 5 else ''}"
        if suite == "small":
            return (f"every case of the small suite passed; it does not cover {n_tors} ({listed}): "
                    "only the full suite can verify every TOR")
        verb = "is" if len(open_tors) == 1 else "are"
        return f"INCOMPLETE: every case passed, but {n_tors} {verb} not covered by the suite ({listed})"
    return "all TORs verified in this environment"


def summary_document(suite: str, results: Sequence[CaseResult], when: str, seconds: float) -> dict[str, Any]:
    tors = tor_statuses(results)
    counts = {s: sum(r.status == s for r in results) for s in (PASSED, FAILED, NOT_RUN)}
    tor_counts = {s: sum(t.status == s for t in tors) for s in (VERIFIED, FAILED, NOT_RUN, NOT_COVERED)}
    return {
        "schema": schema("accomplishment-summary"),
        "generated_at": when,
        "suite": suite,
        "conclusion": conclusion(suite, results, tors),
        "exit_code": exit_code(suite, results, tors),
        "cases": {"total": len(results), **counts},
        "tors": {"total": len(tors), **tor_counts},
        "tor_status": [t.to_json() for t in tors],
        "varying_fields": list(VARYING_FIELDS),
        "seconds": round(seconds, 3),
    }


def now() -> str:
    """The current UTC time, to the second, as ISO 8601."""
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
