"""Each obligation's stated reading agrees with the verdict it gave (what an exported file's header claims).

An obligation says under which answer its rule's property holds
(``holds_when``); the evidence bundle and ``--smt-dir`` print that reading
for a second solver. If a rule is PROVED, every answered obligation of it
answered that way; if it is VIOLATED, at least one answered the other way.
A reading written backwards (or not at all) would mislead whoever re-checks
the files, and nothing else would notice. The one PROVED without obligations
of its own is GRAPH-DETERMINISM on a graph without any source: it rests on
GRAPH-R2's obligations (module docstring of :mod:`sonnx.smt.encodings.graph_determinism`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sonnx.base.verdict import Status
from sonnx.loader import load_model
from sonnx.smt import run_smt
from sonnx.smt.smtlib import Obligation, expected_answer
from tests.common.smtkit import EXAMPLES

pytestmark = pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")

OTHER = {"sat": "unsat", "unsat": "sat"}
NAME = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+")


def _answered(obs: list[Obligation]) -> list[Obligation]:
    return [ob for ob in obs if ob.answer in OTHER]


@pytest.mark.parametrize("mode", ["search", "certificate"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_each_reading_agrees_with_the_verdict(path: Path, mode: str) -> None:
    run = run_smt(load_model(path), mode=mode)
    names = [ob.name for ob in run.obligations]
    # the names become the exported files' names: one file per obligation, in the documented lowercase form
    assert len(set(names)) == len(names) and all(NAME.fullmatch(n) for n in names), names
    for v in run.verdicts:
        obs = [ob for ob in run.obligations if ob.rule_id == v.rule_id]
        for ob in obs:
            assert ob.holds_when in OTHER, (ob.name, ob.holds_when)
            assert ob.mode in ("search", "certificate"), (ob.name, ob.mode)
            assert isinstance(ob.meaning, str) and ob.meaning.strip(), (ob.name, ob.meaning)
            head = ob.render()
            assert f"; the property holds when the answer is: {ob.holds_when}\n" in head
            assert f"; mode: {ob.mode}\n" in head and f"; rule: {v.rule_id}\n" in head
            assert expected_answer(head) == (ob.answer or "not")
        # the verdict says which mode decided it, in its engine and in its witness
        assert v.engine in ("smt", "smt/search", "smt/certificate"), (v.rule_id, v.engine)
        if v.witness is not None and "mode" in v.witness.data:
            assert v.witness.data["mode"] in ("search", "certificate"), (v.rule_id, v.witness.data["mode"])
        answered = _answered(obs)
        if v.status is Status.PROVED:
            if v.rule_id == "GRAPH-DETERMINISM" and not obs:
                r2 = next(x for x in run.verdicts if x.rule_id == "GRAPH-R2")
                assert r2.status is Status.PROVED, "GRAPH-DETERMINISM PROVED without obligations, GRAPH-R2 not"
            else:
                assert answered, v.rule_id
            wrong = [ob.name for ob in answered if ob.answer != ob.holds_when]
            assert not wrong, f"{v.rule_id} PROVED, yet {wrong} answered against their reading"
        elif v.status is Status.VIOLATED:
            against = [ob.name for ob in answered if ob.answer == OTHER[ob.holds_when]]
            assert against, f"{v.rule_id} VIOLATED, yet every obligation answered as its reading says it holds"
