"""Obligations two rules write alike: one script when they agree, each verdict its own.

GRAPH-ACYCLIC's and GRAPH-C3's certificates write their comparisons along the
read and write facts with :func:`sonnx.smt.ground.comparisons`; GRAPH-R1's and
GRAPH-R1-TRANSITIVE's write the equalities of their named uses, and GRAPH-C3
those of the writes that define tensors, with
:func:`sonnx.smt.ground.equalities`. On a model the rules accept, the
scripts are the same text and the engine has z3 solve it once, giving the
answer to each rule. A wrong certificate of one rule changes
that rule's text only, so it is solved apart and refused for that rule alone.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Model, Operation
from sonnx.smt import SolverSettings, run_smt
from sonnx.smt.certify import derivation, distances, index_of
from sonnx.smt.common import drive
from sonnx.smt.encodings import graph_acyclic, graph_c3, graph_r1, graph_r1_transitive
from sonnx.smt.facts import model_facts
from sonnx.smt.pool import Job, Solving, Ticket
from tests.common.smtkit import g, model

ST = SolverSettings()
ORDER = "c3.certificate.order"


def op(kind: str, ins: tuple[str, ...], outs: tuple[str, ...], name: str = "") -> Operation:
    return Operation(kind, "", name, ins, outs)


def dag(n: int = 40, seed: int = 3) -> Model:
    """Random Add operations over earlier tensors, the unread ones graph outputs: acyclic and complete."""
    rng = np.random.default_rng(seed)
    names, ops = ["x", "w"], []
    for i in range(n):
        a, b = (names[int(rng.integers(0, len(names)))] for _ in range(2))
        ops.append(op("Add", (a, b), (f"t{i}",), f"n{i}"))
        names.append(f"t{i}")
    read = {t for o in ops for t in o.input_mapping}
    return model(g(["x", "w"], [t for t in names[2:] if t not in read], ops))


class Counting(Solving):
    """Solves in this process and keeps every script it was sent."""

    def __init__(self) -> None:
        super().__init__(1)
        self.texts: list[str] = []

    def submit(self, job: Job) -> Ticket:
        self.texts.append(job.text)
        return super().submit(job)


def run(m: Model) -> tuple[dict[str, Any], Any, Counting]:
    solving = Counting()
    r = run_smt(m, ST, mode="certificate", solving=solving)
    return {v.rule_id: v for v in r.verdicts}, r, solving


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-C3")
@pytest.mark.parametrize("part", [None, 7])
def test_the_common_comparisons_are_one_script_solved_once(part: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole or in parts, C3's comparisons are GRAPH-ACYCLIC's certificate text for text, and z3 gets each once."""
    from sonnx.smt import common

    if part is not None:
        monkeypatch.setattr(common, "PART", part)
    v, r, solving = run(dag())
    assert {v[rid].status for rid in ("GRAPH-ACYCLIC", "GRAPH-C3")} == {Status.PROVED}
    acyclic = [o for o in r.obligations if o.name.startswith("graph_acyclic.certificate")]
    order = [o for o in r.obligations if o.name.startswith(ORDER)]
    assert len(acyclic) == len(order) == (1 if part is None else len(acyclic)) and len(acyclic) > (part is not None)
    assert [o.script() for o in acyclic] == [o.script() for o in order]
    assert all(o.answer == "sat" for o in acyclic + order)
    assert len(solving.texts) == len(set(solving.texts)), "a script was sent to the solver twice"
    assert {o.script() for o in acyclic} <= set(solving.texts)
    # each rule still has obligations of its own beside the shared ones
    assert any(o.name == "c3.certificate" or o.name.startswith("c3.certificate.part") for o in r.obligations)


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-C3")
def test_a_wrong_rank_certificate_is_refused_for_graph_acyclic_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    real = graph_acyclic.ranks_of

    def lie(f: Any) -> Any:
        rank, trank = real(f)
        trank = trank.copy()
        trank[f.wr_t[0] - f.t_base] = rank[0] - 1  # the first operation's output ranked below it
        return rank, trank

    monkeypatch.setattr(graph_acyclic, "ranks_of", lie)
    v, r, _ = run(dag())
    assert v["GRAPH-ACYCLIC"].status is Status.UNKNOWN and "rank certificate" in (v["GRAPH-ACYCLIC"].reason or "")
    assert v["GRAPH-C3"].status is Status.PROVED
    assert {o.answer for o in r.obligations if o.name.startswith(ORDER)} == {"sat"}


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-C3")
def test_a_wrong_definedness_certificate_is_refused_for_graph_c3_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    real = graph_c3.derivation

    def lie(f: Any, ix: Any) -> Any:
        d = copy.deepcopy(real(f, ix))
        last = f.n - 1
        d.fire[last] = 1  # fires at 1 though it reads what earlier operations define
        return d

    monkeypatch.setattr(graph_c3, "derivation", lie)
    v, r, _ = run(dag())
    assert v["GRAPH-C3"].status is Status.UNKNOWN and "definedness certificate" in (v["GRAPH-C3"].reason or "")
    assert v["GRAPH-ACYCLIC"].status is Status.PROVED
    refused = [o.name for o in r.obligations if o.answer == "unsat" and o.rule_id in ("GRAPH-ACYCLIC", "GRAPH-C3")]
    assert refused == [ORDER], refused


def chain() -> Model:
    """x -> a -> b -> y."""
    return model(
        g(["x"], ["y"], [op("Relu", ("x",), ("a",), "r"), op("Neg", ("a",), ("b",), "n"), op("Abs", ("b",), ("y",))])
    )


@pytest.mark.rule("GRAPH-C3")
def test_a_tensor_defined_before_its_writer_fires_is_refused() -> None:
    """Only the write's comparison f(o) <= h(t) is false (y is read by nothing): the order obligation holds it."""
    facts = model_facts(chain())
    f = facts[0]
    right = derivation(f, index_of(f))
    c = copy.deepcopy(right)
    c.time[f.tid["y"] - f.t_base] = 2  # Abs fires at 3
    res = drive(graph_c3.check_certificate(facts, {0: c}), ST)
    assert res.verdict.status is Status.UNKNOWN and "definedness certificate" in (res.verdict.reason or "")
    assert [o.name for o in res.obligations if o.answer == "unsat"] == [ORDER]
    assert drive(graph_c3.check_certificate(facts, {0: right}), ST).verdict.status is Status.PROVED


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_an_operation_ranked_above_its_output_is_refused() -> None:
    """Only a write fact's comparison R(o) <= T(t) is false: the shared text must hold the writes too."""
    facts = model_facts(chain())
    f = facts[0]
    rank, trank = graph_acyclic.ranks_of(f)  # type: ignore[misc]
    trank = trank.copy()
    trank[f.tid["y"] - f.t_base] = rank[2] - 1  # y is read by nothing: no read comparison sees it
    res = drive(graph_acyclic.check_certificate(facts, {0: (rank, trank)}), ST)
    assert res.verdict.status is Status.UNKNOWN and "rank certificate" in (res.verdict.reason or "")


USES = "r1t.certificate.uses"


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE", "GRAPH-C3")
@pytest.mark.parametrize("part", [None, 7])
def test_the_named_uses_are_one_script_for_three_rules(part: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    from sonnx.smt import common

    if part is not None:
        monkeypatch.setattr(common, "PART", part)
    v, r, solving = run(dag())
    assert {v[rid].status for rid in ("GRAPH-R1", "GRAPH-R1-TRANSITIVE", "GRAPH-C3")} == {Status.PROVED}
    r1 = [o for o in r.obligations if o.name.startswith("r1.certificate")]
    r1t = [o for o in r.obligations if o.name.startswith(USES)]
    c3 = [o for o in r.obligations if o.name.startswith("c3.certificate.writes")]
    assert len(r1) > (part is not None) and [o.script() for o in r1] == [o.script() for o in r1t]
    assert [o.script() for o in r1] == [o.script() for o in c3]
    assert len(solving.texts) == len(set(solving.texts)), "a script was sent to the solver twice"
    assert any(o.name == "r1t.certificate" for o in r.obligations)


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
@pytest.mark.parametrize("liar", ["GRAPH-R1", "GRAPH-R1-TRANSITIVE"])
def test_a_wrong_use_is_refused_for_its_rule_alone(liar: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first operation's named use moved to a graph output it does not write: only the liar's equality fails."""
    module, real = (graph_r1, graph_r1.uses) if liar == "GRAPH-R1" else (graph_r1_transitive, distances)

    def lie(f: Any, ix: Any) -> Any:
        found, rest = real(f, ix)
        found = copy.deepcopy(found)
        found.kind[0], found.other[0] = 1, 0  # OUTPUT, the first graph output (not the first operation's tensor)
        if liar == "GRAPH-R1-TRANSITIVE":
            found.dist[0] = 0
        return found, rest

    monkeypatch.setattr(module, "uses" if liar == "GRAPH-R1" else "distances", lie)
    v, _, _ = run(dag())
    other = "GRAPH-R1-TRANSITIVE" if liar == "GRAPH-R1" else "GRAPH-R1"
    assert v[liar].status is Status.UNKNOWN and "certificate" in (v[liar].reason or ""), v[liar]
    assert v[other].status is Status.PROVED
