"""The NumPy executor: the model's execution semantics run with NumPy arrays.

:class:`~sonnx.execution.interpretation.NumpyInterpretation` is the value domain: it looks up the
kernel of each operation (:mod:`sonnx.ops`) for the model's opset and calls
it. A run is :func:`sonnx.model.semantics.run` with that interpretation, a
scheduler chosen by the caller (file order, a seeded random valid order,
last-ready first), and values freed after their last use, so that peak memory
stays near the largest set of live tensors.

:func:`execute` runs it through the model's compiled plan
(:class:`sonnx.execution.plan.ModelPlan`): kernels, attributes, lifetimes and the
file-order firing sequence are worked out once per model object and reused
by every later run (``sonnx run --repeat``, ``--orders``, cross-checks).
:func:`execute_by_semantics` is the same run done literally by
:func:`~sonnx.model.semantics.run`; a test holds the two equal.

The executor takes input values; it draws none (:mod:`sonnx.execution.inputs` draws and reads them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from ..base.errors import ExecutionError, SonnxError
from ..model.graph import Model, Operation, Tensor
from ..model.semantics import FileOrder, Scheduler, Scope, initial_state, outputs_of, run
from ..ops.base import KernelRegistry
from ..ops.registry import REGISTRY
from ..rules.base import TrialRun
from .interpretation import NumpyInterpretation, check_supported, unsupported_operators
from .plan import Deadline, ModelPlan, Probe
from .signature import check_inputs

__all__ = [
    "ModelPlan",
    "NumpyInterpretation",
    "Probe",
    "check_supported",
    "execute",
    "execute_by_semantics",
    "model_plan",
    "timed_runs",
    "unsupported_operators",
]

_PLANS: WeakKeyDictionary[Model, list[tuple[KernelRegistry, ModelPlan]]] = WeakKeyDictionary()


def model_plan(model: Model, registry: KernelRegistry = REGISTRY) -> ModelPlan:
    """The compiled plan of ``model`` under ``registry``, made on first use and kept as long as the model is.

    A model that uses operators without a kernel raises
    :class:`~sonnx.ops.UnsupportedOperatorError` (and nothing is kept). The
    initial values are read once and shared read-only, so that a kernel
    writing into its input by mistake fails loudly instead of changing the
    weights of every later run.
    """
    entries = _PLANS.setdefault(model, [])
    for reg, plan in entries:
        if reg is registry:
            return plan
    plan = ModelPlan(model, registry)
    entries.append((registry, plan))
    return plan


def _prepared_inputs(model: Model, inputs: Mapping[str, Any], initial: Collection[str]) -> dict[str, Any]:
    g = model.graph
    missing = [n for n in g.inputs if n not in inputs and n not in initial]
    if missing:
        raise ExecutionError(f"no value given for graph input(s): {', '.join(missing)}")
    unknown = sorted(set(inputs) - set(g.inputs))
    if unknown:
        raise ExecutionError(f"not graph inputs of the model: {', '.join(unknown)}")
    # a NumPy scalar stands for the 0-d array of its type
    feeds = {k: np.asarray(v) if isinstance(v, np.generic) else v for k, v in inputs.items()}
    check_inputs(model, feeds)
    return feeds


def _outputs(model: Model, final: Mapping[str, Any]) -> dict[str, Any]:
    g = model.graph
    missing = [n for n in g.outputs if n not in final]
    if missing:
        raise ExecutionError(f"execution ended without a value for graph outputs without a value: {', '.join(missing)}")
    return {n: final[n] for n in g.outputs}


def execute(
    model: Model,
    inputs: Mapping[str, np.ndarray],
    scheduler: Scheduler | None = None,
    registry: KernelRegistry = REGISTRY,
    nested: Callable[[], Scheduler] = FileOrder,
    probe: Probe | None = None,
    budget: float | None = None,
) -> dict[str, np.ndarray]:
    """Run ``model`` on ``inputs`` (by graph-input name); return its outputs by name.

    ``scheduler`` orders the main graph's operations (file order by default);
    ``nested`` makes a fresh scheduler for each run of a nested graph.
    ``probe``, when given, records each firing's time and bytes
    (``sonnx run --timings``). ``budget``, in seconds of wall-clock time, stops
    a run that has not finished by then with :class:`~sonnx.base.errors.BudgetExceeded`
    (checked between firings, nested graphs and Loop iterations included).

    A graph input with an initializer may be left out (its initial value is
    used). Any other missing input, or an output left without a value, is an
    :class:`ExecutionError`.
    """
    plan = model_plan(model, registry)
    feeds = _prepared_inputs(model, inputs, plan.initial)
    if type(scheduler) is FileOrder and not len(scheduler):
        scheduler = None  # a fresh file order: the plan's fixed sequence
    deadline = Deadline(budget) if budget is not None else None
    return _outputs(model, plan.run(feeds, scheduler, nested, probe, deadline))


def execute_by_semantics(
    model: Model,
    inputs: Mapping[str, np.ndarray],
    scheduler: Scheduler | None = None,
    registry: KernelRegistry = REGISTRY,
    nested: Callable[[], Scheduler] = FileOrder,
) -> dict[str, np.ndarray]:
    """:func:`execute` done literally: :func:`sonnx.model.semantics.run` with a fresh interpretation, no plan.

    Slower; kept as the reference the plan is tested against.
    """
    g = model.graph
    check_supported(model, registry)
    interp = NumpyInterpretation(model, registry)
    initial = {n: interp.initial_value(g.tensors[n]) for n in g.initialized}
    feeds = _prepared_inputs(model, inputs, initial)
    state = initial_state(g, dict(feeds), initial)
    final = run(
        g, state, interp, scheduler if scheduler is not None else FileOrder(), nested, keep=frozenset(g.outputs)
    )
    try:
        values = outputs_of(g, final)
    except KeyError as exc:
        raise ExecutionError(f"execution ended without a value for {exc.args[0]}") from None
    return dict(zip(g.outputs, values, strict=True))


class _Recording:
    """A NumPy interpretation that keeps every value it computes and the operation that is firing.

    Nested graphs fire through the same interpretation, so an operation of a
    body is recorded as well; only the main graph's names are reported.
    """

    def __init__(self, inner: NumpyInterpretation, values: dict[str, Any]) -> None:
        self.inner = inner
        self.values = values
        self.firing: Operation | None = None

    def initial_value(self, tensor: Tensor) -> Any:
        return self.inner.initial_value(tensor)

    def apply(self, operation: Operation, args: Sequence[Any], scope: Scope[Any]) -> Sequence[Any]:
        self.firing = operation
        results = self.inner.apply(operation, args, scope)
        self.firing = None
        for name, value in zip(operation.output_mapping, results, strict=False):
            if name:
                self.values[name] = value
        return results


def trial_run(model: Model, inputs: Mapping[str, Any]) -> TrialRun:
    """Run ``model`` on ``inputs`` in file order and report what the run showed, error included.

    The rules of the operator layer confirm a candidate witness with it
    (:attr:`sonnx.rules.base.CheckConfig.trial_run`): unlike :func:`execute`,
    an error does not end the report; the values computed before it, and the
    main-graph operation that raised it, are kept.
    """
    g = model.graph
    main = {*g.inputs, *g.initialized, *(n for op in g.operations for n in op.output_mapping if n)}
    values: dict[str, Any] = {}
    recording = _Recording(NumpyInterpretation(model, REGISTRY), values)
    try:
        check_supported(model, REGISTRY)
        initial = {n: recording.initial_value(g.tensors[n]) for n in g.initialized}
        feeds = _prepared_inputs(model, inputs, initial)
        values.update(initial)
        values.update(feeds)
        run(g, initial_state(g, dict(feeds), initial), recording, FileOrder())
    except (SonnxError, ArithmeticError, ValueError, IndexError, TypeError, MemoryError) as exc:
        failed = recording.firing
        where = next((j for j, op in enumerate(g.operations) if op is failed), None)
        text = exc.one_line() if isinstance(exc, SonnxError) else f"{type(exc).__name__}: {exc}"
        return TrialRun({n: v for n, v in values.items() if n in main}, " ".join(text.split()), where)
    return TrialRun({n: v for n, v in values.items() if n in main}, None, None)


def timed_runs(
    model: Model, inputs: Mapping[str, np.ndarray], make_scheduler: Callable[[], Scheduler], count: int
) -> list[float]:
    """Wall-clock seconds of ``count`` runs of ``model`` on ``inputs``, each with a fresh scheduler."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        execute(model, inputs, make_scheduler())
        times.append(time.perf_counter() - start)
    return times
