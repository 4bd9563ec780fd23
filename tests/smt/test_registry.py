"""The table of the SMT encodings (:mod:`sonnx.smt.registry`) and the engine's loop over it.

The table must list every module of ``smt/encodings/`` once, under the ID of
the direct rule of the same name, with needs that the engine can meet; the
engine must start each encoding with exactly the results it needs, and turn a
need it cannot meet into UNKNOWN, never a pass. :func:`problems` states what
a well-formed table is; it is run on the real table and on planted bad ones.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace
from graphlib import CycleError, TopologicalSorter
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

import sonnx.smt
from sonnx.base.verdict import Status
from sonnx.model.graph import Operation
from sonnx.rules import RULES
from sonnx.smt import registry, run_smt
from sonnx.smt.common import Encoding, Proof, ProofContext
from sonnx.smt.engine import RULE_IDS, start_order
from tests.common.smtkit import g, model

ENCODINGS_DIR = Path(registry.__file__).parent / "encodings"
MODULES = sorted(p.stem for p in ENCODINGS_DIR.glob("*.py") if p.stem != "__init__")


def problems(table: tuple[Encoding, ...], start: tuple[str, ...]) -> list[str]:
    """Everything wrong with ``table`` (and the start order ``start``), in words; empty for a well-formed table."""
    out: list[str] = []
    ids = [e.rule_id for e in table]
    out += [f"{rid} appears {ids.count(rid)} times" for rid in sorted(set(ids)) if ids.count(rid) > 1]
    rule_ids = {r.id for r in RULES}
    out += [f"{rid} is no rule of sonnx.rules.RULES" for rid in ids if rid not in rule_ids]
    for e in table:
        out += [f"{e.rule_id} needs {n}, which is not in the table" for n in e.needs if n not in ids]
    try:
        TopologicalSorter({e.rule_id: e.needs for e in table}).prepare()
    except CycleError as exc:
        out.append(f"the needs form a cycle: {exc.args[1]}")
    if sorted(start) != sorted(ids):
        out.append(f"the start order {start} is not an order of the table's encodings {ids}")
    return out


def test_the_table_is_well_formed() -> None:
    assert problems(registry.ENCODINGS, registry.START_ORDER) == []


def _planted(name: str) -> tuple[tuple[Encoding, ...], tuple[str, ...]]:
    table, start = registry.ENCODINGS, registry.START_ORDER
    first = table[0]
    if name == "duplicate":
        return (*table, first), (*start, first.rule_id)
    if name == "not-a-rule":
        return (*table, replace(first, rule_id="GRAPH-NOWHERE")), (*start, "GRAPH-NOWHERE")
    if name == "unknown-need":
        return (replace(first, needs=("GRAPH-NOWHERE",)), *table[1:]), start
    if name == "cycle":
        second = table[1]
        return (replace(first, needs=(second.rule_id,)), replace(second, needs=(first.rule_id,)), *table[2:]), start
    assert name == "start-order"
    return table, start[:-1]


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("duplicate", "appears 2 times"),
        ("not-a-rule", "GRAPH-NOWHERE is no rule"),
        ("unknown-need", "needs GRAPH-NOWHERE, which is not in the table"),
        ("cycle", "the needs form a cycle"),
        ("start-order", "is not an order of the table's encodings"),
    ],
)
def test_a_planted_bad_table_is_seen(name: str, words: str) -> None:
    found = problems(*_planted(name))
    assert any(words in p for p in found), found


def _encoding_assignments(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    targets: list[ast.expr] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets += node.targets
        elif isinstance(node, ast.AnnAssign):
            targets.append(node.target)
    return sum(1 for t in targets if isinstance(t, ast.Name) and t.id == "ENCODING")


@pytest.mark.parametrize("name", MODULES)
def test_every_encoding_module_has_one_record_in_the_table_under_its_direct_rules_id(name: str) -> None:
    """One ``ENCODING`` per module, in the table once, under the ``ID`` of the direct rule of the same name."""
    assert _encoding_assignments(ENCODINGS_DIR / f"{name}.py") == 1
    module = import_module(f"sonnx.smt.encodings.{name}")
    record = module.ENCODING
    assert isinstance(record, Encoding)
    assert [e for e in registry.ENCODINGS if e is record] == [record]
    assert record.rule_id == module.ID == import_module(f"sonnx.rules.{name}").ID
    assert not [a for a in vars(module) if a.startswith("ID_")], "one ID constant per encoding, named ID"


def test_the_table_holds_the_encoding_modules_and_nothing_else() -> None:
    assert len(registry.ENCODINGS) == len(MODULES) == 12
    assert sorted(e.prove.__module__.rsplit(".", 1)[-1] for e in registry.ENCODINGS) == MODULES


def test_the_rule_ids_are_the_tables_order() -> None:
    assert RULE_IDS == registry.RULE_IDS == sonnx.smt.RULE_IDS == tuple(e.rule_id for e in registry.ENCODINGS)
    m = model(g(["x"], ["y"], [Operation("Relu", "", "r", ("x",), ("y",))]))
    run = run_smt(m)
    assert tuple(v.rule_id for v in run.verdicts) == RULE_IDS
    assert list(run.timings) == ["facts", *registry.START_ORDER]


def test_graph_determinism_needs_the_structure_and_graph_r2s_classes() -> None:
    (det,) = (e for e in registry.ENCODINGS if e.rule_id == "GRAPH-DETERMINISM")
    assert set(det.needs) == {"GRAPH-ACYCLIC", "GRAPH-C1", "GRAPH-C1-SOURCES", "GRAPH-C1-SHADOWING", "GRAPH-R2"}
    assert [e.rule_id for e in start_order(registry.ENCODINGS)] == list(registry.START_ORDER)


def _plant(monkeypatch: pytest.MonkeyPatch, table: tuple[Encoding, ...]) -> None:
    monkeypatch.setattr(registry, "ENCODINGS", table)


def _recording(seen: dict[str, Any], encoding: Encoding) -> Encoding:
    def prove(ctx: ProofContext) -> Proof:
        seen[encoding.rule_id] = {rid: (r.verdict.status, r.classes) for rid, r in ctx.needed.items()}
        return (yield from encoding.prove(ctx))

    return replace(encoding, prove=prove)


def test_a_proof_is_given_exactly_the_results_it_needs() -> None:
    """Each proof sees the finished results of its needs and nothing else; GRAPH-R2's classes come in its result."""
    seen: dict[str, Any] = {}
    table = tuple(_recording(seen, e) for e in registry.ENCODINGS)
    ops = [Operation("RandomUniformLike", "", "rnd", ("x",), ("r",)), Operation("Neg", "", "n", ("r",), ("y",))]
    with pytest.MonkeyPatch.context() as mp:
        _plant(mp, table)
        run = run_smt(model(g(["x"], ["y"], ops)))
    assert {rid: set(needed) for rid, needed in seen.items()} == {e.rule_id: set(e.needs) for e in registry.ENCODINGS}
    needed = seen["GRAPH-DETERMINISM"]
    assert needed["GRAPH-ACYCLIC"][0] is needed["GRAPH-C1"][0] is Status.PROVED
    assert needed["GRAPH-C1-SOURCES"][0] is needed["GRAPH-C1-SHADOWING"][0] is Status.PROVED
    status, classes = needed["GRAPH-R2"]
    assert status is Status.VIOLATED and classes == {(0, 0): (2, classes[(0, 0)][1])}, classes
    v = {x.rule_id: x for x in run.verdicts}["GRAPH-DETERMINISM"]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["source"]["operation"] == "RandomUniformLike:rnd"


def _never(rule_id: str) -> Iterator[Any]:
    raise AssertionError(f"the proof of {rule_id} was started although its needs are not met")
    yield


@pytest.mark.parametrize("mode", ["search", "certificate"])
def test_an_encoding_whose_needs_cannot_be_met_is_unknown_and_never_started(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A need outside the table, or a cycle of needs, is a defect of sonnx: UNKNOWN for those rules alone."""
    table = list(registry.ENCODINGS)
    for k, e in enumerate(table):
        if e.rule_id == "GRAPH-C2":
            table[k] = replace(e, needs=("GRAPH-NOWHERE",), prove=lambda ctx: _never("GRAPH-C2"))
        elif e.rule_id == "GRAPH-R1":
            table[k] = replace(e, needs=("GRAPH-R1-TRANSITIVE",), prove=lambda ctx: _never("GRAPH-R1"))
        elif e.rule_id == "GRAPH-R1-TRANSITIVE":
            table[k] = replace(e, needs=("GRAPH-R1",), prove=lambda ctx: _never("GRAPH-R1-TRANSITIVE"))
    _plant(monkeypatch, tuple(table))
    run = run_smt(model(g(["x"], ["y"], [Operation("Relu", "", "r", ("x",), ("y",))])), mode=mode)
    v = {x.rule_id: x for x in run.verdicts}
    assert list(v) == list(RULE_IDS)
    expected = {
        "GRAPH-C2": "GRAPH-NOWHERE",
        "GRAPH-R1": "GRAPH-R1-TRANSITIVE",
        "GRAPH-R1-TRANSITIVE": "GRAPH-R1",
    }
    for rid, missing in expected.items():
        assert v[rid].status is Status.UNKNOWN, v[rid]
        assert v[rid].reason == f"the encoding needs results no encoding gives ({missing}): a tool defect [smt/{mode}]"
    assert all(x.status is Status.PROVED for rid, x in v.items() if rid not in expected), v
