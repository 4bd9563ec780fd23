"""Random values of the input kinds that are not tensors: maps, sequences and optionals.

A value is drawn only where the model says enough to make one it can use;
otherwise the caller gets a one-line :class:`~sonnx.base.errors.ExecutionError`
asking for the value (``--inputs FILE.json``), never a guess:

* a map read by a ``DictVectorizer`` (ai.onnx.ml) takes its keys from that
  operator's vocabulary (``string_vocabulary`` or ``int64_vocabulary``, the
  one that matches the declared key type): each word of the vocabulary is in
  the map with probability 1/2, at least one always; its values are drawn
  like a tensor of the declared value type (one element each), as NumPy
  scalars of that type;
* a sequence whose element type is a tensor with a declared element type and
  rank holds :data:`SEQUENCE_LENGTH` drawn tensors;
* an optional holds a value (drawn as its element type): a run on the empty
  optional is for the caller to ask for.

The random generator is the one the tensors are drawn with, so the values are
a function of the seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto

from ...base.errors import ExecutionError
from ...model.graph import Model, TensorType
from .tensors import random_array

SEQUENCE_LENGTH = 2
"""How many tensors a drawn sequence holds."""

_ML = "ai.onnx.ml"


def is_structured(ttype: TensorType | None) -> bool:
    """True for the declared kinds drawn here (map, sequence, optional) rather than by :mod:`.tensors`."""
    return ttype is not None and ttype.kind in ("map", "sequence", "optional")


def _vocabulary(model: Model, name: str, key_type: int) -> list[Any]:
    """The keys a DictVectorizer of the main graph reading ``name`` knows, typed as ``key_type`` asks."""
    want = "string_vocabulary" if key_type == TensorProto.STRING else "int64_vocabulary"
    for op in model.graph.operations:
        if op.domain != _ML or op.operator != "DictVectorizer" or op.input_mapping[:1] != (name,):
            continue
        attr = op.attribute(want)
        if attr is None or not len(attr.value):
            continue
        if key_type == TensorProto.STRING:
            return [v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v) for v in attr.value]
        return [int(v) for v in attr.value]
    return []


def _scalar(name: str, ttype: TensorType | None, rng: np.random.Generator) -> Any:
    """One map value: a NumPy scalar of the declared value type (a ``str`` for STRING)."""
    if ttype is None or ttype.kind != "tensor" or ttype.elem_type == 0:
        raise ExecutionError(f"input {name!r}: the map's value type is not a declared tensor type; give its value")
    value = random_array(name, TensorType("tensor", ttype.elem_type, ()), rng, 1)
    return value.item() if ttype.elem_type == TensorProto.STRING else value[()]


def _draw_map(model: Model, name: str, ttype: TensorType, rng: np.random.Generator) -> dict[Any, Any]:
    if ttype.elem_type not in (TensorProto.STRING, TensorProto.INT64):
        raise ExecutionError(f"input {name!r}: a map with keys of element type {ttype.elem_type}; give its value")
    vocabulary = _vocabulary(model, name, ttype.elem_type)
    if not vocabulary:
        raise ExecutionError(
            f"input {name!r} is a map whose keys the model does not name (no DictVectorizer vocabulary reads it); "
            "give its value with --inputs FILE.json"
        )
    keep = rng.random(len(vocabulary)) < 0.5
    keep[int(rng.integers(0, len(vocabulary)))] = True
    return {k: _scalar(name, ttype.element, rng) for k, kept in zip(vocabulary, keep, strict=True) if kept}


def draw_structured(
    model: Model, name: str, ttype: TensorType | None, rng: np.random.Generator, symbolic_dim: int
) -> Any:
    """A random value of the declared non-tensor type ``ttype`` (see the module text), or a one-line error."""
    if ttype is None:
        raise ExecutionError(f"input {name!r} has no declared type; give its value")
    if ttype.kind == "map":
        return _draw_map(model, name, ttype, rng)
    element = ttype.element
    if ttype.kind == "optional":
        if is_structured(element):
            return draw_structured(model, name, element, rng, symbolic_dim)
        return random_array(name, element, rng, symbolic_dim)
    if ttype.kind == "sequence":
        if element is None or element.kind != "tensor" or element.elem_type == 0 or element.shape is None:
            raise ExecutionError(
                f"input {name!r} is a sequence without a declared tensor element type and rank; "
                "give its value with --inputs FILE.json"
            )
        return [random_array(name, element, rng, symbolic_dim) for _ in range(SEQUENCE_LENGTH)]
    raise ExecutionError(f"input {name!r} has no declared tensor type and shape; give its value")


def uniform_between(lo: float, hi: float, shape: tuple[int, ...], dtype: np.dtype[Any], seed: int) -> np.ndarray:
    """Values drawn uniformly in ``[lo, hi]`` with a seeded generator: the candidate inputs of the
    error-condition rules' search (spec/operators.rst section 5), which they reach through
    :attr:`sonnx.rules.base.CheckConfig.draw_uniform`.

    Floats are drawn in ``[lo / 2, hi / 2]`` and doubled, since the width of the whole float range overflows,
    then clipped to the bounds; integers are drawn with both bounds included. The same arguments give the same
    values, so a witness's recipe (bounds, shape, dtype, seed) re-derives its input.
    """
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.floating):
        return np.asarray(np.clip(rng.uniform(float(lo) / 2, float(hi) / 2, shape) * 2, lo, hi).astype(dtype))
    wide = np.uint64 if hi > 2**63 - 1 else np.int64
    return np.asarray(rng.integers(int(lo), int(hi), shape, endpoint=True, dtype=wide).astype(dtype))
