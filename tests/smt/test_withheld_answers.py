"""A solver that leaves one obligation unanswered can only make verdicts UNKNOWN: never flip one, never crash.

For each example and mode, the run is repeated once per obligation of the
honest run, with a solver that answers ``unknown`` to that obligation alone:
the in-process solving, :class:`sonnx.smt.pool.Solving`, with a worker
function that withholds it, and, for the obligations a rule solves at once
in this process to read z3's model (``local``), the engine's ``solve``
replaced the same way. Every obligation is withheld in its run. Every rule must still answer under its own ID,
with the honest run's status or UNKNOWN: a missing answer is "not
established", whichever branch of a rule's proof it falls in (search,
certificate, witness enumeration, refutation of a counter-certificate).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import sonnx.smt.engine as engine
from sonnx.base.verdict import Status
from sonnx.loader import load_model
from sonnx.smt import SolverSettings, run_smt
from sonnx.smt.engine import RULE_IDS
from sonnx.smt.pool import Job, Reply, Solving, solve_job
from sonnx.smt.solver import Answer, solve
from tests.common.smtkit import EXAMPLES


class Withhold:
    """A worker function answering ``unknown`` to the one script ``text``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.withheld = 0

    def __call__(self, job: Job) -> Reply:
        if job.text == self.text:
            self.withheld += 1
            return Reply("unknown", "withheld by the test")
        return solve_job(job)

    def local(self, text: str, settings: SolverSettings, difference_logic: bool = False) -> Answer:
        """The engine's in-process ``solve``, withholding the same script."""
        if text == self.text:
            self.withheld += 1
            return Answer("unknown", "withheld by the test")
        return solve(text, settings, difference_logic)


@pytest.mark.parametrize("mode", ["search", "certificate"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_withholding_one_answer_only_makes_verdicts_unknown(
    path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = load_model(path)
    honest = run_smt(m, mode=mode)
    expected = {v.rule_id: v.status for v in honest.verdicts}
    for ob in honest.obligations:
        worker = Withhold(ob.script())
        with monkeypatch.context() as mp, Solving(1, worker=worker) as solving:
            mp.setattr(engine, "solve", worker.local)
            run = run_smt(m, mode=mode, solving=solving)
        assert worker.withheld, f"{ob.name} was never asked for"
        got = {v.rule_id: v for v in run.verdicts}
        assert sorted(got) == sorted(RULE_IDS), ob.name
        for rid, v in got.items():
            assert v.rule_id == rid and v.status in (expected[rid], Status.UNKNOWN), (ob.name, v)
        owner = got[ob.rule_id]
        assert owner.status is Status.UNKNOWN or ob.answer == "unknown", (ob.name, owner)
        # the unanswered obligation stays in the record, and the reason says why
        assert any(x.answer == "unknown" and x.script() == ob.script() for x in run.obligations), ob.name
        if owner.status is Status.UNKNOWN and ob.answer != "unknown":
            assert "withheld by the test" in (owner.reason or ""), (ob.name, owner.reason)
