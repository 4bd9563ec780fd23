"""A theorem's outcome must not depend on what ran before it in the same process.

Every obligation is solved in its own z3 context (``proofs._kit.solve``). This
test runs all theorem modules in one process (``python -m proofs``), in
registry order and in reverse, and compares each outcome with the module run
alone in a process of its own (the runs ``test_proofs.py`` reads too). The run
in registry order is the one the docs build publishes (``proofs/_record.py``).
Before the fix, ``order_independence`` re-running ``confluence`` after other
theorems got ``unknown`` for an obligation that is ``sat`` alone.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from proofs import _record
from proofs.registry import MODULES
from tests.common.theorem_runs import AloneRun, alone_runs, shared_folder

ROOT = Path(__file__).resolve().parents[2]

_SECONDS = re.compile(r"\(\d+(\.\d+)? s\)")


def _comparable(outcomes: list[dict[str, Any]]) -> list[tuple[str, bool, str]]:
    """Outcomes without their wall-clock figures (the bounded check prints its time)."""
    return [(o["name"], o["ok"], _SECONDS.sub("(time)", o["detail"])) for o in outcomes]


def _together(args: list[str]) -> list[dict[str, Any]]:
    """``python -m proofs --json ARGS``: every theorem named (or all) in one process, one result per line."""
    proc = subprocess.run(
        [sys.executable, "-m", "proofs", "--json", *args], cwd=ROOT, capture_output=True, text=True, timeout=900,
        check=False,
    )
    assert proc.stdout.strip(), proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, AloneRun]:
    """Each theorem module run alone, in a process of its own, once per session (``tests/common/theorem_runs.py``)."""
    return alone_runs(shared_folder(tmp_path_factory))


@pytest.fixture(scope="module")
def records(runs: dict[str, AloneRun]) -> dict[str, list[dict[str, Any]]]:
    """Each theorem module's outcomes, from a process of its own."""
    assert all(run.record is not None for run in runs.values()), [n for n, r in runs.items() if r.record is None]
    return {name: run.record["outcomes"] for name, run in runs.items() if run.record is not None}


@pytest.fixture(scope="module")
def alone(records: dict[str, list[dict[str, Any]]]) -> dict[str, list[tuple[str, bool, str]]]:
    return {name: _comparable(outcomes) for name, outcomes in records.items()}


def test_every_theorem_has_an_obligation_that_fails_without_its_hypotheses(
    records: dict[str, list[dict[str, Any]]],
) -> None:
    """Obligations true without their hypotheses are not evidence: each theorem must have others."""
    for name, outcomes in records.items():
        assert any(o["ok"] and o["needs_hypotheses"] for o in outcomes), name
    flagged = {o["name"] for outcomes in records.values() for o in outcomes if o["needs_hypotheses"] is False}
    # the ones the audit found, among others, are recognised as such
    assert "rewiring keeps GRAPH-R1: a name read before is still read (x gains y's readers)" in flagged
    assert "count_include_pad = 1: the counted positions agree" in flagged


@pytest.mark.parametrize("order", ["registry", "reverse"])
def test_outcomes_do_not_depend_on_what_ran_before(
    order: str, alone: dict[str, Any], runs: dict[str, AloneRun], tmp_path: Path
) -> None:
    names = list(MODULES) if order == "registry" else list(reversed(MODULES))
    # The registry's order is the docs build's: that run is recorded for it (make pytest names the folder).
    folder = Path(os.environ.get("SONNX_PROOF_RECORDS") or tmp_path / "records")
    together = _together(["--record", str(folder)] if order == "registry" else names)
    assert [line["module"] for line in together] == names
    for name, line in zip(names, together, strict=True):
        assert _comparable(line["outcomes"]) == alone[name], name
    # Every theorem is proved in each arrangement (the point of the comparison is not an agreed failure).
    assert all(ok for outcomes in alone.values() for _, ok, _ in outcomes)
    if order == "registry":
        # What the docs will publish is this run: each result as printed, each report as the module alone prints it.
        kept = _record.recall(folder / f"{_record.inputs_digest()}.json", MODULES)
        assert kept is not None
        for line in together:
            name = line.pop("module")
            assert kept[name]["result"] == line, name
            assert _SECONDS.sub("(time)", kept[name]["report"]) == _SECONDS.sub("(time)", runs[name].stdout), name
