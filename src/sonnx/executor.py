"""The NumPy executor: the model's execution semantics run with NumPy arrays.

:class:`NumpyInterpretation` is the value domain: it looks up the kernel of
each operation (:mod:`sonnx.ops`) for the model's opset and calls it. The run
itself is :func:`sonnx.model.semantics.run`, the same function that defines
the semantics, with a scheduler chosen by the caller (file order, a seeded
random valid order, last-ready first) and with values freed after their last
use, so that peak memory stays near the largest set of live tensors.
"""

from __future__ import annotations

from typing import Any, Collection, Mapping, Sequence
from weakref import WeakKeyDictionary

import numpy as np
from onnx import helper as onnx_helper

from .errors import SonnxError
from .model.graph import Model, Operation, Tensor, TensorType
from .model.semantics import FileOrder, Scheduler, Scope, initial_state, outputs_of, run
from .ops import REGISTRY, KernelRegistry, call_kernel
from .ops.base import attributes_with_defaults


class ExecutionError(SonnxError):
    """The model cannot be executed as asked (missing input, bad shape, unsupported operator...)."""


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
            attrs = attributes_with_defaults(operation, schema)
            self._attrs[key] = attrs
        return call_kernel(kernel, operation, args, attrs, scope)


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
) -> dict[str, np.ndarray]:
    """Run ``model`` on ``inputs`` (by graph-input name); return its outputs by name.

    A graph input with an initializer may be left out (its initial value is
    used). Any other missing input, or an output left without a value, is an
    :class:`ExecutionError`.
    """
    g = model.graph
    interp = NumpyInterpretation(model, registry)
    initial = _initial_values(model, interp)
    missing = [n for n in g.inputs if n not in inputs and n not in initial]
    if missing:
        raise ExecutionError(f"no value given for graph input(s): {', '.join(missing)}")
    unknown = sorted(set(inputs) - set(g.inputs))
    if unknown:
        raise ExecutionError(f"not graph inputs of the model: {', '.join(unknown)}")
    state = initial_state(g, dict(inputs), initial)
    final = run(g, state, interp, scheduler if scheduler is not None else FileOrder(), keep=frozenset(g.outputs))
    try:
        values = outputs_of(g, final)
    except KeyError as exc:
        raise ExecutionError(f"execution ended without a value for {exc.args[0]}") from None
    return dict(zip(g.outputs, values, strict=True))


def numpy_dtype(elem_type: int) -> np.dtype[Any]:
    """The NumPy dtype of an ONNX element type (TensorProto.DataType)."""
    try:
        return np.dtype(onnx_helper.tensor_dtype_to_np_dtype(elem_type))
    except (KeyError, TypeError, ValueError):
        raise ExecutionError(f"element type {elem_type} has no NumPy equivalent") from None


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


def random_array(name: str, ttype: TensorType | None, rng: np.random.Generator, symbolic_dim: int) -> np.ndarray:
    """One random array of the declared type ``ttype``."""
    if ttype is None or ttype.kind != "tensor" or ttype.elem_type == 0 or ttype.shape is None:
        raise ExecutionError(f"input {name!r} has no declared tensor type and shape; give its value")
    shape = tuple(d if isinstance(d, int) and d >= 0 else symbolic_dim for d in ttype.shape)
    dtype = numpy_dtype(ttype.elem_type)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    if np.issubdtype(dtype, np.unsignedinteger):
        return rng.integers(0, 11, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-10, 11, size=shape).astype(dtype)
    raise ExecutionError(f"input {name!r}: cannot draw random values of type {dtype}")
