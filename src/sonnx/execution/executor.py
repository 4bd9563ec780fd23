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
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np
from onnx import TensorProto

from ..base.errors import ExecutionError, InputSizeError
from ..model.graph import Model, TensorType
from ..model.semantics import FileOrder, Scheduler, initial_state, outputs_of, run
from ..ops import REGISTRY, KernelRegistry
from ..ops.values import numpy_dtype
from .input_domain import Domain, input_domains
from .interpretation import NumpyInterpretation, check_supported, unsupported_operators
from .plan import Deadline, ModelPlan, Probe
from .signature import check_inputs

__all__ = [
    "ModelPlan",
    "NumpyInterpretation",
    "Probe",
    "check_supported",
    "execute",
    "draw_bytes",
    "execute_by_semantics",
    "model_plan",
    "random_array",
    "random_inputs",
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
    (``sonnx run --profile``). ``budget``, in seconds of wall-clock time, stops
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


def random_inputs(
    model: Model, seed: int, symbolic_dim: int = 1, skip: Collection[str] = ()
) -> dict[str, np.ndarray]:
    """Seeded random values for every graph input without an initial value, from its declared type.

    Floats are standard normal, integers in [-10, 10] (unsigned in [0, 10])
    unless the model bounds them (:func:`sonnx.execution.input_domain.input_domains`: an
    index into a table, a trip count, a size), then inside that domain;
    booleans fair coins; a symbolic or unknown dimension takes ``symbolic_dim``.
    Inputs named in ``skip`` (values the caller already has) are not drawn, so
    they need no declared shape.
    """
    g = model.graph
    drawn = [n for n in g.inputs if g.tensor(n).initial_value is None and n not in skip]
    sizes = {n: draw_bytes(n, g.tensor(n).type, symbolic_dim) for n in drawn}
    if len(drawn) > 1:
        _check_room(sum(sizes.values()), f"the {len(drawn)} inputs drawn together")
    rng = np.random.default_rng(seed)
    domains = input_domains(model) if drawn else {}
    out: dict[str, np.ndarray] = {}
    for name in drawn:
        out[name] = random_array(name, g.tensor(name).type, rng, symbolic_dim, domains.get(name))
    return out


_FLOAT_TYPES = frozenset(
    {
        TensorProto.FLOAT16,
        TensorProto.BFLOAT16,
        TensorProto.FLOAT8E4M3FN,
        TensorProto.FLOAT8E4M3FNUZ,
        TensorProto.FLOAT8E5M2,
        TensorProto.FLOAT8E5M2FNUZ,
        TensorProto.FLOAT4E2M1,
        TensorProto.FLOAT6E2M3,
        TensorProto.FLOAT6E3M2,
        TensorProto.FLOAT8E8M0,
    }
)
"""Floating element types that NumPy lacks or ranks apart (drawn in float32, then rounded to the type;
FLOAT8E8M0, which has no sign bit, from the absolute values)."""

_SMALL_INT_RANGES: dict[int, tuple[int, int]] = {TensorProto.INT4: (-8, 7), TensorProto.UINT4: (0, 15)}
"""Sub-byte integer types: their whole range."""


def _draw_shape(name: str, ttype: TensorType | None, symbolic_dim: int) -> tuple[int, ...]:
    """The shape drawn for a declared type: symbolic and unknown dimensions take ``symbolic_dim``."""
    if ttype is None or ttype.kind != "tensor" or ttype.elem_type == 0 or ttype.shape is None:
        raise ExecutionError(f"input {name!r} has no declared tensor type and shape; give its value")
    negative = [d for d in ttype.shape if isinstance(d, int) and d < 0]
    if negative:
        raise InputSizeError(f"input {name!r} declares dimension {negative[0]}, which is not a size; give its value")
    return tuple(d if isinstance(d, int) else symbolic_dim for d in ttype.shape)


def _peak_width(et: int, dtype: np.dtype[Any]) -> int:
    """Bytes per element that drawing a value of element type ``et`` holds at its peak (see :func:`random_array`)."""
    if et == TensorProto.STRING:
        return 96  # a length, a pointer and a short str object per element
    if dtype.kind == "c":
        return 48 + dtype.itemsize  # two float64 draws, their complex sum, then the cast
    return 8 + 4 + dtype.itemsize  # a 64-bit draw, float32 rounding where floats are drawn, then the cast


def draw_bytes(name: str, ttype: TensorType | None, symbolic_dim: int = 1) -> int:
    """About how many bytes drawing a random value of the declared type takes at its peak (exact integers)."""
    shape = _draw_shape(name, ttype, symbolic_dim)
    assert ttype is not None
    return math.prod(shape) * _peak_width(ttype.elem_type, numpy_dtype(ttype.elem_type))


def _machine_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def available_memory() -> int | None:
    """Bytes of memory this process can still get, or None when unknown.

    The machine's (Linux's MemAvailable, else its physical memory), less
    when the process's address space is limited (``RLIMIT_AS``).
    """
    room = _machine_memory()
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        with open("/proc/self/statm", "rb") as fh:
            used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError):
        return room
    if soft == resource.RLIM_INFINITY:
        return room
    left = max(0, soft - used)
    return left if room is None else min(room, left)


def _gib(n: int) -> str:
    return f"{n / 2**30:.3g} GiB"


def _check_room(needed: int, what: str) -> None:
    """An :class:`InputSizeError` when ``needed`` bytes exceed what numpy can index or the memory available.

    Checked before drawing: an allocation the system grants lazily and cannot
    back would end the process with the kernel's out-of-memory kill, not an error.
    """
    if needed >= 2**63:
        raise InputSizeError(f"{what}: about 2^{needed.bit_length() - 1} bytes, more than numpy can address")
    room = available_memory()
    if room is not None and needed > room:
        raise InputSizeError(
            f"{what}: not enough memory to draw: about {_gib(needed)} needed, {_gib(room)} available"
        )


def random_array(
    name: str, ttype: TensorType | None, rng: np.random.Generator, symbolic_dim: int, domain: Domain | None = None
) -> np.ndarray:
    """One random array of the declared type ``ttype``.

    Floats are standard normal (complex: both parts), integers uniform in
    ``domain`` when given, else in [-10, 10] (unsigned in [0, 10]; 4-bit
    integers over their whole range), booleans
    fair coins, strings short lowercase words. A declared shape too large to
    draw (numpy refuses its size, or memory cannot hold it; the size is worked
    out in exact integers first) is an :class:`InputSizeError`, never an
    internal error or a process killed for lack of memory.
    """
    shape = _draw_shape(name, ttype, symbolic_dim)
    assert ttype is not None
    count = math.prod(shape)
    _check_room(draw_bytes(name, ttype, symbolic_dim), f"input {name!r} declares {count} elements {list(shape)}")
    try:
        return _draw(name, ttype.elem_type, shape, rng, domain)
    except (MemoryError, ValueError) as exc:  # numpy's own refusals of a size ("array is too big")
        raise InputSizeError(
            f"input {name!r} declares {count} elements {list(shape)}: {' '.join(str(exc).split()) or 'out of memory'}"
        ) from None


def _draw(
    name: str, et: int, shape: tuple[int, ...], rng: np.random.Generator, domain: Domain | None = None
) -> np.ndarray:
    dtype = numpy_dtype(et)
    if et == TensorProto.BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    if domain is not None and (et in _SMALL_INT_RANGES or dtype.kind in "iu"):
        return np.asarray(rng.integers(domain.low, domain.high + 1, size=shape)).astype(dtype)
    if et in _SMALL_INT_RANGES:
        low, high = _SMALL_INT_RANGES[et]
        return np.asarray(rng.integers(low, high + 1, size=shape)).astype(dtype)
    if et == TensorProto.STRING:
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"), dtype=object)
        words = ["".join(letters[rng.integers(0, 26, size=int(n))]) for n in rng.integers(1, 8, size=shape).flat]
        return np.array(words, dtype=object).reshape(shape)
    if et in _FLOAT_TYPES or dtype.kind == "f":
        drawn = np.asarray(rng.standard_normal(shape), dtype=np.float32)
        return (np.abs(drawn) if et == TensorProto.FLOAT8E8M0 else drawn).astype(dtype)
    if dtype.kind == "c":
        return np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "u":
        return np.asarray(rng.integers(0, 11, size=shape)).astype(dtype)
    if dtype.kind == "i":
        return np.asarray(rng.integers(-10, 11, size=shape)).astype(dtype)
    raise ExecutionError(f"input {name!r}: cannot draw random values of type {dtype}")


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
