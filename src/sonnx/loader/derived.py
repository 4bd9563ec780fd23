"""The types onnx's inference derives for a model held in memory, from its file or from the bytes it is written as.

GRAPH-IF-BRANCHES and STRICT-BROADCAST judge the types onnx's shape inference
derives from enforced facts only (spec 9.4; :func:`.load.load_model` with
``infer_shapes=True``: the declarations no runtime enforces removed first).
The check of a file gets them from the bytes the loader read
(:func:`.load.load_model_and_derived`, wrapped in :class:`Given`). A model held
in memory (a rewrite's candidate, a partition's subgraph, a model a caller
built or changed) gets them through :class:`ReadAgain`, from:

* its file, when the file still holds the model being checked. A model
  changed after it was read keeps the path of its file, and types inferred for
  the file would not be its own, so the file's reading is used only when its
  structure is the checked model's (:func:`same_structure`), and, when the
  caller gives the model's bytes (a model it may have changed), its stored
  values too (:func:`same_values`);
* otherwise (no file, or a file that no longer holds the model), the bytes of
  the model itself as ONNX, when the caller gives a way to obtain them
  (:func:`.writer.model_bytes`): they are written to a private temporary file,
  read the same way, and used only when they read back as the same structure
  and values. Those bytes are the file the model is written as (``sonnx
  rewrite``, ``sonnx partition``), so the derived types are those of what the
  runtimes execute;
* with neither, there are no derived types (the rules say UNKNOWN).

Both are called by the rules through their check context
(:attr:`sonnx.rules.base.CheckConfig.derived_types`), at most once per check.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import SonnxError
from ..model.graph import Attribute, Graph, Model
from ..model.structure import walk_scopes
from .load import Derived, load_model, no_inferred_types
from .writer import model_bytes

CHANGED = "the model is not the one its file holds (changed after it was read)"


def _value_key(v: Any) -> Any:
    """An attribute value as compared: a tensor by element type, dimensions and layout (its reader differs)."""
    if hasattr(v, "data_type") and hasattr(v, "dims"):
        return ("tensor", v.data_type, tuple(v.dims), v.sparse)
    if isinstance(v, tuple | list):
        return tuple(_value_key(x) for x in v)
    return v


def _attribute_key(a: Attribute) -> Any:
    if a.type in ("GRAPH", "GRAPHS"):  # the graphs are compared as scopes of their own
        return a.name, a.type
    return a.name, a.type, _value_key(a.value)


def _initial(g: Graph) -> dict[str, Any]:
    return {n: _value_key(t.initial_value) for n, t in g.tensors.items() if t.initial_value is not None}


def same_structure(a: Model, b: Model) -> bool:
    """Whether ``a`` and ``b`` have the same opsets, graphs, operations, attributes, initial values' types and
    shapes, and main-graph input declarations (the facts the derived types rest on)."""
    if a.ir_version != b.ir_version or dict(a.opset_imports) != dict(b.opset_imports):
        return False
    sa, sb = walk_scopes(a.graph), walk_scopes(b.graph)
    if len(sa) != len(sb):
        return False
    for x, y in zip(sa, sb, strict=True):
        gx, gy = x.graph, y.graph
        if (x.path, x.parent, gx.inputs, gx.outputs) != (y.path, y.parent, gy.inputs, gy.outputs):
            return False
        if len(gx.operations) != len(gy.operations) or _initial(gx) != _initial(gy):
            return False
        for p, q in zip(gx.operations, gy.operations, strict=True):
            if p[:5] != q[:5] or [_attribute_key(t) for t in p.attributes] != [_attribute_key(t) for t in q.attributes]:
                return False
    return _input_types(a) == _input_types(b)


def _values(m: Model) -> Iterator[tuple[Any, Any]]:
    """Every stored value of ``m`` with where it is: initial values and tensor attributes (``Constant``'s ``value``
    among them), scope by scope."""
    for k, sc in enumerate(walk_scopes(m.graph)):
        for n, t in sorted(sc.graph.tensors.items()):
            if t.initial_value is not None:
                yield (k, "tensor", n), t.initial_value
        for j, op in enumerate(sc.graph.operations):
            for a in op.attributes:
                if a.type in ("TENSOR", "SPARSE_TENSOR"):
                    yield (k, "attribute", j, a.name), a.value
                elif a.type in ("TENSORS", "SPARSE_TENSORS"):
                    yield from (((k, "attribute", j, a.name, i), v) for i, v in enumerate(a.value))


def _elements(v: Any) -> Any:
    arr = np.asarray(v.read())
    return arr.dtype.str, arr.shape, (arr.tolist() if arr.dtype == object else arr.tobytes())


def same_values(a: Model, b: Model) -> bool:
    """Whether the stored values of ``a`` and ``b`` (two models of the same structure) hold the same elements.

    onnx's inference reads some values as data (the shape of a ``Reshape``, the
    starts of a ``Slice``, a ``Constant`` that feeds them), so a value changed
    in memory after the file was read changes the types derived for it; bytes
    are compared (a NaN equals itself). A value that cannot be read is not
    known to be the same.
    """
    try:
        xs, ys = dict(_values(a)), dict(_values(b))
        return xs.keys() == ys.keys() and all(_elements(v) == _elements(ys[key]) for key, v in xs.items())
    except SonnxError:
        return False


def _input_types(m: Model) -> list[Any]:
    """The main graph's declared input types, symbolic names left out (the file read again renames them)."""
    out: list[Any] = []
    for n in m.graph.inputs:
        t = m.graph.tensors.get(n)
        ty = t.type if t is not None else None
        levels: list[Any] = []
        while ty is not None:
            shape = None if ty.shape is None else tuple(None if isinstance(d, str) else d for d in ty.shape)
            levels.append((ty.kind, ty.elem_type, shape))
            ty = ty.element
        out.append(levels)
    return out


def _from_file(model: Model, path: str, values: bool) -> tuple[Derived, bool]:
    """The file's reading, or why there is none; the flag says the file holds another model (so its bytes may not
    stand for the checked one). ``values``: the stored values must be the same too (a model given in memory)."""
    try:
        derived = load_model(path, read_weights=False, infer_shapes=True)
    except SonnxError as exc:
        return Derived(None, no_inferred_types(exc, path)), False
    if not same_structure(model, derived) or (values and not same_values(model, derived)):
        return Derived(None, CHANGED), True
    return Derived(derived), False


def _from_bytes(model: Model, serialized: Callable[[Model], bytes]) -> Derived:
    """The reading of the model's own ONNX bytes, through a private temporary file removed at once."""
    try:
        data = serialized(model)
    except SonnxError as exc:
        return Derived(None, f"the model cannot be written as ONNX: {exc.one_line()}")
    try:
        fd, tmp = tempfile.mkstemp(prefix="sonnx-derived-", suffix=".onnx")  # mode 0600: private to this user
    except OSError as exc:
        return Derived(None, f"no temporary file to read the model from: {exc.strerror or exc}")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        del data
        derived = load_model(tmp, read_weights=False, infer_shapes=True)
    except SonnxError as exc:
        return Derived(None, no_inferred_types(exc, tmp))
    except OSError as exc:
        return Derived(None, f"no temporary file to read the model from: {exc.strerror or exc}")
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    if not same_structure(model, derived) or not same_values(model, derived):
        return Derived(None, "the model written as ONNX does not read back as the same model")
    return Derived(derived)


@dataclass(frozen=True)
class ReadAgain:
    """The derived types of a model held in memory: its file's when the file holds it, else those of the bytes
    ``serialized`` writes for it (None: only its file; see the module text)."""

    serialized: Callable[[Model], bytes] | None = None

    def __call__(self, model: Model, read_weights: bool) -> Derived:
        """The derived types of ``model``; ``read_weights`` False: none of its stored values may be read."""
        if self.serialized is not None and not read_weights:
            # comparing or writing the stored values would read them, which a structure-only check never does
            return Derived(None, "a model given in memory and checked for structure only may not be its file's")
        found, other = Derived(None, "the model was not read from a file"), True
        path = model.source
        if path and os.path.isfile(path):
            found, other = _from_file(model, path, self.serialized is not None)
            if found.model is not None:
                return found
        if not other or self.serialized is None:
            return found
        return _from_bytes(model, self.serialized)


IN_MEMORY = ReadAgain(model_bytes)
"""The derived types of a model held in memory, from the bytes it is written as when its file does not hold it."""


@dataclass(frozen=True, eq=False)
class Given:
    """The derived types the loader read with ``model`` (:func:`.load.load_model_and_derived`), for the check of
    that model: None when the check did not ask for them."""

    model: Model
    derived: Derived | None

    def __call__(self, model: Model, read_weights: bool) -> Derived:
        if model is not self.model:
            return Derived(None, CHANGED)
        if self.derived is None:
            return Derived(None, "the types onnx derives were not read with the model (a defect of the check)")
        return self.derived
