"""The NumPy executor: the model's execution semantics run with NumPy arrays.

:class:`NumpyInterpretation` is the value domain: it looks up the kernel of
each operation (:mod:`sonnx.ops`) for the model's opset and calls it. The run
itself is :func:`sonnx.model.semantics.run`, the same function that defines
the semantics, with a scheduler chosen by the caller (file order, a seeded
random valid order, last-ready first) and with values freed after their last
use, so that peak memory stays near the largest set of live tensors.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Collection, Mapping, Sequence
from weakref import WeakKeyDictionary

import numpy as np
from onnx import TensorProto
from onnx import defs as onnx_defs

from .errors import ExecutionError
from .model.graph import Model, Operation, Tensor, TensorType
from .model.semantics import FileOrder, Scheduler, Scope, initial_state, outputs_of, run
from .ops import REGISTRY, KernelRegistry, UnsupportedOperatorError, call_kernel
from .ops.base import attributes_with_defaults
from .ops.values import numpy_dtype
from .signature import check_inputs


class NumpyInterpretation:
    """Operators as NumPy kernels, under the opset versions the model imports."""

    def __init__(self, model: Model, registry: KernelRegistry = REGISTRY) -> None:
        self.model = model
        self.registry = registry
        self._attrs: dict[int, dict[str, Any]] = {}

    def initial_value(self, tensor: Tensor) -> Any:
        assert tensor.initial_value is not None
        return tensor.initial_value.read()

    def apply(self, operation: Operation, args: Sequence[Any | None], scope: Scope[Any]) -> Sequence[Any]:
        domain = operation.domain
        version = self.model.opset_imports.get(domain)
        if version is None:
            raise ExecutionError(f"{operation.label}: the model imports no opset for domain {domain or 'ai.onnx'!r}")
        kernel, schema = self.registry.lookup(domain, operation.operator, version)
        key = id(operation)
        attrs = self._attrs.get(key)
        if attrs is None:
            _check_operation_form(operation, schema)
            attrs = attributes_with_defaults(operation, schema)
            self._attrs[key] = attrs
        return call_kernel(kernel, operation, args, attrs, scope)


def unsupported_operators(model: Model, registry: KernelRegistry = REGISTRY) -> list[str]:
    """Every operator version used anywhere in the model (nested bodies too) that has no kernel, once each.

    Each entry reads ``domain::Operator-since_version (opset N)``, or says why no version applies; sorted.
    """
    found: dict[tuple[str, str], str] = {}
    for _path, graph in model.graph.nested():
        for op in graph.operations:
            key = (op.domain, op.operator)
            if key in found:
                continue
            domain = op.domain or "ai.onnx"
            version = model.opset_imports.get(op.domain)
            if version is None:
                found[key] = f"{domain}::{op.operator} (the model imports no opset for {domain})"
                continue
            try:
                since = registry.schema(op.domain, op.operator, version).since_version
            except UnsupportedOperatorError:
                found[key] = f"{domain}::{op.operator} (no schema at opset {version})"
                continue
            if (op.domain, op.operator, since) not in registry:
                found[key] = f"{domain}::{op.operator}-{since} (opset {version})"
    return sorted(found.values())


def check_supported(model: Model, registry: KernelRegistry = REGISTRY) -> None:
    """Refuse, before any work, a model that uses operators without a kernel: all of them in one message."""
    missing = unsupported_operators(model, registry)
    if missing:
        raise UnsupportedOperatorError(
            f"{len(missing)} operator(s) without a kernel: {'; '.join(missing)}"
        )


_SINGLE = onnx_defs.OpSchema.FormalParameterOption.Single


def _check_operation_form(operation: Operation, schema: onnx_defs.OpSchema) -> None:
    """Refuse an operation its schema does not describe: an attribute the schema does not declare,
    or a required (non-optional) input left out with the empty name.

    [An undeclared attribute would otherwise reach the kernel as a keyword
    argument and could stand in for an input of the same name.]
    """
    undeclared = sorted(a.name for a in operation.attributes if a.name not in schema.attributes)
    if undeclared:
        raise ExecutionError(
            f"{operation.label}: attribute(s) {', '.join(map(repr, undeclared))} not declared by "
            f"{schema.name}-{schema.since_version}"
        )
    formals = schema.inputs
    for k, name in enumerate(operation.input_mapping):
        if name or k >= len(formals):
            continue
        formal = formals[k]
        if formal.option == _SINGLE:
            raise ExecutionError(
                f"{operation.label}: required input {k} ({formal.name}) is left out (an empty name); "
                f"only optional inputs may be"
            )


_INITIAL_VALUES: WeakKeyDictionary[Model, dict[str, Any]] = WeakKeyDictionary()


def _initial_values(model: Model, interpretation: NumpyInterpretation) -> dict[str, Any]:
    """The main graph's initializers as arrays, read once per model and then shared read-only.

    Read-only, so that a kernel writing into its input by mistake fails
    loudly instead of changing the weights of every later run.
    """
    cached = _INITIAL_VALUES.get(model)
    if cached is None:
        cached = {}
        g = model.graph
        for n in g.initialized:
            value = interpretation.initial_value(g.tensors[n])
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            cached[n] = value
        _INITIAL_VALUES[model] = cached
    return cached


def execute(
    model: Model,
    inputs: Mapping[str, np.ndarray],
    scheduler: Scheduler | None = None,
    registry: KernelRegistry = REGISTRY,
    nested: Callable[[], Scheduler] = FileOrder,
) -> dict[str, np.ndarray]:
    """Run ``model`` on ``inputs`` (by graph-input name); return its outputs by name.

    ``scheduler`` orders the main graph's operations (file order by default);
    ``nested`` makes a fresh scheduler for each run of a nested graph.

    A graph input with an initializer may be left out (its initial value is
    used). Any other missing input, or an output left without a value, is an
    :class:`ExecutionError`.
    """
    g = model.graph
    check_supported(model, registry)
    interp = NumpyInterpretation(model, registry)
    initial = _initial_values(model, interp)
    missing = [n for n in g.inputs if n not in inputs and n not in initial]
    if missing:
        raise ExecutionError(f"no value given for graph input(s): {', '.join(missing)}")
    unknown = sorted(set(inputs) - set(g.inputs))
    if unknown:
        raise ExecutionError(f"not graph inputs of the model: {', '.join(unknown)}")
    # a NumPy scalar stands for the 0-d array of its type
    inputs = {k: np.asarray(v) if isinstance(v, np.generic) else v for k, v in inputs.items()}
    check_inputs(model, inputs)
    state = initial_state(g, dict(inputs), initial)
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

    Floats are standard normal, integers in [-10, 10] (unsigned in [0, 10]),
    booleans fair coins; a symbolic or unknown dimension takes ``symbolic_dim``.
    Inputs named in ``skip`` (values the caller already has) are not drawn, so
    they need no declared shape.
    """
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    g = model.graph
    for name in g.inputs:
        t = g.tensor(name)
        if t.initial_value is not None or name in skip:
            continue
        out[name] = random_array(name, t.type, rng, symbolic_dim)
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
    }
)
"""Floating element types that NumPy lacks or ranks apart (drawn in float32, then rounded to the type)."""

_SMALL_INT_RANGES: dict[int, tuple[int, int]] = {TensorProto.INT4: (-8, 7), TensorProto.UINT4: (0, 15)}
"""Sub-byte integer types: their whole range."""


def random_array(name: str, ttype: TensorType | None, rng: np.random.Generator, symbolic_dim: int) -> np.ndarray:
    """One random array of the declared type ``ttype``.

    Floats are standard normal (complex: both parts), integers in [-10, 10]
    (unsigned in [0, 10]; 4-bit integers over their whole range), booleans
    fair coins, strings short lowercase words.
    """
    if ttype is None or ttype.kind != "tensor" or ttype.elem_type == 0 or ttype.shape is None:
        raise ExecutionError(f"input {name!r} has no declared tensor type and shape; give its value")
    shape = tuple(d if isinstance(d, int) and d >= 0 else symbolic_dim for d in ttype.shape)
    et = ttype.elem_type
    dtype = numpy_dtype(et)
    if et == TensorProto.BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    if et in _SMALL_INT_RANGES:
        low, high = _SMALL_INT_RANGES[et]
        return np.asarray(rng.integers(low, high + 1, size=shape)).astype(dtype)
    if et == TensorProto.STRING:
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"), dtype=object)
        words = ["".join(letters[rng.integers(0, 26, size=int(n))]) for n in rng.integers(1, 8, size=shape).flat]
        return np.array(words, dtype=object).reshape(shape)
    if et in _FLOAT_TYPES or dtype.kind == "f":
        return np.asarray(rng.standard_normal(shape), dtype=np.float32).astype(dtype)
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
