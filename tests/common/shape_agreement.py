"""OP-SHAPES's derived shapes held against onnx's shape inference on one model file, and the run that decides.

Both derive the shapes of a model's tensors with the symbolic input
dimensions fixed (to the sizes of the model's example inputs, else 1). onnx
is given the model without its value_info and without the declared shapes
of its outputs (unenforced declarations, which the analysis never reads), so
that both start from the same facts. Where both give a fully static shape
and they differ, a run of sonnx's executor on inputs of those shapes says
which is wrong: the array the run computes has the true shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import onnx
import z3
from onnx import helper, shape_inference

from sonnx.execution.executor import trial_run
from sonnx.loader.load import load_model
from sonnx.model.graph import Model
from sonnx.rules.shapes_analysis import Analysis, analyse


class Difference(NamedTuple):
    tensor: str
    ours: tuple[int, ...]
    onnx: tuple[int, ...]
    actual: tuple[int, ...] | None
    """The shape the run gave (None: the run did not reach the tensor)."""

    @property
    def wrong(self) -> str:
        """Which derivation the run contradicts: ``ours``, ``onnx``, ``both`` or ``undecided``."""
        if self.actual is None:
            return "undecided"
        if self.actual == self.ours:
            return "onnx"
        return "ours" if self.actual == self.onnx else "both"


class Agreement(NamedTuple):
    compared: int
    differences: tuple[Difference, ...]


def example_sizes(model: Model, a: Analysis, inputs: Mapping[str, np.ndarray]) -> dict[str, int]:
    """Each symbolic dimension's size in the example inputs, else 1."""
    sizes = dict.fromkeys(a.variables, 1)
    for name in model.graph.inputs:
        info, value = a.infos.get(name), inputs.get(name)
        if info is None or value is None:
            continue
        for d, n in zip(info.shape, np.shape(value), strict=False):
            if not isinstance(d, int):
                sizes[str(d)] = int(n)
    return sizes


def fixed(shape: tuple[Any, ...], a: Analysis, sizes: Mapping[str, int]) -> tuple[int, ...]:
    pairs = [(v, z3.IntVal(sizes[n])) for n, v in a.variables.items()]
    out = []
    for d in shape:
        out.append(d if isinstance(d, int) else int(z3.simplify(z3.substitute(d, *pairs)).as_long()))
    return tuple(out)


def onnx_shapes(path: Path, a: Analysis, sizes: Mapping[str, int]) -> dict[str, tuple[int, ...]]:
    """The static shapes onnx infers with the symbolic dimensions fixed and the declarations cleared."""
    proto = onnx.load(str(path), load_external_data=False)
    del proto.graph.value_info[:]
    for out in proto.graph.output:
        if out.type.HasField("tensor_type"):
            out.type.tensor_type.ClearField("shape")
    for inp in proto.graph.input:
        if inp.type.HasField("tensor_type") and inp.type.tensor_type.HasField("shape"):
            for k, d in enumerate(inp.type.tensor_type.shape.dim):
                name = d.dim_param or f"{inp.name}[{k}]"
                if not d.HasField("dim_value") and name in sizes:
                    d.dim_value = sizes[name]
    inferred = shape_inference.infer_shapes(proto, data_prop=True)
    got: dict[str, tuple[int, ...]] = {}
    for vi in [*inferred.graph.value_info, *inferred.graph.output]:
        t = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
        if t is not None and t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            got[vi.name] = tuple(int(d.dim_value) for d in t.shape.dim)
    return got


def _feeds(model: Model, a: Analysis, sizes: Mapping[str, int], given: Mapping[str, np.ndarray]) -> dict[str, Any]:
    feeds: dict[str, Any] = {}
    for name in model.graph.inputs:
        t = model.graph.tensors.get(name)
        if t is None or t.initial_value is not None or name not in a.infos or t.type is None:
            continue
        if name in given:
            feeds[name] = given[name]
            continue
        dtype = helper.tensor_dtype_to_np_dtype(t.type.elem_type)
        feeds[name] = np.zeros(fixed(a.infos[name].shape, a, sizes), dtype)
    return feeds


def agreement(path: Path, inputs: Path | None = None) -> Agreement:
    """Every tensor both derive a static shape for, compared; each difference decided by a run."""
    model = load_model(str(path))
    a = analyse(model)
    given = dict(np.load(inputs)) if inputs is not None else {}
    sizes = example_sizes(model, a, given)
    theirs = onnx_shapes(path, a, sizes)
    compared, differences = 0, []
    run_values: Mapping[str, Any] | None = None
    for name, info in a.infos.items():
        if name not in theirs or (model.graph.tensors.get(name, None) is not None and name in model.graph.initialized):
            continue
        compared += 1
        ours = fixed(info.shape, a, sizes)
        if ours != theirs[name]:
            if run_values is None:
                run_values = trial_run(model, _feeds(model, a, sizes, given)).values
            actual = tuple(np.shape(run_values[name])) if name in run_values else None
            differences.append(Difference(name, ours, theirs[name], actual))
    return Agreement(compared, tuple(differences))


def made_dynamic(path: Path, dest: Path) -> Model:
    """The image model at ``path`` with its first input's batch, height and width made symbolic (B, H, W)."""
    proto = onnx.load(str(path))
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    for k, name in ((0, "B"), (2, "H"), (3, "W")):
        dims[k].dim_param = name
    onnx.save(proto, str(dest))
    return load_model(str(dest))
