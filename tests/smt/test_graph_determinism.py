"""GRAPH-DETERMINISM as SMT: two runs on equal inputs, on GRAPH-R2's classes; witnesses, parts and proposals."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Operation, make_operation
from sonnx.smt.facts import model_facts
from tests.common.smtkit import MODES, direct, g, model, op, smt


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
def test_r2_and_graph_determinism_are_separate_findings() -> None:
    # a random operation feeding only a dead node: R2 fails, the graph is still deterministic
    ops = [
        op("Relu", ("x",), ("y",)),
        op("RandomUniformLike", ("x",), ("r",), "rnd"),
        op("Neg", ("r",), ("d",), "dead"),
    ]
    s = smt(model(g(["x"], ["y"], ops)))
    assert s["GRAPH-R2"].status is Status.VIOLATED
    assert s["GRAPH-DETERMINISM"].status is Status.PROVED
    # the same random value reaching an output: both fail; the witness names the op and its path
    ops2 = [
        op("RandomUniformLike", ("x",), ("r",), "rnd"),
        op("Neg", ("r",), ("n",), "neg"),
        op("Add", ("n", "x"), ("y",), "add"),
    ]
    s2 = smt(model(g(["x"], ["y"], ops2)))
    assert s2["GRAPH-R2"].status is Status.VIOLATED
    v = s2["GRAPH-DETERMINISM"]
    assert v.status is Status.VIOLATED and v.witness is not None
    d = v.witness.data
    assert d["source"]["operation"] == "RandomUniformLike:rnd" and d["output"] == "y"
    assert [s["operation"] for s in d["path"]] == ["RandomUniformLike:rnd", "Neg:neg", "Add:add"]


@pytest.mark.rule("GRAPH-DETERMINISM")
@pytest.mark.parametrize("mode", MODES)
def test_the_determinism_path_follows_the_tensors_the_source_writes(mode: str) -> None:
    """Each step of the witness's path names a tensor its operation writes and the next one reads: here the
    Add reads ``u`` (from a deterministic Neg listed first) and ``r`` (from the random source); the path is
    rnd --r--> add --y-->, never through ``u``. Both engines give it."""
    ops = [
        op("Neg", ("x",), ("u",), "neg"),
        op("RandomUniformLike", ("x",), ("r",), "rnd"),
        op("Add", ("u", "r"), ("y",), "add"),
    ]
    m = model(g(["x"], ["y"], ops))
    for v in (smt(m, mode)["GRAPH-DETERMINISM"], direct(m)["GRAPH-DETERMINISM"]):
        assert v.status is Status.VIOLATED and v.witness is not None
        path = v.witness.data["path"]
        assert [(s["operation"], s["tensor"]) for s in path] == [("RandomUniformLike:rnd", "r"), ("Add:add", "y")]


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_nondeterministic_branch_makes_the_if_a_source() -> None:
    then_g = g([], ["h"], [op("RandomNormalLike", ("x",), ("h",), "rn")])
    else_g = g([], ["k"], [op("Identity", ("x",), ("k",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    v = smt(model(g(["x", "c"], ["y"], [if_op])))["GRAPH-DETERMINISM"]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["source"]["operation"] == "If:if"
    assert v.witness.data["nested"][0]["source"]["operation"] == "RandomNormalLike:rn"


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_two_run_obligation_in_parts_of_whole_components(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of whole weakly connected components give the verdict and witness of one obligation."""
    from sonnx.smt import common, run_smt
    from sonnx.smt.encodings.graph_determinism import parts_of

    def chain(prefix: str, first: str, n: int = 3) -> list[Operation]:
        ops = [Operation(first, "", f"{prefix}0", ("x",), (f"{prefix}0",))]
        ops += [Operation("Relu", "", f"{prefix}{i}", (f"{prefix}{i - 1}",), (f"{prefix}{i}",)) for i in range(1, n)]
        return ops

    ops = chain("a", "Relu") + chain("b", "RandomUniformLike") + chain("c", "Relu") + chain("d", "RandomUniformLike")
    ops.append(Operation("Relu", "", "dead_end", ("d2",), ("unused",)))
    m = model(g(["x"], ["a2", "c2", "x", "unused", "b2"], ops))  # the witness: the first output that can differ
    whole = smt(m)["GRAPH-DETERMINISM"]
    assert whole.status is Status.VIOLATED and whole.witness is not None
    monkeypatch.setattr(common, "PART", 3)
    assert [len(p) for p in parts_of(model_facts(m)[0])] == [3, 3, 3, 4]
    run = run_smt(m, mode="search")
    split = next(v for v in run.verdicts if v.rule_id == "GRAPH-DETERMINISM")
    assert split.to_json() == whole.to_json()
    names = [o.name for o in run.obligations if o.rule_id == "GRAPH-DETERMINISM"]
    assert names == [f"determinism.scope0.part{k}" for k in range(4)], names
    answers = [o.answer for o in run.obligations if o.rule_id == "GRAPH-DETERMINISM"]
    assert answers == ["unsat", "sat", "unsat", "sat"], answers


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_each_part_of_the_two_run_obligation_declares_what_its_operations_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A graph of several weakly connected components is solved one part at a time (``parts_of``).

    Each part's two-run obligation declares the graph inputs its own
    operations read. Here the second part's only reader of ``w`` is listed
    last (no earlier operation's read facts mention ``w``), and the part must
    still be decided, VIOLATED naming its output, not refused by z3.
    """
    from sonnx.smt import common, run_smt

    ops = [
        op("Relu", ("x",), ("y",), "relu"),
        op("RandomUniformLike", ("u",), ("r",), "rnd"),
        op("Abs", ("r",), ("s",), "abs"),
        op("Neg", ("w",), ("u",), "neg"),
    ]
    m = model(g(["x", "w"], ["y", "s"], ops))
    monkeypatch.setattr(common, "PART", 1)
    run = run_smt(m, mode="search")
    parts = [o for o in run.obligations if o.rule_id == "GRAPH-DETERMINISM"]
    assert [o.name for o in parts] == ["determinism.scope0.part0", "determinism.scope0.part1"]
    assert [o.meaning.rsplit(" of part ", 1)[1] for o in parts] == [
        "1 of 2 (whole weakly connected components)",
        "2 of 2 (whole weakly connected components)",
    ]
    v = next(v for v in run.verdicts if v.rule_id == "GRAPH-DETERMINISM")
    assert v.status is Status.VIOLATED and v.witness is not None, v
    assert v.witness.data["output"] == "s"
    assert [s["operation"] for s in v.witness.data["path"]] == ["RandomUniformLike:rnd", "Abs:abs"]


@pytest.mark.rule("GRAPH-DETERMINISM")
@pytest.mark.parametrize("mode", MODES)
def test_a_random_value_captured_by_a_branch_makes_the_if_run_dependent(mode: str) -> None:
    """The If reads the random tensor only through its branch (a capture, no read fact of its own).

    Its output is then run-dependent although none of its own reads is: the
    two-run obligation gives it a value per run from the same arguments, and
    the output can differ.
    """
    then_g = g([], ["h"], [op("Neg", ("r",), ("h",), "neg")])
    else_g = g([], ["h2"], [op("Identity", ("x",), ("h2",), "id")])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    m = model(g(["x", "c"], ["y"], [op("RandomUniformLike", ("x",), ("r",), "rnd"), if_op]))
    v = smt(m, mode)["GRAPH-DETERMINISM"]
    assert v.status is Status.VIOLATED and v.witness is not None, v
    assert v.witness.data["output"] == "y"
    assert direct(m)["GRAPH-DETERMINISM"].status is Status.VIOLATED


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_an_over_approximating_run_dependence_proposal_changes_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which tensors get a value per run is proposed outside the solver (``run_dependent``); too many costs nothing.

    A deterministic write whose reads are all run-independent gets the same
    definition in both runs: a graph whose random value reaches no output
    stays PROVED, and the witness of a violation is an output the solver
    confirms can differ on its own (``s``), not the first one proposed (``y``).
    """
    from sonnx.smt.encodings import graph_determinism

    quiet = model(g(["x"], ["y"], [op("RandomUniformLike", ("x",), ("r",), "rnd"), op("Relu", ("x",), ("y",), "relu")]))
    ops = [
        op("Relu", ("x",), ("y",), "relu"),
        op("RandomUniformLike", ("x",), ("r",), "rnd"),
        op("Abs", ("r",), ("s",), "abs"),
    ]
    loud = model(g(["x"], ["y", "s"], ops))
    honest = smt(quiet)["GRAPH-DETERMINISM"], smt(loud)["GRAPH-DETERMINISM"]
    monkeypatch.setattr(graph_determinism, "run_dependent", lambda f, sources: set(f.wr_t))
    for m, before in zip((quiet, loud), honest, strict=True):
        v = smt(m)["GRAPH-DETERMINISM"]
        assert v.to_json() == before.to_json(), (before, v)
    assert honest[0].status is Status.PROVED and honest[1].witness is not None
    assert honest[1].witness.data["output"] == "s"


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_an_under_approximating_run_dependence_proposal_is_refused_by_z3(monkeypatch: pytest.MonkeyPatch) -> None:
    """Too few run-dependent tensors: a run-independent definition names a per-run value, z3 refuses the script.

    That is UNKNOWN, never a pass.
    """
    from sonnx.smt.encodings import graph_determinism

    m = model(g(["x"], ["y"], [op("RandomUniformLike", ("x",), ("r",), "rnd"), op("Relu", ("r",), ("y",), "relu")]))
    monkeypatch.setattr(graph_determinism, "run_dependent", lambda f, sources: set())
    assert smt(m)["GRAPH-DETERMINISM"].status is Status.UNKNOWN
