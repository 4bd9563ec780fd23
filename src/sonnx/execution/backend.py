"""sonnx's executor behind the standard ONNX backend interface (``onnx.backend.base``).

This is how runtimes report conformance: onnx's own
``onnx.backend.test.BackendTest`` drives a backend through ``prepare``,
``run`` and ``run_node`` over its node, simple, PyTorch and light-model
suites. Here every call goes through what a sonnx user runs: the model is
written to a temporary file and read by :func:`sonnx.loader.load_model`,
every operator is checked to have a kernel before anything runs
(:func:`sonnx.execution.executor.check_supported`), and :func:`sonnx.execution.executor.execute`
runs the model's own execution semantics.

Values at the boundary follow onnx's backend conventions: tensors are NumPy
arrays, sequences lists, maps dicts, and an empty optional is ``None`` (the
executor's :data:`sonnx.ops.values.EMPTY` inside). The only device is
``CPU``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep

from ..base.errors import UsageError
from ..loader import load_model
from ..model.graph import Model, TensorType
from ..ops.base import KernelRegistry
from ..ops.registry import REGISTRY
from ..ops.values import EMPTY, EmptyOptional
from ..rules.graph_function_shadowing import refuse_shadowing
from .executor import check_supported, execute

DEVICE = "CPU"


def _to_executor(value: Any, ttype: TensorType | None) -> Any:
    """A backend-side value as the executor takes it (``None`` for a declared optional is the empty optional)."""
    if value is None and ttype is not None and ttype.kind == "optional":
        return EMPTY
    if isinstance(value, np.generic):
        return np.asarray(value)
    return value


def _from_executor(value: Any) -> Any:
    """An executor value as backends return it (the empty optional as ``None``)."""
    if isinstance(value, EmptyOptional):
        return None
    if isinstance(value, list):
        return [_from_executor(v) for v in value]
    return value


class SonnxRep(BackendRep):
    """A loaded model, ready to run many times with the NumPy executor."""

    def __init__(self, model: Model, registry: KernelRegistry = REGISTRY) -> None:
        self.model = model
        self.registry = registry
        g = model.graph
        fed = [n for n in g.inputs if g.tensor(n).initial_value is None]
        self._positional = fed
        self._all_inputs = list(g.inputs)

    def _bind(self, inputs: Any) -> dict[str, Any]:
        """Inputs given as a mapping by name, or positionally (the inputs without an initializer, else all)."""
        if isinstance(inputs, Mapping):
            named = dict(inputs)
        else:
            values = [inputs] if isinstance(inputs, np.ndarray) else list(inputs)
            names = self._positional if len(values) <= len(self._positional) else self._all_inputs
            if len(values) > len(names):
                raise UsageError(f"{len(values)} inputs given, the model has {len(names)}")
            named = dict(zip(names, values, strict=False))
        g = self.model.graph
        return {n: _to_executor(v, g.tensor(n).type if n in g.tensors else None) for n, v in named.items()}

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        outputs = execute(self.model, self._bind(inputs), registry=self.registry)
        return tuple(_from_executor(outputs[n]) for n in self.model.graph.outputs)


class SonnxBackend(Backend):
    """The standard backend entry points over sonnx's loader and executor."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == DEVICE

    @classmethod
    def prepare(
        cls, model: onnx.ModelProto, device: str = DEVICE, registry: KernelRegistry = REGISTRY, **kwargs: Any
    ) -> SonnxRep:
        """Load ``model`` as a file would be loaded; refuse it at once if an operator has no kernel, or if a
        model-local function shadows a standard operator (GRAPH-FUNCTION-SHADOWING).

        ``registry`` replaces the kernel table (tests plant a wrong kernel with it).
        """
        if not cls.supports_device(device):
            raise UsageError(f"device {device!r}: sonnx runs on {DEVICE} only")
        with tempfile.TemporaryDirectory(prefix="sonnx-backend-") as folder:
            path = os.path.join(folder, "model.onnx")
            with open(path, "wb") as fh:
                fh.write(model.SerializeToString())
            # Embedded values are kept as bytes and decoded from them: nothing is read from the file later.
            loaded = load_model(path)
        refuse_shadowing(loaded)
        check_supported(loaded, registry)
        return SonnxRep(loaded, registry)

    @classmethod
    def run_model(cls, model: onnx.ModelProto, inputs: Any, device: str = DEVICE, **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: Any,
        device: str = DEVICE,
        outputs_info: Sequence[tuple[np.dtype[Any], tuple[int, ...]]] | None = None,
        **kwargs: Any,
    ) -> tuple[Any, ...]:
        """Run one node: a one-node model whose input types are those of the given arrays."""
        values = list(inputs.values()) if isinstance(inputs, Mapping) else list(inputs)
        names = [n for n in node.input if n]
        if len(values) != len(names):
            raise UsageError(f"node {node.op_type}: {len(values)} inputs given for {len(names)} named inputs")
        graph_inputs = [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.asarray(v).dtype), np.shape(v))
            for n, v in zip(names, values, strict=True)
        ]
        graph_outputs = [helper.make_empty_tensor_value_info(n) for n in node.output if n]
        graph = helper.make_graph([node], "run_node", graph_inputs, graph_outputs)
        opset = kwargs.get("opset_version", onnx.defs.onnx_opset_version())
        imports = [helper.make_opsetid(node.domain, opset)]
        if node.domain not in ("", "ai.onnx"):
            imports.append(helper.make_opsetid("", onnx.defs.onnx_opset_version()))
        model = helper.make_model(graph, opset_imports=imports)
        return cls.prepare(model, device).run(values)


prepare = SonnxBackend.prepare
run_model = SonnxBackend.run_model
run_node = SonnxBackend.run_node
supports_device = SonnxBackend.supports_device
