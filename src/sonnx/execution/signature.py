"""Values checked against a model's declared inputs: element type, rank, static and symbolic dimensions.

The executor refuses to run a model on values that contradict the types the
model declares, instead of computing something else (float64 arithmetic for a
FLOAT input, say, or a cross-check on a wrong-shaped input reported as
agreeing). What is checked, for every graph input given a value:

* a declared tensor: the array's dtype is exactly the element type's (ml_dtypes
  types for those NumPy lacks); with a declared shape, the rank is the
  declared rank and every fixed dimension is that size;
* a symbolic dimension (``dim_param``) has one size across all inputs that use
  its name;
* a declared sequence: a list whose every element fits the element type; an
  optional: the empty optional or a value that fits; a map: a dict.

Undeclared parts (element type 0, unknown rank, unnamed dimensions) accept
anything.

The same test, run on the values a run produced for the graph outputs, is
:func:`output_misfits`: a declared output type is a claim of the file that no
runtime enforces (onnxruntime only warns when a result contradicts it), so a
contradiction is reported as a finding beside the results, never as a
refusal and never as a changed result (spec/graph.rst, "What the runtimes enforce";
STRICT-SHAPES judges the declarations, not what runs produce).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from ..base.errors import ExecutionError
from ..model.graph import Model, TensorType
from ..ops.values import EmptyOptional, describe, elem_type_name, numpy_dtype


class InputValueError(ExecutionError):
    """A given input value contradicts the model's declaration of that input."""


def declared(ttype: TensorType | None) -> str:
    """The declaration as messages show it: ``FLOAT [1, 3, 'N', ?]``, ``sequence of INT64 [?]``..."""
    if ttype is None:
        return "undeclared"
    if ttype.kind in ("sequence", "optional"):
        return f"{ttype.kind} of {declared(ttype.element)}"
    if ttype.kind == "map":
        return f"map from {elem_type_name(ttype.elem_type)} to {declared(ttype.element)}"
    if ttype.kind not in ("tensor", "sparse_tensor"):
        return ttype.kind
    elem = elem_type_name(ttype.elem_type) if ttype.elem_type else "any type"
    if ttype.shape is None:
        return f"{elem} of any shape"
    dims = ", ".join("?" if d is None else repr(d) if isinstance(d, str) else str(d) for d in ttype.shape)
    return f"{elem} [{dims}]"


def _check_tensor(name: str, ttype: TensorType, value: Any, symbols: dict[str, tuple[int, str]] | None) -> str | None:
    """Why ``value`` does not fit the tensor declaration (None when it fits); binds symbols when given."""
    if not isinstance(value, np.ndarray):
        return f"a tensor is declared, {describe(value)} is given"
    if ttype.elem_type and value.dtype != numpy_dtype(ttype.elem_type):
        return f"element type {value.dtype} is given"
    if ttype.shape is None:
        return None
    if value.ndim != len(ttype.shape):
        return f"rank {value.ndim} (shape {list(value.shape)}) is given"
    for axis, (want, got) in enumerate(zip(ttype.shape, value.shape, strict=True)):
        if isinstance(want, int) and want >= 0 and want != got:
            return f"dimension {axis} is {got}, declared {want}"
        if isinstance(want, str) and want and symbols is not None:
            seen = symbols.setdefault(want, (got, name))
            if seen[0] != got:
                return f"dimension {axis} ({want!r}) is {got}, but {want!r} is {seen[0]} in input {seen[1]!r}"
    return None


def _misfit(name: str, ttype: TensorType | None, value: Any, symbols: dict[str, tuple[int, str]] | None) -> str | None:
    if ttype is None:
        return None
    if ttype.kind in ("tensor", "sparse_tensor"):
        return _check_tensor(name, ttype, value, symbols)
    if ttype.kind == "sequence":
        if not isinstance(value, list):
            return f"a sequence is declared, {describe(value)} is given"
        for k, item in enumerate(value):
            why = _misfit(name, ttype.element, item, None)
            if why:
                return f"element {k}: {why}"
        return None
    if ttype.kind == "optional":
        return None if isinstance(value, EmptyOptional) else _misfit(name, ttype.element, value, symbols)
    if ttype.kind == "map" and not isinstance(value, dict):
        return f"a map is declared, {describe(value)} is given"
    return None


def check_inputs(model: Model, values: Mapping[str, Any]) -> None:
    """Refuse (:class:`InputValueError`) the first given input that contradicts its declaration.

    The message names the input, its declared type and shape, and what was given.
    """
    symbols: dict[str, tuple[int, str]] = {}
    g = model.graph
    for name in g.inputs:
        if name not in values:
            continue
        ttype = g.tensor(name).type
        why = _misfit(name, ttype, values[name], symbols)
        if why:
            raise InputValueError(
                f"input {name!r}: declared {declared(ttype)}, given {describe(values[name])}: {why}"
            )



class OutputMisfit(NamedTuple):
    """A graph output whose produced value contradicts its declared type."""

    name: str
    declared: str
    produced: str
    why: str

    def line(self) -> str:
        """``output 'label' is declared INT64 [1] but the run produced int64[10] (dimension 0 is 10, declared 1)``."""
        return f"output {self.name!r} is declared {self.declared} but the run produced {self.produced} ({self.why})"

    def to_json(self) -> dict[str, str]:
        return {"output": self.name, "declared": self.declared, "produced": self.produced, "why": self.why}


def output_misfits(model: Model, inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> list[OutputMisfit]:
    """Every produced graph output that contradicts its declaration, in the order of the graph's outputs.

    Element type, rank and every fixed dimension are compared as for inputs; a
    symbolic dimension must have the size it has in the inputs (bound from
    ``inputs`` first) and in the outputs before it. An empty optional may be
    given as None, as onnxruntime returns it. Outputs absent from
    ``outputs`` are not judged here.
    """
    symbols: dict[str, tuple[int, str]] = {}
    g = model.graph
    for name in g.inputs:
        if name in inputs:
            _misfit(name, g.tensor(name).type, inputs[name], symbols)
    out = []
    for name in g.outputs:
        if name not in outputs:
            continue
        ttype, value = g.tensor(name).type, outputs[name]
        if isinstance(value, np.ndarray) and value.dtype.kind == "U":  # how onnx's reference evaluator holds strings
            value = value.astype(object)
        if value is None and ttype is not None and ttype.kind == "optional":
            continue
        why = _misfit(name, ttype, value, symbols)
        if why:
            out.append(OutputMisfit(name, declared(ttype), describe(value), why))
    return out
