"""The types onnx derives, read with the model from the same bytes (spec 9.4), only when a rule will ask for them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import onnx
import pytest
from onnx import TensorProto, helper

import sonnx.loader.load as load
from sonnx.base.verdict import Status
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.loader.derived import CHANGED, Given
from sonnx.loader.load import Derived, load_model_and_derived
from sonnx.model.graph import Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules.base import PROFILE_SONNX, PROFILE_STRICT
from sonnx.rules.derived import asks_for_derived
from tests.common.rulekit import model

F32 = TensorType("tensor", 1, (2, 3))


def vi(name: str, shape: list[Any] | None, elem: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def save(tmp_path: Path, nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto]) -> str:
    g = helper.make_graph(nodes, "main", inputs, [vi("y", None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path = str(tmp_path / "m.onnx")
    onnx.save(m, path)
    return path


def add_file(tmp_path: Path) -> str:
    return save(tmp_path, [helper.make_node("Add", ["a", "b"], ["y"], name="add")], [vi("a", [2, 3]), vi("b", [3])])


def if_file(tmp_path: Path) -> str:
    then_g = helper.make_graph([helper.make_node("Identity", ["a"], ["t"])], "t", [], [vi("t", None)])
    else_g = helper.make_graph([helper.make_node("Identity", ["a"], ["e"])], "e", [], [vi("e", None)])
    node = helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    return save(tmp_path, [node], [vi("a", [2, 3]), vi("c", [], TensorProto.BOOL)])


class Counts:
    """How often the loader reads a file and runs onnx's inference (spied on its seams)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads = 0
        self.inferences = 0
        read, infer = load._read_file, load._inference

        def counted_read(*args: Any) -> Any:
            self.reads += 1
            return read(*args)

        def counted_infer(*args: Any) -> Any:
            self.inferences += 1
            return infer(*args)

        monkeypatch.setattr(load, "_read_file", counted_read)
        monkeypatch.setattr(load, "_inference", counted_infer)


@pytest.mark.rule("STRICT-BROADCAST")
def test_a_strict_check_reads_the_file_once_and_infers_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = add_file(tmp_path)
    counts = Counts(monkeypatch)
    report = check_file(path, CheckOptions(profile=PROFILE_STRICT, engine="direct"))
    v = report.verdict("STRICT-BROADCAST")
    assert v is not None and v.status is Status.VIOLATED, v  # judged on the shapes derived from those bytes
    assert (counts.reads, counts.inferences) == (1, 1)


@pytest.mark.rule("GRAPH-IF-BRANCHES")
def test_a_check_no_rule_of_which_asks_runs_no_inference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = Counts(monkeypatch)
    report = check_file(add_file(tmp_path), CheckOptions(profile=PROFILE_SONNX, engine="direct"))
    assert report.error is None and (counts.reads, counts.inferences) == (1, 0)
    # an If makes GRAPH-IF-BRANCHES ask for the types its branches produce
    report = check_file(if_file(tmp_path), CheckOptions(profile=PROFILE_SONNX, engine="direct"))
    v = report.verdict("GRAPH-IF-BRANCHES")
    assert v is not None and v.status is Status.PROVED, v
    assert (counts.reads, counts.inferences) == (2, 1)


def test_which_checks_ask_for_derived_types() -> None:
    plain = model(make_graph("main", ["x"], ["y"], [op("Relu", ["x"], ["y"])], {"x": Tensor("x", F32)}))
    assert not asks_for_derived(plain, PROFILE_SONNX) and asks_for_derived(plain, PROFILE_STRICT)
    # an If nested in a Loop body, none in the main graph
    then_g = make_graph("t", [], ["a"], [op("Identity", ["x"], ["a"])])
    else_g = make_graph("e", [], ["b"], [op("Identity", ["x"], ["b"])])
    body = make_graph("body", ["i", "c"], ["c2", "y"], [
        op("Identity", ["c"], ["c2"]), op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)])
    looped = model(make_graph("main", ["x", "n", "c"], ["z"], [op("Loop", ["n", "c"], ["z"], body=body)]))
    assert asks_for_derived(looped, PROFILE_SONNX)
    # an If of another domain is no If of ONNX
    vendor = model(make_graph("main", ["x"], ["y"], [op("If", ["x"], ["y"], domain="com.vendor")]))
    assert not asks_for_derived(vendor, PROFILE_SONNX)


def test_a_failed_inference_is_no_failed_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = add_file(tmp_path)
    monkeypatch.setattr(load, "_infer", lambda data: (b"", "planted refusal"))  # runs in the sandbox's child
    m, derived = load_model_and_derived(path, derive=lambda _m: True)
    assert len(m.graph.operations) == 1
    # the reason names no path: an evidence bundle replays it unchanged wherever the file lies
    assert derived == Derived(None, "no inferred types: onnx's shape inference cannot read the model: planted refusal")
    _, none = load_model_and_derived(path, derive=lambda _m: False)
    assert none is None


def test_the_derived_types_answer_only_for_their_model(tmp_path: Path) -> None:
    path = add_file(tmp_path)
    m, derived = load_model_and_derived(path, derive=lambda _m: True)
    assert derived is not None and derived.model is not None
    got = Given(m, derived)
    assert got(m, True) is derived
    other, _ = load_model_and_derived(path, derive=lambda _m: False)
    assert got(other, True) == Derived(None, CHANGED)
    missed = Given(m, None)(m, True)
    assert missed.model is None and "not read with the model" in missed.why
