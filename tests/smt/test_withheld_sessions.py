"""A witness enumeration whose session leaves one check unanswered makes its rule UNKNOWN, never wrong.

The rules that list every offender (GRAPH-C1, GRAPH-C1-SOURCES,
GRAPH-C1-SHADOWING, GRAPH-C2, GRAPH-C3, GRAPH-ARITY, GRAPH-FUNCTION-SHADOWING) ask an in-process
:class:`sonnx.smt.solver.Session` once per candidate after the main
obligation has shown a violation. Those checks do not go through the pool,
so ``test_withheld_answers`` cannot reach them. Here the session's ``k``-th
check answers ``unknown``, for every ``k`` the honest run makes: the rule
that owns the session must then answer UNKNOWN, under its own ID, with the
withheld reason and the mode it ran in, and every other rule keeps its
honest verdict.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from sonnx.base.verdict import Status, Verdict
from sonnx.loader import load_model
from sonnx.model.graph import Model, Operation
from sonnx.smt import run_smt
from sonnx.smt.engine import RULE_IDS
from sonnx.smt.solver import Answer, Session
from tests.common.rulekit import function, with_functions
from tests.common.smtkit import EXAMPLES, g, model


def _shadowing() -> Model:
    """Two model-local functions named like standard operators (no shipped example has one)."""
    return with_functions(*(function("", n) for n in ("Relu", "Local", "Tanh")))


def _sources() -> Model:
    """An operation writing its own graph's input (no shipped example has one)."""
    return model(
        g(["x"], ["y"], [Operation("Relu", "", "r", ("x",), ("x",)), Operation("Neg", "", "n", ("x",), ("y",))])
    )


MODELS = {p.stem: p for p in EXAMPLES}
BUILT = {"shadowing": _shadowing, "sources": _sources}


def _load(name: str) -> Model:
    return BUILT[name]() if name in BUILT else load_model(MODELS[name])


class Sessions:
    """Counts the checks of every session and the rule that opened each; may answer one check itself."""

    def __init__(self, answer_at: int = 0, answer: str = "unknown") -> None:
        self.answer_at = answer_at
        self.answer = answer
        self.owners: list[str] = []
        self.withheld_from = ""

    @staticmethod
    def _opener(session: Session) -> str:
        return str(getattr(session, "_owner", ""))

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        init, check = Session.__init__, Session.check
        counter = self

        def opened(session: Session, *args: Any, **kw: Any) -> None:
            init(session, *args, **kw)
            caller = sys._getframe(1)  # an encoding's module, or the shared helper given the rule's ID
            owner = caller.f_globals.get("ID") or caller.f_locals.get("rule_id", "")
            session._owner = owner  # type: ignore[attr-defined]

        def checked(session: Session, assumptions: Sequence[str]) -> Answer:
            counter.owners.append(counter._opener(session))
            if len(counter.owners) == counter.answer_at:
                counter.withheld_from = counter.owners[-1]
                return Answer(counter.answer, "withheld by the test")
            return check(session, assumptions)

        monkeypatch.setattr(Session, "__init__", opened)
        monkeypatch.setattr(Session, "check", checked)


def _run(m: Model, mode: str, records: list[tuple[str, str]] | None = None) -> dict[str, Verdict]:
    """The verdicts by rule; ``records`` receives each obligation's (rule, name)."""
    run = run_smt(m, mode=mode)
    vs = {v.rule_id: v for v in run.verdicts}
    assert sorted(vs) == sorted(RULE_IDS)
    if records is not None:
        records.extend((ob.rule_id, ob.name) for ob in run.obligations)
    return vs


def _first_answer_again(honest: Callable[[Answer, list[str]], dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """A reader of z3's model that gives the first model's values on every later answer too (a repeated find)."""
    seen: list[dict[str, Any]] = []

    def lying(answer: Answer, names: list[str]) -> dict[str, Any]:
        if not seen:
            seen.append(honest(answer, names))
        return seen[0]

    return lying


def _cases() -> Iterator[Any]:
    for name in [*MODELS, *BUILT]:
        for mode in ("search", "certificate"):
            yield pytest.param(name, mode, id=f"{name}-{mode}")


@pytest.mark.parametrize(("name", "mode"), list(_cases()))
def test_an_unanswered_session_check_makes_only_its_rule_unknown(
    name: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = _load(name)
    honest_records: list[tuple[str, str]] = []
    with monkeypatch.context() as mp:
        count = Sessions()
        count.install(mp)
        honest = _run(m, mode, honest_records)
    for k in range(1, len(count.owners) + 1):
        records: list[tuple[str, str]] = []
        with monkeypatch.context() as mp:
            cut = Sessions(answer_at=k)
            cut.install(mp)
            got = _run(m, mode, records)
        owner = cut.withheld_from
        # the owner's obligations (the one the session re-checks included) stay in the record
        assert [r for r in records if r[0] == owner] == [r for r in honest_records if r[0] == owner], k
        assert owner in RULE_IDS, (k, owner)
        for rid, v in got.items():
            assert v.rule_id == rid, (k, v)
            if rid != owner:
                assert v.status is honest[rid].status, (k, rid, v)
        v = got[owner]
        assert v.status is Status.UNKNOWN, (k, v)
        assert v.reason == f"withheld by the test [smt/{mode}]", (k, v.reason)


@pytest.mark.rule(
    "GRAPH-C1",
    "GRAPH-C1-SOURCES",
    "GRAPH-C1-SHADOWING",
    "GRAPH-C2",
    "GRAPH-C3",
    "GRAPH-FUNCTION-SHADOWING",
    "GRAPH-ARITY",
)
def test_the_examples_reach_every_enumerating_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above is only as wide as the sessions the examples open: every enumerating rule opens one."""
    owners: set[str] = set()
    for name in [*MODELS, *BUILT]:
        for mode in ("search", "certificate"):
            with monkeypatch.context() as mp:
                count = Sessions()
                count.install(mp)
                _run(_load(name), mode)
            owners.update(count.owners)
    assert owners == {
        "GRAPH-C1",
        "GRAPH-C1-SOURCES",
        "GRAPH-C1-SHADOWING",
        "GRAPH-C2",
        "GRAPH-C3",
        "GRAPH-ARITY",
        "GRAPH-FUNCTION-SHADOWING",
    }


@pytest.mark.rule("GRAPH-C1", "GRAPH-C1-SOURCES", "GRAPH-C1-SHADOWING")
@pytest.mark.parametrize(
    ("rule", "name"),
    [("GRAPH-C1", "c1_two_producers"), ("GRAPH-C1-SOURCES", "sources"), ("GRAPH-C1-SHADOWING", "c1_shadowing")],
)
def test_a_conflict_group_the_session_never_refutes_is_a_tool_defect(
    rule: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A C1 rule lists a group only when the session refutes it alone; if none is, UNKNOWN says it is a defect."""
    m = _load(name)
    for mode in ("search", "certificate"):
        with monkeypatch.context() as mp:
            mp.setattr(Session, "check", lambda self, assumptions: Answer("sat"))
            v = _run(m, mode)[rule]
        assert v.status is Status.UNKNOWN
        assert v.reason == f"no conflict group was refuted on its own (a tool defect) [smt/{mode}]"


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
@pytest.mark.parametrize("w", [-1, 3, 0])
def test_a_model_naming_no_new_function_is_a_tool_defect(w: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """GRAPH-FUNCTION-SHADOWING reads the function from z3's model; one out of range, or found already, is refused.

    The shadowing model has functions 0 to 2; ``w`` = 3 is one past the last, and 0 (Relu, the first found)
    is repeated on the second answer.
    """
    import sonnx.smt.encodings.graph_function_shadowing as shadowing

    answers = iter([{"w": 0, "V": 14}, {"w": w, "V": 6}])
    monkeypatch.setattr(shadowing, "model_values", lambda answer, names: next(answers))
    v = _run(_shadowing(), "search")["GRAPH-FUNCTION-SHADOWING"]
    assert v.status is Status.UNKNOWN
    assert v.reason == "the model of the violation names no new function (a tool defect) [smt/search]"


@pytest.mark.rule("GRAPH-C2")
@pytest.mark.parametrize("w", [None, -1, 0])
def test_a_model_naming_no_new_graph_input_is_a_tool_defect(w: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """GRAPH-C2 reads the unused input from z3's model: none, one that is no graph input (-1), or one found
    already (0, on the second answer) is refused under GRAPH-C2's own ID, and its search obligation is kept."""
    import sonnx.smt.encodings.graph_c2 as c2

    m = _load("c2_unused_input")
    lying = _first_answer_again(c2.model_values) if w == 0 else (lambda answer, names: {} if w is None else {"w": w})
    monkeypatch.setattr(c2, "model_values", lying)
    monkeypatch.setattr(Session, "check", lambda self, assumptions: Answer("sat"))
    records: list[tuple[str, str]] = []
    v = _run(m, "search", records)["GRAPH-C2"]
    assert v.status is Status.UNKNOWN
    assert v.reason == "the model of the violation names no new graph input (a tool defect) [smt/search]"
    assert ("GRAPH-C2", "c2.unread_input") in records, records


@pytest.mark.rule("GRAPH-C3")
def test_a_model_showing_no_new_undefined_output_is_a_tool_defect(monkeypatch: pytest.MonkeyPatch) -> None:
    """GRAPH-C3 reads each undefined output from z3's model; a model that shows none is refused, not listed."""
    import sonnx.smt.encodings.graph_c3 as c3

    monkeypatch.setattr(c3, "_d_values", lambda answer, tensors: dict.fromkeys(tensors, True))
    v = _run(_load("c3_incomplete"), "search")["GRAPH-C3"]
    assert v.status is Status.UNKNOWN
    assert v.reason == "the model shows no new undefined output (a tool defect) [smt/search]"


@pytest.mark.rule("GRAPH-ARITY")
@pytest.mark.parametrize("lie", ["no such position", "found already"])
def test_a_model_naming_no_new_position_is_a_tool_defect(lie: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """GRAPH-ARITY reads the left-out position (instance, side, position) from z3's model; one that names no
    candidate, or the one found already (on the second answer), is refused, and its obligation kept."""
    import sonnx.smt.encodings.graph_arity as arity

    ops = [
        Operation("MaxPool", "", "pool", ("x",), ("p",)),
        Operation("Clip", "", "clip", ("x", "", "hi"), ("c",)),
    ]
    m = model(g(["x", "hi"], ["p", "c"], ops))
    honest = arity.model_values
    if lie == "no such position":
        monkeypatch.setattr(arity, "model_values", lambda answer, names: {"w": 10**6, "s": 0, "p": 0})
    else:
        monkeypatch.setattr(arity, "model_values", _first_answer_again(honest))
    records: list[tuple[str, str]] = []
    v = _run(m, "search", records)["GRAPH-ARITY"]
    assert v.status is Status.UNKNOWN
    assert v.reason == "the model of the violation names no new position (a tool defect) [smt/search]"
    assert [r for r in records if r[0] == "GRAPH-ARITY"] == [("GRAPH-ARITY", "arity.left_out")], records
    monkeypatch.setattr(arity, "model_values", honest)
    assert _run(m, "search")["GRAPH-ARITY"].status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R1")
def test_a_search_model_naming_a_live_operation_is_a_tool_defect(monkeypatch: pytest.MonkeyPatch) -> None:
    """GRAPH-R1's search model names one dead operation, which must be in the list the rule then verifies:
    one that is not (here no operation at all) is refused under GRAPH-R1's ID."""
    import sonnx.smt.encodings.graph_r1 as r1

    m = _load("r1_dead_chain")
    monkeypatch.setattr(r1, "model_values", lambda answer, names: {"w": 10**6})
    v = _run(m, "search")["GRAPH-R1"]
    assert v.status is Status.UNKNOWN
    assert v.reason == "the search model's dead operation is not in the list (a tool defect) [smt/search]"
