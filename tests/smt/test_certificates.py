"""Wrong certificates and counter-certificates are rejected by the solver, never believed.

The producers of :mod:`sonnx.smt.certify` are untrusted: a certificate only
says which facts and values an obligation mentions. Each test here feeds a
hand-made wrong one, either straight to a rule's check or by replacing the
producer the rule calls, and requires an UNKNOWN verdict that names the
rejection; the same check given the right certificate must prove the rule (or
confirm the violation), so every test can fail both ways.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Model, Operation, make_operation
from sonnx.smt import SolverSettings, run_smt
from sonnx.smt.certify import (
    INPUT,
    OUTPUT,
    READ,
    WRITE,
    Derivation,
    Distances,
    derivation,
    distances,
    index_of,
    input_readers,
    ranks,
    uses,
)
from sonnx.smt.common import drive
from sonnx.smt.encodings import graph_acyclic, graph_c2, graph_c3, graph_r1, graph_r1_transitive
from sonnx.smt.encodings import graph_c1 as c1
from sonnx.smt.facts import ScopeFacts, model_facts
from tests.common.smtkit import g, model, smt

ST = SolverSettings()


def op(kind: str, ins: tuple[str, ...], outs: tuple[str, ...], name: str = "") -> Operation:
    return Operation(kind, "", name, ins, outs)


def chain() -> Model:
    """x -> a -> b -> y: acyclic, complete, every operation contributes."""
    return model(
        g(["x"], ["y"], [op("Relu", ("x",), ("a",), "r"), op("Neg", ("a",), ("b",), "n"), op("Abs", ("b",), ("y",))])
    )


def cyclic() -> Model:
    """a = Add(x, b), b = Neg(a): a cycle of two."""
    return model(g(["x"], ["b"], [op("Add", ("x", "b"), ("a",), "add"), op("Neg", ("a",), ("b",), "neg")]))


WHAT = (
    "rank certificate|input-reader certificate|definedness certificate|use certificate|distance certificate"
    "|never-defined set|list of dead operations|list of non-contributing operations|claimed unread inputs"
    "|claimed cycle|conflicting definitions"
)
REJECTED = re.compile(
    rf"the solver rejected the ({WHAT}) \(answer (sat|unsat|unknown)\): a tool defect \[smt/(search|certificate)\]"
)


def rejected(v: Any) -> bool:
    """UNKNOWN because the solver refused a certificate, naming which one (or another stated tool defect)."""
    reason = v.reason or ""
    if "rejected" in reason:
        return v.status is Status.UNKNOWN and REJECTED.search(reason) is not None
    return v.status is Status.UNKNOWN and "tool defect" in reason


# -- GRAPH-ACYCLIC --------------------------------------------------------------------------------


def test_right_rank_certificate_proves() -> None:
    facts = model_facts(chain())
    certs = {f.index: ranks(f, index_of(f)) for f in facts}
    assert drive(graph_acyclic.check_certificate(facts, certs), ST).verdict.status is Status.PROVED  # type: ignore[arg-type]


@pytest.mark.parametrize("shape", ["all equal", "reversed", "tensor below its writer"])
def test_wrong_rank_certificate_on_a_dag_is_rejected(shape: str) -> None:
    facts = model_facts(chain())
    f = facts[0]
    rank, trank = ranks(f, index_of(f))  # type: ignore[misc]
    if shape == "all equal":
        rank, trank = [1] * len(rank), [1] * len(trank)
    elif shape == "reversed":
        top = max(rank) + 1
        rank, trank = [top - r for r in rank], [top - t for t in trank]
    else:
        trank = [t - 1 for t in trank]
    res = drive(graph_acyclic.check_certificate(facts, {0: (rank, trank)}), ST)
    assert rejected(res.verdict), res.verdict
    # the refused obligation is kept for the record (the evidence bundle exports it)
    assert [o.answer for o in res.obligations] == ["unsat"], res.obligations


def test_no_rank_certificate_is_accepted_for_a_cycle() -> None:
    """Equal ranks satisfy ``<=`` on a cycle; the strict read constraint must reject them."""
    facts = model_facts(cyclic())
    f = facts[0]
    for value in (0, 1, 5):
        v = drive(graph_acyclic.check_certificate(facts, {0: ([value] * f.n, [value] * f.n_tensors)}), ST).verdict
        assert v.status is Status.UNKNOWN and "rejected" in (v.reason or ""), v
    # ranks that work for every edge but one
    v = drive(graph_acyclic.check_certificate(facts, {0: ([1, 2], [0, 2, 3])}), ST).verdict
    assert v.status is Status.UNKNOWN, v


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_a_claimed_cycle_that_is_not_one_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    m = cyclic()
    assert smt(m, "certificate")["GRAPH-ACYCLIC"].status is Status.VIOLATED

    def not_a_cycle(f: ScopeFacts, ix: Any) -> list[tuple[int, int]]:
        return [(0, 0)]  # write of Add, read of x by Add: not a cycle

    monkeypatch.setattr(graph_acyclic, "cycle", not_a_cycle)
    for mode in ("search", "certificate"):
        assert rejected(smt(m, mode)["GRAPH-ACYCLIC"])


# -- GRAPH-C3 -------------------------------------------------------------------------------------


def test_right_definedness_certificate_proves() -> None:
    facts = model_facts(chain())
    cert = {f.index: derivation(f, index_of(f)) for f in facts}
    assert drive(graph_c3.check_certificate(facts, cert), ST).verdict.status is Status.PROVED


@pytest.mark.parametrize("wrong", ["fires too early", "wrong write", "output without record"])
def test_wrong_definedness_certificate_is_rejected(wrong: str) -> None:
    facts = model_facts(chain())
    f = facts[0]
    c = copy.deepcopy(derivation(f, index_of(f)))
    y = f.tid["y"] - f.t_base
    if wrong == "fires too early":
        c.fire[2] = 1  # Abs reads b, defined at time 2
    elif wrong == "wrong write":
        c.fact[y] = 0  # the write of Relu defines a, not y
    else:
        c.time[y] = -1  # y has no record
    assert rejected(drive(graph_c3.check_certificate(facts, {0: c}), ST).verdict)


def diamond() -> Model:
    """Inputs x and w, a = Relu(x), b = Neg(w), y = Add(a, b): tensor ids and definition times differ."""
    ops = [op("Relu", ("x",), ("a",), "r"), op("Neg", ("w",), ("b",), "n"), op("Add", ("a", "b"), ("y",), "add")]
    return model(g(["x", "w"], ["y"], ops))


@pytest.mark.parametrize(("name", "other"), [("a", "b"), ("b", "a"), ("y", "a"), ("y", "b")])
def test_each_written_tensor_must_name_its_own_write(name: str, other: str) -> None:
    """Every defined tensor's named fact is checked against that tensor: a written tensor that names the write
    of another operation, one firing no later than the tensor's time (so the order instance still holds and
    only the equality can refuse it), makes the certificate rejected. In this model a tensor's id, its time
    and its writer's firing time are different numbers, so no instance holds by coincidence (in
    :func:`chain` they are all equal)."""
    facts = model_facts(diamond())
    f = facts[0]
    right = derivation(f, index_of(f))
    assert [right.time[f.tid[n] - f.t_base] for n in ("x", "w", "a", "b", "y")] == [0, 0, 1, 1, 2]
    c = copy.deepcopy(right)
    t, u = f.tid[name] - f.t_base, f.tid[other] - f.t_base
    assert c.how[t] == c.how[u] == WRITE
    c.fact[t] = c.fact[u]
    assert rejected(drive(graph_c3.check_certificate(facts, {0: c}), ST).verdict)
    assert drive(graph_c3.check_certificate(facts, {0: right}), ST).verdict.status is Status.PROVED


@pytest.mark.rule("GRAPH-C3", "GRAPH-R1", "GRAPH-R1-TRANSITIVE")
@pytest.mark.parametrize("rule", ["GRAPH-C3", "GRAPH-R1", "GRAPH-R1-TRANSITIVE"])
def test_a_certificate_without_a_record_names_what_is_missing(rule: str) -> None:
    """A record left out of a certificate is a tool defect, and the reason says which record (not a KeyError)."""
    facts = model_facts(chain())
    f = facts[0]
    if rule == "GRAPH-C3":
        c = copy.deepcopy(derivation(f, index_of(f)))
        c.time[f.tid["y"] - f.t_base] = -1
        proof = graph_c3.check_certificate(facts, {0: c})
        reason = f"the definedness certificate is incomplete at {f.tid['y']}"
    elif rule == "GRAPH-R1":
        u = copy.deepcopy(uses(f, index_of(f))[0])
        u.kind[1] = -1
        proof, reason = graph_r1.check_certificate(facts, {0: u}), "the use certificate names no write of operation 1"
    else:
        d = copy.deepcopy(distances(f, index_of(f))[0])
        d.kind[1] = -1
        proof = graph_r1_transitive.check_certificate(facts, {0: d})
        reason = "the distance certificate has no record for 1"
    v = drive(proof, ST).verdict
    assert v.status is Status.UNKNOWN and v.rule_id == rule
    assert v.reason == f"{reason} (a tool defect) [smt/certificate]", v.reason


@pytest.mark.rule("GRAPH-C3")
def test_equal_times_cannot_justify_a_cycle() -> None:
    """A cycle does not support itself: an operation must fire strictly after what it reads is defined."""
    facts = model_facts(cyclic())
    f = facts[0]
    t = f.tid
    time, how, fact = np.full(3, -1), np.zeros(3, int), np.zeros(3, int)
    for name, (when, kind, k) in {"x": (0, INPUT, 0), "a": (1, WRITE, 0), "b": (1, WRITE, 1)}.items():
        time[t[name]], how[t[name]], fact[t[name]] = when, kind, k
    v = drive(graph_c3.check_certificate(facts, {0: Derivation(np.array([1, 1]), time, how, fact)}), ST).verdict
    assert rejected(v), v
    assert smt(cyclic(), "certificate")["GRAPH-C3"].status is Status.VIOLATED


def _c3_model() -> Model:
    return model(g(["x"], ["z", "y"], [op("Relu", ("x",), ("y",)), op("Neg", ("ghost",), ("z",), "neg")]))


@pytest.mark.rule("GRAPH-C3")
def test_right_never_defined_set_confirms_the_violation() -> None:
    v = smt(_c3_model(), "certificate")["GRAPH-C3"]
    assert v.status is Status.VIOLATED


@pytest.mark.parametrize("wrong", ["a defined tensor claimed", "input claimed", "writer not blocked"])
def test_wrong_never_defined_set_is_rejected(wrong: str) -> None:
    facts = model_facts(_c3_model())
    f = facts[0]
    t = f.tid
    members = {t["ghost"], t["z"]}
    blocked = {1: f.rd_ptr[1]}  # Neg's read of ghost
    outs = [t["z"]]
    if wrong == "a defined tensor claimed":
        members.add(t["y"])
        outs.append(t["y"])
    elif wrong == "input claimed":
        members.add(t["x"])
    else:
        blocked = {}
    v = drive(graph_c3.check_counter(facts, {0: (members, blocked, outs)}), ST).verdict
    assert rejected(v), v
    right = drive(graph_c3.check_counter(facts, {0: ({t["ghost"], t["z"]}, {1: f.rd_ptr[1]}, [t["z"]])}), ST)
    assert right.verdict.status is Status.VIOLATED


# -- GRAPH-R1 and GRAPH-R1-TRANSITIVE -------------------------------------------------------------


def test_right_use_and_distance_certificates_prove() -> None:
    facts = model_facts(chain())
    f = facts[0]
    assert drive(graph_r1.check_certificate(facts, {0: uses(f, index_of(f))[0]}), ST).verdict.status is Status.PROVED
    d = distances(f, index_of(f))[0]
    assert drive(graph_r1_transitive.check_certificate(facts, {0: d}), ST).verdict.status is Status.PROVED


def test_wrong_use_certificate_is_rejected() -> None:
    facts = model_facts(chain())
    f = facts[0]
    found = copy.deepcopy(uses(f, index_of(f))[0])
    found.kind[0], found.wfact[0], found.other[0] = READ, 0, 2  # Relu's write of a "used by" Abs's read of b
    assert rejected(drive(graph_r1.check_certificate(facts, {0: found}), ST).verdict)
    found.wfact[0], found.other[0] = 1, 1  # a write fact of another operation
    assert rejected(drive(graph_r1.check_certificate(facts, {0: found}), ST).verdict)


def test_a_use_certificate_borrowing_another_operations_write_is_rejected() -> None:
    """A dead operation cannot be made live by naming a write fact of a live one, even when the claim holds."""
    facts = model_facts(_dead_model())
    f = facts[0]
    found = copy.deepcopy(uses(f, index_of(f))[0])
    # Neg (operation 2) is dead; name Relu's write of y (write fact 0) and the graph-output fact of y: "y = y"
    found.kind[2], found.wfact[2], found.other[2] = OUTPUT, 0, 0
    assert rejected(drive(graph_r1.check_certificate(facts, {0: found}), ST).verdict)


@pytest.mark.parametrize("wrong", ["distance not decreasing", "negative distance", "wrong tensor"])
def test_wrong_distance_certificate_is_rejected(wrong: str) -> None:
    facts = model_facts(chain())
    f = facts[0]
    d = copy.deepcopy(distances(f, index_of(f))[0])
    if wrong == "distance not decreasing":
        d.dist[0] = 0  # Relu's next step is Neg, at distance 1
    elif wrong == "negative distance":
        d.dist[[2, 1, 0]] = [-1, 0, 1]
    else:
        d.kind[0], d.wfact[0], d.other[0] = OUTPUT, 0, 0  # Relu does not write the graph output
    assert rejected(drive(graph_r1_transitive.check_certificate(facts, {0: d}), ST).verdict)


@pytest.mark.rule("GRAPH-R1-TRANSITIVE")
def test_equal_distances_cannot_make_a_cut_off_cycle_contribute() -> None:
    """Each step of a distance certificate must get strictly closer to an output."""
    ops = [op("Relu", ("x",), ("y",)), op("Add", ("x", "b"), ("a",), "add"), op("Neg", ("a",), ("b",), "neg")]
    m = model(g(["x"], ["y"], ops))
    facts = model_facts(m)
    f = facts[0]
    assert [f.rd_t[3], f.rd_t[2]] == [f.tid["a"], f.tid["b"]]
    # Relu writes the output; Add "reaches" it through Neg's read of a, Neg through Add's read of b
    d = Distances(
        kind=np.array([OUTPUT, READ, READ]),
        wfact=np.array([0, 1, 2]),
        other=np.array([0, 3, 2]),
        dist=np.array([0, 1, 1]),
    )
    assert rejected(drive(graph_r1_transitive.check_certificate(facts, {0: d}), ST).verdict)
    assert smt(m, "certificate")["GRAPH-R1-TRANSITIVE"].status is Status.VIOLATED


def _dead_model() -> Model:
    ops = [op("Relu", ("x",), ("y",)), op("Abs", ("x",), ("a",), "abs"), op("Neg", ("a",), ("n",), "neg")]
    return model(g(["x"], ["y"], ops))


LISTS = pytest.mark.parametrize(
    ("module", "producer", "rule"),
    [(graph_r1, "uses", "GRAPH-R1"), (graph_r1_transitive, "distances", "GRAPH-R1-TRANSITIVE")],
)
"""The two rules whose violation is a list of operations (dead, non-contributing), with the producer of the list."""


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
@LISTS
def test_a_live_operation_claimed_dead_is_rejected(module: Any, producer: str, rule: str, monkeypatch: Any) -> None:
    m = _dead_model()
    for mode in ("search", "certificate"):
        assert smt(m, mode)[rule].status is Status.VIOLATED
    real: Callable[..., Any] = getattr(module, producer)

    def lying(f: ScopeFacts, ix: Any) -> Any:
        found, rest = real(f, ix)
        return found, sorted({*rest, 0})  # Relu writes the graph output

    monkeypatch.setattr(module, producer, lying)
    for mode in ("search", "certificate"):
        assert rejected(smt(m, mode)[rule])


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
@LISTS
def test_an_empty_list_is_no_witness_of_a_violation_the_search_found(
    module: Any, producer: str, rule: str, monkeypatch: Any
) -> None:
    # the search says some operation is dead or idle; a producer that lists none must not turn that into VIOLATED
    real: Callable[..., Any] = getattr(module, producer)
    monkeypatch.setattr(module, producer, lambda f, ix: (real(f, ix)[0], []))
    verdict = smt(_dead_model(), "search")[rule]
    assert verdict.status is Status.UNKNOWN, verdict
    # in certificate mode the list is asked for twice (to choose the counter-certificate, then to write it):
    # a producer that names the dead operations the first time and none the second is refused too
    calls: list[int] = []

    def fickle(f: ScopeFacts, ix: Any) -> Any:
        calls.append(1)
        honest = real(f, ix)
        return honest if len(calls) == 1 else (honest[0], [])

    monkeypatch.setattr(module, producer, fickle)
    verdict = smt(_dead_model(), "certificate")[rule]
    assert len(calls) == 2 and verdict.status is Status.UNKNOWN, verdict


# -- GRAPH-C2 and GRAPH-C1 ------------------------------------------------------------------------


def test_wrong_input_reader_certificate_is_rejected() -> None:
    m = model(g(["x", "w"], ["y"], [op("Add", ("x", "w"), ("y",))]))
    facts = model_facts(m)
    f = facts[0]
    claims, unread = input_readers(f, index_of(f))
    assert not unread
    assert drive(graph_c2.check_certificate(facts, {0: claims}), ST).verdict.status is Status.PROVED
    claims = dict(claims)
    claims[1] = ("read", 0)  # w "read" by the read fact of x
    assert rejected(drive(graph_c2.check_certificate(facts, {0: claims}), ST).verdict)
    claims[1] = ("exempt", 0)  # not a Loop body: nothing is exempt
    assert rejected(drive(graph_c2.check_certificate(facts, {0: claims}), ST).verdict)


@pytest.mark.rule("GRAPH-C2")
def test_a_read_input_claimed_unread_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    m = model(g(["x", "spare"], ["y"], [op("Relu", ("x",), ("y",))]))
    assert smt(m, "certificate")["GRAPH-C2"].status is Status.VIOLATED
    real = graph_c2.input_readers

    def lying(f: ScopeFacts, ix: Any) -> Any:
        claims, unread = real(f, ix)
        return claims, [*unread, (0, f.tid["x"])]

    monkeypatch.setattr(graph_c2, "input_readers", lying)
    run = run_smt(m, mode="certificate")
    assert rejected(next(v for v in run.verdicts if v.rule_id == "GRAPH-C2"))
    assert [(o.name, o.answer) for o in run.obligations if o.rule_id == "GRAPH-C2"] == [("c2.unread", "unsat")]


@pytest.mark.rule("GRAPH-C1")
def test_a_conflict_group_that_is_no_conflict_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    ops = [op("Relu", ("x",), ("y",), "r"), op("Neg", ("x",), ("y",), "n"), op("Abs", ("x",), ("z",))]
    m = model(g(["x"], ["y", "z"], ops))
    assert smt(m, "certificate")["GRAPH-C1"].status is Status.VIOLATED
    real = c1.conflicts

    def lying(facts: Any) -> Any:
        f = facts[0]
        y, z = f.tid["y"], f.tid["z"]
        fake = ("assigned more than once", f, z, [f"(wr 0 0 {y})", f"(wr 2 0 {z})"])
        return [fake]

    monkeypatch.setattr(c1, "conflicts", lying)
    run = run_smt(m, mode="certificate")
    v = next(v for v in run.verdicts if v.rule_id == "GRAPH-C1")
    assert v.status is Status.UNKNOWN and "rejected the conflicting definitions" in (v.reason or ""), v
    # both obligations stay in the record: the distinctness that failed, and the refused counter-certificate
    kept = [(o.name, o.answer) for o in run.obligations if o.rule_id == "GRAPH-C1"]
    assert kept == [("c1.distinct", "unsat"), ("c1.conflicts", "sat")], kept
    monkeypatch.setattr(c1, "conflicts", real)
    assert smt(m, "certificate")["GRAPH-C1"].status is Status.VIOLATED


# -- large certificates are checked in parts ------------------------------------------------------


@pytest.mark.rule("GRAPH-C1")
def test_certificates_are_checked_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of two instances: every part is solved, and a wrong instance in any part is caught."""
    from sonnx.smt import common

    monkeypatch.setattr(common, "PART", 2)
    from sonnx.smt import SolverSettings as Settings
    from sonnx.smt import run_smt

    run = run_smt(chain(), Settings(), mode="certificate")
    assert all(v.status is Status.PROVED for v in run.verdicts), run.verdicts
    names = [o.name for o in run.obligations]
    assert "graph_acyclic.certificate.part1" in names and "c1.distinct.part1" in names
    # a tensor written twice: wherever its two definitions fall, the parts' ranges catch it
    for second in range(4):
        ops = [op("Relu", ("x",), ("a",), "r"), op("Neg", ("a",), ("b",)), op("Abs", ("b",), ("y",))]
        ops.insert(second, op("Sin", ("x",), ("a",), "again"))
        m = model(g(["x"], ["y"], ops))
        assert smt(m, "certificate")["GRAPH-C1"].status is Status.VIOLATED
    # a rank certificate whose only wrong instance is the last one
    facts = model_facts(chain())
    f = facts[0]
    rank, trank = ranks(f, index_of(f))  # type: ignore[misc]
    trank = [*trank]
    trank[f.tid["b"]] = rank[2]  # Abs reads b: T(b) < R(Abs) fails, nothing else does
    res = drive(graph_acyclic.check_certificate(facts, {0: (rank, trank)}), ST)
    assert rejected(res.verdict), res.verdict
    # every part is kept for the record, the refused one among them
    answers = [o.answer for o in res.obligations]
    assert len(answers) > 1 and answers.count("unsat") == 1, answers


# -- the producers' two steps: whole arrays and plain loops give the same certificates ----------------------------


def random_graph(seed: int) -> Model:
    """Random Add operations reading earlier tensors; rarely a later one (cycles), an undefined name, a second write."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 150))
    names = [f"t{i}" for i in range(n)]

    def pick(i: int) -> str:
        u = rng.random()
        if u < 0.02:
            return "ghost"
        if u < 0.04:
            return names[int(rng.integers(i, n))]
        return (["x", *names[:i]])[int(rng.integers(max(0, i - 8), i + 1))]

    ops = []
    for i in range(n):
        out = names[i] if rng.random() > 0.05 else names[int(rng.integers(0, n))]
        ops.append(op("Add", (pick(i), pick(i)), (out,), f"n{i}"))
    outs = sorted({names[int(k)] for k in rng.integers(0, n, size=int(rng.integers(1, 6)))} | {names[-1]})
    return model(g(["x"], outs, ops))


def certificates(m: Model) -> list[Any]:
    out: list[Any] = []
    for f in model_facts(m):
        ix = index_of(f)
        r = ranks(f, ix)
        d = derivation(f, ix)
        dist, rest = distances(f, ix)
        out.append(None if r is None else [x.tolist() for x in r])
        out.append([x.tolist() for x in (d.fire, d.time, d.how, d.fact)])
        out.append([x.tolist() for x in (dist.kind, dist.wfact, dist.other, dist.dist)] + [rest])
    return out


def test_array_steps_and_loop_steps_give_the_same_certificates(monkeypatch: pytest.MonkeyPatch) -> None:
    from sonnx.smt import certify

    for seed in range(80):
        m = random_graph(seed)
        monkeypatch.setattr(certify, "SMALL", 0)  # every level over whole arrays
        arrays = certificates(m)
        monkeypatch.setattr(certify, "SMALL", 10**9)  # every level in a plain loop
        loops = certificates(m)
        assert arrays == loops, seed


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
def test_counter_certificates_are_refuted_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of two checks: each part holds the units of its ids, and a failing check in any part is caught."""
    from sonnx.smt import common

    monkeypatch.setattr(common, "PART", 2)
    for wrong in ("a defined tensor claimed", "input claimed", "writer not blocked"):
        test_wrong_never_defined_set_is_rejected(wrong)
    run = run_smt(_dead_model(), SolverSettings(), mode="certificate")
    names = [o.name for o in run.obligations]
    assert "r1.dead.part1" in names and "r1t.idle.part1" in names and "c3.never_defined.part0" not in names
    verdicts = {v.rule_id: v.status for v in run.verdicts}
    assert verdicts["GRAPH-R1"] is verdicts["GRAPH-R1-TRANSITIVE"] is Status.VIOLATED
    real = graph_r1.uses

    def lying(f: ScopeFacts, ix: Any) -> Any:
        found, rest = real(f, ix)
        return found, sorted({*rest, 0})  # Relu writes the graph output: its write check fails in one part

    monkeypatch.setattr(graph_r1, "uses", lying)
    assert rejected(smt(_dead_model(), "certificate")["GRAPH-R1"])


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
@LISTS
def test_a_live_operation_of_a_branch_claimed_dead_is_rejected(
    module: Any, producer: str, rule: str, monkeypatch: Any
) -> None:
    # the claim names local operation 1 of the then-branch, whose global id is the branch's base plus 1
    then_g = g([], ["h"], [op("Relu", ("x",), ("a",)), op("Neg", ("a",), ("h",), "live")])
    else_g = g([], ["h2"], [op("Relu", ("x",), ("h2",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    m = model(g(["x", "c"], ["y", "z"], [op("Abs", ("x",), ("z",)), if_op, op("Sin", ("x",), ("s",), "dead")]))
    for mode in ("search", "certificate"):
        assert smt(m, mode)[rule].status is Status.VIOLATED
    real: Callable[..., Any] = getattr(module, producer)

    def lying(f: ScopeFacts, ix: Any) -> Any:
        found, rest = real(f, ix)
        return found, sorted({*rest, 1}) if f.path.endswith("then_branch") else rest

    monkeypatch.setattr(module, producer, lying)
    for mode in ("search", "certificate"):
        assert rejected(smt(m, mode)[rule])


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_conj_writes_full_lines_of_size_then_the_rest(size: int) -> None:
    """``conj``: ``size`` conjuncts per ``(assert (and ...))`` line, then the rest; a lone rest without ``and``."""
    from sonnx.smt.common import conj

    for n in range(10):
        items = [f"p{i}" for i in range(n)]
        full, rest = divmod(n, size)
        expected = [f"(assert (and {' '.join(items[k * size : (k + 1) * size])}))" for k in range(full)]
        if rest == 1:
            expected.append(f"(assert {items[-1]})")
        elif rest:
            expected.append(f"(assert (and {' '.join(items[full * size :])}))")
        assert conj(items, size) == expected, (size, n)
        assert conj(iter(items), size) == expected


@pytest.mark.rule("GRAPH-C1")
@pytest.mark.parametrize("size", [1, 2, 3, 512])
def test_increasing_chains_hold_every_consecutive_pair_once(size: int) -> None:
    """GRAPH-C1's sorted definition ids are distinct iff each is below the next: no pair may fall between chains."""
    from sonnx.smt.encodings.graph_c1 import increasing

    for n in range(8):
        values = np.arange(10, 10 + n)
        chains = [line[len("(assert (< ") : -2].split() for line in increasing(values, size)]
        pairs = [pair for c in chains for pair in pairwise(c)]
        assert pairs == list(pairwise(map(str, values))), (size, n, chains)  # each pair once, in order
        assert all(2 <= len(c) <= size + 1 for c in chains)


def test_kahn_ranks_start_at_one() -> None:
    """The rank certificate's ranks: 1 for an operation without dependencies, one more per step of the chain."""
    f = model_facts(chain())[0]
    found = ranks(f, index_of(f))
    assert found is not None
    assert found[0].tolist() == [1, 2, 3]
