"""The NumPy value domain of the execution semantics: operators as the kernels of :mod:`sonnx.ops`.

:class:`NumpyInterpretation` is what :func:`sonnx.model.semantics.run` calls
to evaluate an operation on arrays; :func:`check_supported` refuses, before
anything runs, a model that uses an operator with no kernel at the imported
opset version. The compiled plan (:mod:`sonnx.execution.plan`) uses both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from onnx import defs as onnx_defs

from ..base.errors import ExecutionError
from ..model.graph import Model, Operation, Tensor
from ..model.semantics import Scope
from ..ops.base import BoundKernel, KernelRegistry, UnsupportedOperatorError, attributes_with_defaults
from ..ops.registry import REGISTRY


class NumpyInterpretation:
    """Operators as NumPy kernels, under the opset versions the model imports.

    Kernels, schemas and attributes are resolved on an operation's first
    firing and kept for later firings (nested graphs fire their operations
    again on every run). Initial values of nested graphs are read once and
    kept read-only, like the main graph's.
    """

    def __init__(self, model: Model, registry: KernelRegistry = REGISTRY) -> None:
        # the opsets, not the model: a plan cached per model must not keep its model alive
        self.opset_imports = model.opset_imports
        self.registry = registry
        self._bound: dict[int, tuple[Operation, BoundKernel]] = {}
        self._initial: dict[int, tuple[Tensor, Any]] = {}

    def initial_value(self, tensor: Tensor) -> Any:
        cached = self._initial.get(id(tensor))
        if cached is not None and cached[0] is tensor:
            return cached[1]
        assert tensor.initial_value is not None
        value = tensor.initial_value.read()
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        self._initial[id(tensor)] = (tensor, value)  # the tensor is kept, so its id is not reused
        return value

    def bind(self, operation: Operation) -> BoundKernel:
        """The operation's kernel bound to its attributes; raises what firing it would raise."""
        entry = self._bound.get(id(operation))
        if entry is not None and entry[0] is operation:
            return entry[1]
        domain = operation.domain
        version = self.opset_imports.get(domain)
        if version is None:
            raise ExecutionError(f"{operation.label}: the model imports no opset for domain {domain or 'ai.onnx'!r}")
        kernel, schema = self.registry.lookup(domain, operation.operator, version)
        _check_operation_form(operation, schema)
        bound = BoundKernel(kernel, operation, attributes_with_defaults(operation, schema))
        self._bound[id(operation)] = (operation, bound)
        return bound

    def apply(self, operation: Operation, args: Sequence[Any | None], scope: Scope[Any]) -> Sequence[Any]:
        return self.bind(operation)(args, scope)


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


_OPTIONAL = onnx_defs.OpSchema.FormalParameterOption.Optional
_VARIADIC = onnx_defs.OpSchema.FormalParameterOption.Variadic


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
        if name or not formals:
            continue
        # positions past the last formal belong to it when it is variadic (Concat, Sum, Max...)
        formal = formals[min(k, len(formals) - 1)]
        if k >= len(formals) and formal.option != _VARIADIC:
            continue
        if formal.option != _OPTIONAL:
            raise ExecutionError(
                f"{operation.label}: required input {k} ({formal.name}) is left out (an empty name); "
                f"only optional inputs may be"
            )
