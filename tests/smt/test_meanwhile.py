"""The caller's work beside the solving: ``run_smt(meanwhile=...)`` and the pipeline's direct rules in it.

``run_smt`` runs the caller's work once, after the first round of encodings
has sent its obligations and before it waits for any answer, so that worker
processes solve while the work runs. A solving that records its calls and
answers only when asked shows that order without timing anything. The
pipeline runs the direct engine there; the verdicts of the check are those
of the two engines run one after the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import sonnx.checking.pipeline as check_pipeline
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.smt import registry, run_smt
from sonnx.smt.pool import Job, Solving, Ticket, answer_of, solve_job
from sonnx.smt.solver import Answer
from tests.common.smtkit import g, model, op

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class Recording(Solving):
    """Solves in this process, but only when an answer is asked for; notes every submission and answer."""

    def __init__(self, events: list[str]) -> None:
        super().__init__(1)
        self.events = events

    def submit(self, job: Job) -> Ticket:
        self.events.append("submit")
        return Ticket(job)

    def answer(self, ticket: Ticket) -> Answer:
        self.events.append("answer")
        if ticket.answer is None:
            ticket.answer = answer_of(solve_job(ticket.job), remote=False)
        return ticket.answer


def _chain(n: int = 30) -> Any:
    ops = [op("Relu", ("x" if i == 0 else f"t{i - 1}",), (f"t{i}",), f"n{i}") for i in range(n)]
    return model(g(["x"], [f"t{n - 1}"], ops))


@pytest.mark.parametrize("mode", ["search", "certificate"])
def test_meanwhile_runs_once_after_obligations_are_sent_and_before_any_answer(mode: str) -> None:
    events: list[str] = []
    run = run_smt(_chain(), mode=mode, solving=Recording(events), meanwhile=lambda: events.append("meanwhile"))
    assert events.count("meanwhile") == 1
    at = events.index("meanwhile")
    assert "submit" in events[:at] and "answer" not in events[:at]
    assert "answer" in events[at:]
    alone = run_smt(_chain(), mode=mode)
    assert [(v.rule_id, v.status) for v in run.verdicts] == [(v.rule_id, v.status) for v in alone.verdicts]


def test_meanwhile_runs_once_with_an_empty_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "ENCODINGS", ())
    calls: list[int] = []
    run = run_smt(_chain(), meanwhile=lambda: calls.append(1))
    assert calls == [1] and run.verdicts == []


def test_an_error_of_the_meanwhile_work_reaches_the_caller() -> None:
    def fails() -> None:
        raise ValueError("the caller's own failure")

    with pytest.raises(ValueError, match="the caller's own failure"):
        run_smt(_chain(), meanwhile=fails)


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_the_pipeline_runs_the_direct_rules_while_the_smt_engine_solves(monkeypatch: pytest.MonkeyPatch) -> None:
    inside: list[bool] = []
    active: list[bool] = [False]
    real_smt, real_rules = check_pipeline.run_smt, check_pipeline.run_rules

    def smt(*args: Any, **kw: Any) -> Any:
        active[0] = True
        try:
            return real_smt(*args, **kw)
        finally:
            active[0] = False

    def rules(*args: Any, **kw: Any) -> Any:
        inside.append(active[0])
        return real_rules(*args, **kw)

    path = str(EXAMPLES / "acyclic_cycle.onnx")
    before = check_file(path, CheckOptions(engine="both"))
    monkeypatch.setattr(check_pipeline, "run_smt", smt)
    monkeypatch.setattr(check_pipeline, "run_rules", rules)
    report = check_file(path, CheckOptions(engine="both"))
    assert inside == [True]
    assert [(v.rule_id, v.status, v.engine) for v in report.verdicts] == [
        (v.rule_id, v.status, v.engine) for v in before.verdicts
    ]
    assert any(v.rule_id == "GRAPH-ACYCLIC" and v.fails and v.engine == "direct+smt" for v in report.verdicts)
    monkeypatch.setattr(check_pipeline, "run_smt", real_smt)
    inside.clear()
    check_file(path, CheckOptions(engine="direct"))
    assert inside == [False]
