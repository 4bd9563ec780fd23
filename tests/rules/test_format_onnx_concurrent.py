"""FORMAT-ONNX started before the model is read and joined after the other rules: the same verdicts as at once.

``check_file`` starts onnx's checker in a child before the loader reads the
file; the rule joins it last. These tests compare that path with the rule
run alone (a child started and waited for at once) on valid, refused,
annotated and crashing models, and make the child fail or run out of time
while the parent is busy with the other rules.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.verdict import Status, Verdict
from sonnx.checking import pipeline
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.checking.report import ModelReport
from sonnx.loader import load_model, sandbox
from sonnx.rules import format_onnx, registry
from sonnx.rules.base import CheckConfig, CheckContext, Rule
from tests.common.children import has_ended, wait_until_ended
from tests.common.native import self_calling_default

pytestmark = pytest.mark.rule("FORMAT-ONNX")

ID = "FORMAT-ONNX"
vi = helper.make_tensor_value_info


def _model(nodes: list[onnx.NodeProto], ir: int = 8, inputs: list[onnx.ValueInfoProto] | None = None,
           opset: int = 17) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs or [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def valid() -> onnx.ModelProto:
    return _model([helper.make_node("Abs", ["x"], ["a"], name="a"), helper.make_node("Relu", ["a"], ["y"], name="r")])


def unsorted() -> onnx.ModelProto:
    return _model([helper.make_node("Relu", ["a"], ["y"], name="r"), helper.make_node("Abs", ["x"], ["a"], name="a")])


def mistyped() -> onnx.ModelProto:
    inputs = [vi("x", TensorProto.FLOAT, [2]), vi("n", TensorProto.INT64, [2])]
    return _model([helper.make_node("Add", ["x", "n"], ["y"], name="add")], inputs=inputs)


def annotated() -> onnx.ModelProto:
    m = _model([helper.make_node("Neg", ["x"], ["y"], name="n")], ir=9, opset=13)
    m.graph.node[0].metadata_props.add(key="k", value="v")  # IR 10 defines it: VIOLATED at IR 9
    return m


def nested(tagged: bool) -> onnx.ModelProto:
    inner = helper.make_node("Neg", ["x"], ["z"])
    if tagged:
        inner.metadata_props.add(key="k", value="v")
    branch = helper.make_graph([inner], "branch", [], [vi("z", TensorProto.FLOAT, [2])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)
    return _model([node], ir=9, opset=13, inputs=[vi("c", TensorProto.BOOL, []), vi("x", TensorProto.FLOAT, [2])])


MODELS: dict[str, tuple[Callable[[], onnx.ModelProto], Status]] = {
    "valid": (valid, Status.PROVED),
    "unsorted": (unsorted, Status.VIOLATED),
    "mistyped": (mistyped, Status.VIOLATED),
    "annotated": (annotated, Status.VIOLATED),
    "nested-clean": (lambda: nested(False), Status.PROVED),
    "nested-annotated": (lambda: nested(True), Status.VIOLATED),
    "crashing": (self_calling_default, Status.UNKNOWN),
}


def at_once(path: Path) -> Verdict:
    """The rule alone on the loaded model: its child started and waited for at once."""
    return format_onnx.check(CheckContext(load_model(str(path)), CheckConfig()))


def checked(path: Path) -> ModelReport:
    report = check_file(str(path), CheckOptions(engine="direct"))
    assert report.error is None, report.error
    return report


def format_verdict(report: ModelReport) -> Verdict:
    (v,) = [v for v in report.verdicts if v.rule_id == ID]
    return v


def in_table_order(report: ModelReport) -> bool:
    return [v.rule_id for v in report.verdicts] == [r.id for r in registry.rules_for("sonnx")]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_check_started_before_the_load_gives_the_verdict_of_the_rule_run_at_once(name: str, tmp_path: Path) -> None:
    build, status = MODELS[name]
    path = tmp_path / f"{name}.onnx"
    onnx.save(build(), str(path))
    report = checked(path)
    got = format_verdict(report)
    assert got == at_once(path)
    assert got.status is status, (got.reason, got.witness)
    assert in_table_order(report)


def test_the_child_is_started_before_the_model_is_read_and_is_the_one_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(valid(), str(path))
    events: list[str] = []
    children: list[sandbox.Started[Any]] = []
    real_begin = format_onnx.begin

    def begin(fn: Callable[..., Any], *args: Any, **kw: Any) -> sandbox.Started[Any]:
        events.append("child")
        children.append(real_begin(fn, *args, **kw))
        return children[-1]

    loader = pipeline.load_model_and_derived

    def load(*args: Any, **kw: Any) -> Any:
        events.append("load")
        return loader(*args, **kw)

    monkeypatch.setattr(format_onnx, "begin", begin)
    monkeypatch.setattr(pipeline, "load_model_and_derived", load)
    report = checked(path)
    assert events == ["child", "load"]  # one child, started before the model was read, and joined
    assert format_verdict(report).status is Status.PROVED
    assert not children[0].running


def test_the_child_is_stopped_when_the_model_cannot_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\xff" * 64)  # not protobuf: the loader refuses it
    children: list[sandbox.Started[Any]] = []
    real_begin = format_onnx.begin

    def begin(fn: Callable[..., Any], *args: Any, **kw: Any) -> sandbox.Started[Any]:
        children.append(real_begin(fn, *args, **kw))
        return children[-1]

    monkeypatch.setattr(format_onnx, "begin", begin)
    report = check_file(str(path), CheckOptions(engine="direct"))
    assert report.error is not None
    assert len(children) == 1 and not children[0].running


def _while_the_rules_run(monkeypatch: pytest.MonkeyPatch, then: Callable[[int], None]) -> None:
    """Call ``then(pid of FORMAT-ONNX's child)`` while the first rule after it runs in the parent."""
    real = registry._verdict

    def verdict(rule: Rule, ctx: CheckContext) -> Verdict:
        if rule.id == "GRAPH-ACYCLIC":
            early = ctx.config.started[ID]
            assert isinstance(early, format_onnx.Early) and early.child.pid
            then(early.child.pid)
        return real(rule, ctx)

    monkeypatch.setattr(registry, "_verdict", verdict)


def test_a_child_that_dies_while_the_rules_run_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(valid(), str(path))
    go = tmp_path / "go"

    def crash(*args: Any, **kw: Any) -> None:  # in the child: dies once the parent is inside the rules
        give_up = time.monotonic() + 60
        while not go.exists() and time.monotonic() < give_up:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGSEGV)

    def rules_running(pid: int) -> None:
        assert not has_ended(pid)
        go.touch()
        assert wait_until_ended(pid)

    monkeypatch.setattr(onnx.checker, "check_model", crash)
    _while_the_rules_run(monkeypatch, rules_running)
    report = checked(path)
    got = format_verdict(report)
    assert got.status is Status.UNKNOWN and "killed by signal SIGSEGV" in (got.reason or "")
    assert "(it runs in a child process, so the other rules still ran)" in (got.reason or "")
    assert in_table_order(report)
    assert all(v.status is Status.PROVED for v in report.verdicts if v.rule_id != ID)
    monkeypatch.undo()
    go.touch()
    monkeypatch.setattr(onnx.checker, "check_model", crash)
    assert at_once(path) == got


def test_a_child_past_its_time_limit_while_the_rules_run_is_stopped_by_its_own_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(valid(), str(path))

    def hangs(*args: Any, **kw: Any) -> None:
        time.sleep(120)

    monkeypatch.setattr(onnx.checker, "check_model", hangs)
    monkeypatch.setattr(sandbox, "TIME_LIMIT", 1.0)
    _while_the_rules_run(monkeypatch, lambda pid: None if wait_until_ended(pid) else pytest.fail("never stopped"))
    got = format_verdict(checked(path))
    assert got.status is Status.UNKNOWN and "exceeded its time limit of 1 s" in (got.reason or "")


def test_a_verdict_given_in_time_stands_when_the_rules_end_after_the_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(valid(), str(path))
    monkeypatch.setattr(sandbox, "TIME_LIMIT", 3.0)
    begun = time.monotonic()

    def slow_rules(pid: int) -> None:
        assert wait_until_ended(pid)  # the checker is done...
        time.sleep(max(0.0, begun + 3.5 - time.monotonic()))  # ...and the parent joins after the limit

    _while_the_rules_run(monkeypatch, slow_rules)
    got = format_verdict(checked(path))
    assert got.status is Status.PROVED, got.reason


def test_the_shared_analyses_are_let_go_before_the_child_is_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(unsorted(), str(path))
    seen: dict[str, int] = {}
    order: list[str] = []
    real_check, real_arity = format_onnx.check, registry.rule_by_id("GRAPH-ARITY").code().check

    def joined(ctx: CheckContext) -> Verdict:
        seen["at the join"] = len(ctx.cache)
        order.append("join")
        return real_check(ctx)

    def arity(ctx: CheckContext) -> Verdict:
        v = real_arity(ctx)
        seen["after the other rules"] = len(ctx.cache)
        return v

    monkeypatch.setattr(format_onnx, "check", joined)
    monkeypatch.setattr(registry.rule_by_id("GRAPH-ARITY").code(), "check", arity)
    monkeypatch.setattr(registry, "release_freed_heap", lambda: order.append("trim") or True)
    report = checked(path)
    assert seen["after the other rules"] > 0  # the index and the topology the structural rules shared
    assert seen["at the join"] == 0
    assert order == ["trim", "join"]
    assert format_verdict(report) == at_once(path)
