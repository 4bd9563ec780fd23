"""The compiled plan is an implementation of the semantics: same firing sequence, bit-identical outputs.

:func:`sonnx.execution.executor.execute` runs a model through its plan
(:mod:`sonnx.execution.plan`); :func:`sonnx.execution.executor.execute_by_semantics` runs
:func:`sonnx.model.semantics.run` literally. On every example model, every
onnx backend node case whose operators all have kernels, and every stored
real export, both are run in file order (the plan's fixed sequence), in a
seeded random order (the plan's scheduled loop) and with the profiling probe,
and must fire the same operations in the same order and give the same bytes
for every output, or raise the same error. Cases whose outputs differ between
two literal runs (random operators without a seed) are compared on their
firing sequences and output types only, and counted.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sonnx.base.errors import SonnxError
from sonnx.execution.backend import SonnxBackend
from sonnx.execution.executor import Probe, execute, execute_by_semantics, model_plan
from sonnx.execution.inputs import complete_inputs, random_inputs
from sonnx.execution.orders import RecordingScheduler
from sonnx.execution.plan import GraphPlan
from sonnx.loader import load_model
from sonnx.model.graph import Model
from sonnx.model.semantics import FileOrder, Scheduler, SeededRandomOrder
from sonnx.ops import REGISTRY
from sonnx.ops.values import value_bytes
from tests.common.backend_cases import NodeCase, _value, node_cases

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.onnx"))
REAL = sorted((ROOT / "tests" / "data" / "real").glob("*.onnx"))
SUPPORTED = {op if not d else f"{d}::{op}" for d, op in REGISTRY.operators()}

Outcome = tuple[str, Any]


def _outcome(run: Callable[[], dict[str, Any]]) -> Outcome:
    """("ok", bytes of every output by name) or ("error", (class name, message))."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = run()
    except Exception as exc:  # an error is an outcome too: both sides must raise the same
        return "error", (type(exc).__name__, str(exc))
    return "ok", {k: value_bytes(v) for k, v in out.items()}


def _shapes(outcome: Outcome) -> Any:
    return outcome[0] if outcome[0] != "ok" else sorted(outcome[1])


def differences(model: Model, feeds: dict[str, Any], seed: int = 7) -> list[str]:
    """Every way the plan's runs differ from the literal runs of the semantics on ``feeds`` (empty: none)."""
    return compare(model, feeds, seed)[0]


def compare(model: Model, feeds: dict[str, Any], seed: int = 7) -> tuple[list[str], bool]:
    """The differences, and whether two literal runs gave the same outputs (False: random operators)."""
    found: list[str] = []
    literal = RecordingScheduler(FileOrder())
    want = _outcome(lambda: execute_by_semantics(model, feeds, literal))
    again = _outcome(lambda: execute_by_semantics(model, feeds))
    deterministic = want == again

    def same(label: str, got: Outcome, expected: Outcome) -> None:
        if deterministic and got != expected:
            found.append(f"{label}: outputs {_brief(got)} != {_brief(expected)}")
        elif not deterministic and _shapes(got) != _shapes(expected):
            found.append(f"{label}: outputs {_shapes(got)} != {_shapes(expected)}")

    same("file order", _outcome(lambda: execute(model, feeds)), want)
    if want[0] == "ok":
        sequence = tuple(model_plan(model).main.file_sequence)
        if sequence != tuple(literal.fired):
            found.append(f"file order: plan fires {sequence}, the semantics {tuple(literal.fired)}")
        probe = Probe()
        same("probed", _outcome(lambda: execute(model, feeds, probe=probe)), want)
        if tuple(f.index for f in probe.firings) != tuple(literal.fired):
            found.append("probed: another firing sequence")
    ours, theirs = RecordingScheduler(SeededRandomOrder(seed)), RecordingScheduler(SeededRandomOrder(seed))
    nested: Callable[[], Scheduler] = lambda: SeededRandomOrder(seed)  # noqa: E731
    got = _outcome(lambda: execute(model, feeds, ours, nested=nested))
    expected = _outcome(lambda: execute_by_semantics(model, feeds, theirs, nested=nested))
    same(f"random:{seed}", got, expected)
    if ours.fired != theirs.fired:
        found.append(f"random:{seed}: plan fires {ours.fired}, the semantics {theirs.fired}")
    return found, deterministic


def _brief(outcome: Outcome) -> str:
    if outcome[0] != "ok":
        return f"error {outcome[1]}"
    return "{" + ", ".join(f"{k}: {len(v)} bytes" for k, v in sorted(outcome[1].items())) + "}"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_plan_equals_semantics_on_every_example(path: Path) -> None:
    model = load_model(str(path))
    try:
        feeds = random_inputs(model, 0)
    except SonnxError as exc:
        pytest.fail(f"{path.name}: no random inputs: {exc}")
    assert differences(model, feeds) == []


REAL_INPUTS = ROOT / "tests" / "data" / "real" / "inputs"
"""Committed example inputs of the real exports whose integer inputs have a domain random draws miss."""


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_plan_equals_semantics_on_every_real_export(path: Path) -> None:
    model = load_model(str(path))
    given = REAL_INPUTS / f"{path.name.split('.')[0]}.npz"
    feeds = dict(np.load(given)) if given.is_file() else complete_inputs(model, {}, 0).values
    assert differences(model, feeds) == []


def _case_feeds(nc: NodeCase) -> tuple[Model, dict[str, Any]]:
    assert nc.case.model is not None and nc.case.data_sets is not None
    rep = SonnxBackend.prepare(nc.case.model)
    inputs, _expected = nc.case.data_sets[nc.data_set]
    return rep.model, rep._bind([_value(x) for x in inputs])


def test_plan_equals_semantics_on_every_backend_node_case() -> None:
    cases = node_cases(SUPPORTED)
    assert len(cases) > 1500  # the whole set, not a filtered remainder
    failures: list[str] = []
    nondeterministic = 0
    for nc in cases:
        try:
            model, feeds = _case_feeds(nc)
        except SonnxError:
            continue  # refused before any run (an operator version without a kernel): nothing to compare
        found, deterministic = compare(model, feeds)
        nondeterministic += not deterministic
        failures.extend(f"{nc.case_id}: {d}" for d in found)
    assert failures == [], f"{len(failures)} difference(s), first: {failures[:5]}"
    assert nondeterministic < 40  # only the random operators without a seed


def test_the_comparison_catches_a_plan_that_drops_a_value_one_reader_early(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan that counts one reader too few for a name read twice must be caught (the test can fail)."""
    path = str(ROOT / "tests" / "data" / "real" / "mobilenet_v3_small.torchscript.onnx")  # residual branches
    model = load_model(path)
    feeds = random_inputs(model, 0)
    assert differences(model, feeds) == []
    original = GraphPlan.__init__

    def short_count(self: GraphPlan, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        name = next(n for n, k in self.readers.items() if k > 1 and n not in (self.keep or ()))
        self.readers[name] -= 1
        self.file_sequence, self.file_drops = self.simulate(FileOrder())

    monkeypatch.setattr(GraphPlan, "__init__", short_count)
    broken = load_model(path)  # a new model object: a new plan
    assert differences(broken, feeds) != []


def test_the_comparison_catches_a_plan_that_loses_an_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan whose bound kernel lost a decoded attribute (LeakyRelu's alpha) must be caught too.

    (A lost schema default would go unseen: every kernel's own keyword default
    is the schema's. The attribute here is given explicitly, 0.5 against the
    default 0.01.)
    """
    from onnx import TensorProto, helper

    from sonnx.ops.base import BoundKernel

    node = helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5)
    vi = helper.make_tensor_value_info
    graph = helper.make_graph([node], "g", [vi("x", TensorProto.FLOAT, [4])], [vi("y", TensorProto.FLOAT, [4])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    feeds = {"x": np.array([-2.0, -1.0, 0.5, 3.0], dtype=np.float32)}
    assert differences(SonnxBackend.prepare(proto).model, feeds) == []
    broken = SonnxBackend.prepare(proto).model
    for call in model_plan(broken).main.calls:  # the plan's own bindings; the literal run binds afresh
        assert isinstance(call, BoundKernel)
        monkeypatch.setattr(call, "_kwargs", {k: v for k, v in call._kwargs.items() if k != "alpha"})
    found = differences(broken, feeds)
    assert any(d.startswith("file order") for d in found), found


def test_a_cached_plan_does_not_keep_its_model_alive() -> None:
    import gc
    import weakref

    model = load_model(str(ROOT / "examples" / "cnn_block.onnx"))
    execute(model, random_inputs(model, 0))
    assert model_plan(model) is model_plan(model)  # made once, then reused
    ref = weakref.ref(model)
    del model
    gc.collect()
    assert ref() is None
