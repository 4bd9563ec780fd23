"""The kernel framework: one NumPy function per operator, registered explicitly.

A :class:`Kernel` says which operator it implements and for which schema
versions (``since_versions``, as data: the ``since_version`` of every ONNX
schema version the function is correct for). The registry picks the kernel
for an operation from the model's opset: ONNX defines the schema in force for
opset *v* as the one with the largest ``since_version`` not above *v*, and the
registry demands a kernel that declares exactly that version. An operator
version nobody declared is refused, never approximated by a neighbour.

:func:`call_kernel` is the one place a kernel is called: it fills attribute
defaults from the schema, and checks what comes back (one array per output the
operation asks for), so that a wrong kernel fails loudly instead of feeding a
wrong value to the next operation.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import onnx
from onnx import defs

from ..base.errors import SonnxError
from ..model.graph import Attribute, InitialValue, Operation
from .values import is_value

KernelFn = Callable[..., Any]


class UnsupportedOperatorError(SonnxError):
    """No kernel implements this operator version (the executor cannot run the model)."""


class KernelError(SonnxError):
    """A kernel refused its inputs (a precondition of the operator) or returned malformed outputs."""


@dataclass(frozen=True)
class Kernel:
    """A NumPy implementation of one operator for the listed schema versions.

    ``fn(*inputs, **attributes)`` returns one array or a tuple of arrays. An
    omitted optional input is passed as None. With ``needs_scope`` the kernel
    also receives ``scope=`` (control flow: running nested graphs). With
    ``output_count_as`` it receives the number of outputs the operation names
    under that keyword (Split before opset 18 cuts into that many parts).
    """

    operator: str
    since_versions: tuple[int, ...]
    fn: KernelFn
    domain: str = ""
    needs_scope: bool = False
    output_count_as: str | None = None


class KernelRegistry:
    """The table of kernels, keyed by (domain, operator, since_version)."""

    def __init__(self, kernels: Iterable[Kernel]) -> None:
        self._table: dict[tuple[str, str, int], Kernel] = {}
        for k in kernels:
            for v in k.since_versions:
                key = (k.domain, k.operator, v)
                if key in self._table:
                    raise ValueError(f"two kernels registered for {k.domain or 'ai.onnx'}::{k.operator}-{v}")
                self._table[key] = k

    def schema(self, domain: str, operator: str, opset_version: int) -> defs.OpSchema:
        """The ONNX schema in force for ``operator`` at ``opset_version``."""
        try:
            return defs.get_schema(operator, opset_version, domain)
        except defs.SchemaError:
            raise UnsupportedOperatorError(
                f"{domain or 'ai.onnx'}::{operator} has no schema at opset {opset_version}"
            ) from None

    def lookup(self, domain: str, operator: str, opset_version: int) -> tuple[Kernel, defs.OpSchema]:
        """The kernel and schema for ``operator`` under ``opset_version`` of its domain."""
        schema = self.schema(domain, operator, opset_version)
        kernel = self._table.get((domain, operator, schema.since_version))
        if kernel is None:
            raise UnsupportedOperatorError(
                f"no kernel for {domain or 'ai.onnx'}::{operator}-{schema.since_version} (opset {opset_version})"
            )
        return kernel, schema

    def __contains__(self, key: object) -> bool:
        """Whether ``(domain, operator, since_version)`` has a kernel."""
        return key in self._table

    def entries(self) -> list[tuple[str, str, int]]:
        """Every (domain, operator, since_version) with a kernel, sorted."""
        return sorted(self._table)

    def operators(self) -> list[tuple[str, str]]:
        """Every (domain, operator) with at least one kernel, sorted."""
        return sorted({(d, o) for d, o, _ in self._table})


def named(fn: KernelFn, name: str, doc: str) -> KernelFn:
    """A kernel function a factory built, under its own name (shown in tracebacks and argument errors) and text."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def int_vector(operator: str, name: str, v: np.ndarray | None) -> list[int] | None:
    """An optional 1-D integer input as Python ints (None when left out); any other rank or type is an error."""
    if v is None:
        return None
    if v.ndim != 1 or not np.issubdtype(v.dtype, np.integer):
        raise ValueError(f"{operator}'s {name} must be a 1-D integer tensor, got {v.dtype} {v.shape}")
    return [int(k) for k in v.tolist()]


def attribute_value(attr: Attribute) -> Any:
    """The Python value a kernel receives for an attribute (tensors as arrays, lists as lists)."""
    v = attr.value
    if isinstance(v, InitialValue):
        return v.read()
    if attr.type in ("INTS", "FLOATS", "STRINGS"):
        return list(v)
    if attr.type == "TENSORS":
        return [t.read() if isinstance(t, InitialValue) else t for t in v]
    return v


def attributes_with_defaults(operation: Operation, schema: defs.OpSchema) -> dict[str, Any]:
    """The operation's attributes, with the schema's default for every one it leaves out."""
    out: dict[str, Any] = {}
    for name, spec in schema.attributes.items():
        default = spec.default_value
        if default is not None and default.name:
            out[name] = onnx.helper.get_attribute_value(default)
            if isinstance(out[name], bytes):
                out[name] = out[name].decode("utf-8")
    for a in operation.attributes:
        out[a.name] = attribute_value(a)
    return out


def _as_value(value: Any) -> Any:
    """A NumPy scalar a kernel returned, as the 0-d array it stands for; anything else unchanged."""
    if isinstance(value, np.generic):
        return np.asarray(value)
    return value


class BoundKernel:
    """A kernel bound to one operation and its decoded attributes, ready to be called many times.

    Calling it is :func:`call_kernel` with the work that does not change from
    one call to the next done once: the keyword arguments (attributes with
    defaults, the output count) are built here. List-valued attributes are
    passed as fresh lists on every call, and tensor-valued ones are made
    read-only, so that a kernel that changes what it was given cannot change
    what the next call receives.
    """

    __slots__ = ("_fn", "_kwargs", "_label", "_lists", "_needs_scope", "_outputs", "_want")

    def __init__(self, kernel: Kernel, operation: Operation, attributes: Mapping[str, Any]) -> None:
        kwargs: dict[str, Any] = dict(attributes)
        for value in kwargs.values():
            # a tensor attribute is decoded once and given to every call: read-only, so that a kernel
            # writing into it fails loudly instead of changing what the next call receives
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        if kernel.output_count_as is not None:
            kwargs[kernel.output_count_as] = len(operation.output_mapping)
        self._fn = kernel.fn
        self._kwargs = kwargs
        self._lists = tuple(k for k, v in kwargs.items() if isinstance(v, list))
        self._needs_scope = kernel.needs_scope
        self._want = len(operation.output_mapping)
        self._outputs = operation.output_mapping
        self._label = operation.label

    @property
    def needs_scope(self) -> bool:
        """Whether the kernel runs nested graphs (it is then called with the running graph's scope)."""
        return self._needs_scope

    def __call__(self, inputs: Sequence[Any | None], scope: Any = None) -> tuple[Any, ...]:
        kwargs = self._kwargs
        if self._lists or self._needs_scope:
            kwargs = dict(kwargs)
            for k in self._lists:
                kwargs[k] = list(kwargs[k])
            if self._needs_scope:
                kwargs["scope"] = scope
        try:
            result = self._fn(*inputs, **kwargs)
        except SonnxError:
            raise
        except (ValueError, IndexError, TypeError) as exc:
            raise KernelError(f"{self._label}: {type(exc).__name__}: {exc}") from None
        want = self._want
        if type(result) is np.ndarray and want == 1:  # the common case: one array for one output
            return (result,)
        results = result if isinstance(result, tuple) else (result,)
        if len(results) < want:
            raise KernelError(f"{self._label}: the kernel gave {len(results)} outputs, the operation names {want}")
        out = tuple(_as_value(r) for r in results[:want])
        for position, (name, value) in enumerate(zip(self._outputs, out, strict=True)):
            if name and not is_value(value):
                kind = type(value).__name__
                raise KernelError(
                    f"{self._label}: output {position} is a {kind}, not a tensor, sequence, map or optional"
                )
        return out


def call_kernel(
    kernel: Kernel,
    operation: Operation,
    inputs: Sequence[Any | None],
    attributes: Mapping[str, Any],
    scope: Any = None,
) -> tuple[Any, ...]:
    """Run ``kernel`` and return exactly one value per entry of the operation's output mapping.

    A kernel may compute more optional outputs than the operation names
    (MaxPool's indices, say); the extra ones are dropped. Fewer is an error.
    (:class:`BoundKernel` is the same call prepared once for many calls.)
    """
    return BoundKernel(kernel, operation, attributes)(inputs, scope)


def operator_modules(package: str, names: Sequence[str]) -> tuple[ModuleType, ...]:
    """The operator modules ``package.<name>`` for each listed name, imported in that order.

    A catalog lists each of its operator modules once, by name, and registers
    exactly those (no scanning of the package); a test checks that every
    ``op_*.py`` file is listed in exactly one catalog.
    """
    return tuple(importlib.import_module(f"{package}.{name}") for name in names)
