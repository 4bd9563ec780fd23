"""Reading a Pad operation's parameters, for every opset, as one per-axis description.

Pad-1 has ``paddings`` and ``value`` attributes; Pad-2 ``pads`` and
``value``; Pad-11 on takes ``pads`` and ``constant_value`` as inputs, and
Pad-18 on an ``axes`` input. The passes need the parameters as constants: an
input that is not a constant initializer makes the Pad unknown (refused).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.graph import Attribute, Graph, Model, Operation
from .base import (
    Pass,
    ai_onnx_opset,
    captured_names,
    constant_array,
    producer,
    prune,
    readers,
    rebuild,
    static_shape,
    with_graph,
)


@dataclass(frozen=True)
class PadParams:
    """A Pad normalised over every axis of its input: begin and end counts, mode, fill value."""

    begin: tuple[int, ...]
    end: tuple[int, ...]
    mode: str
    fill: Any
    """The fill value as a NumPy scalar, or None when not given (the type's zero)."""

    @property
    def rank(self) -> int:
        return len(self.begin)

    @property
    def is_nop(self) -> bool:
        return not any(self.begin) and not any(self.end)


def _mode(op: Operation) -> str:
    a = op.attribute("mode")
    if a is None:
        return "constant"
    v = a.value
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _rank_hint(g: Graph, op: Operation) -> int | None:
    shape = static_shape(g, op.input_mapping[0]) if op.input_mapping else None
    if shape is not None:
        return len(shape)
    t = g.tensors.get(op.input_mapping[0]) if op.input_mapping else None
    if t is not None and t.type is not None and t.type.shape is not None:
        return len(t.type.shape)
    return None


def pad_params(model: Model, op: Operation) -> PadParams | str:
    """The Pad's parameters, or why they are not known constants."""
    g = model.graph
    if not op.input_mapping or not op.input_mapping[0] or not op.output_mapping or not op.output_mapping[0]:
        return "Pad without its data input or output"
    opset = ai_onnx_opset(model)
    mode = _mode(op)
    fill: Any = None
    if opset < 11:
        key = "paddings" if opset < 2 else "pads"
        a = op.attribute(key)
        if a is None:
            return f"Pad without its {key} attribute"
        pads = [int(p) for p in a.value]
        v = op.attribute("value")
        fill = np.float32(v.value) if v is not None else None
        axes = None
    else:
        if len(op.input_mapping) < 2 or not op.input_mapping[1]:
            return "Pad without its pads input"
        arr = constant_array(g, op.input_mapping[1])
        if arr is None:
            return f"pads {op.input_mapping[1]!r} is not a constant initializer"
        pads = [int(p) for p in arr.reshape(-1).tolist()]
        if len(op.input_mapping) > 2 and op.input_mapping[2]:
            cv = constant_array(g, op.input_mapping[2])
            if cv is None:
                return f"constant_value {op.input_mapping[2]!r} is not a constant initializer"
            if cv.size > 1:
                return "constant_value is not a scalar"
            fill = cv.reshape(-1)[0] if cv.size == 1 else None
        axes = None
        if opset >= 18 and len(op.input_mapping) > 3 and op.input_mapping[3]:
            ax = constant_array(g, op.input_mapping[3])
            if ax is None:
                return f"axes {op.input_mapping[3]!r} is not a constant initializer"
            axes = [int(x) for x in ax.reshape(-1).tolist()]
    if axes is None:
        if len(pads) % 2:
            return f"pads has an odd number ({len(pads)}) of values"
        rank = len(pads) // 2
        axes = list(range(rank))
    else:
        hint = _rank_hint(g, op)
        if hint is None:
            return "the Pad has an axes input and its data rank is not declared"
        rank = hint
        if len(pads) != 2 * len(axes):
            return f"pads has {len(pads)} values for {len(axes)} axes"
        norm = []
        for x in axes:
            if not -rank <= x < rank:
                return f"axis {x} out of range for rank {rank}"
            norm.append(x % rank)
        if len(set(norm)) != len(norm):
            return "axes repeats an axis"
        axes = norm
    hint = _rank_hint(g, op)
    if hint is not None and hint != rank:
        return f"pads describe {rank} axes but the data has rank {hint}"
    begin = [0] * rank
    end = [0] * rank
    count = len(axes)
    for i, axis in enumerate(axes):
        begin[axis] = pads[i]
        end[axis] = pads[count + i]
    return PadParams(tuple(begin), tuple(end), mode, fill)


# ------------------------------------------------------------------------------------------- fusion


@dataclass(frozen=True)
class Fusion:
    """A Pad feeding a windowed operation, with the merged explicit padding of the fused operation."""

    pad: Operation
    consumer: Operation
    params: PadParams
    pads: tuple[int, ...]
    """The consumer's own explicit padding (begin counts then end counts of the spatial axes)."""
    merged: tuple[int, ...]


def find_fusion(model: Model, consumer: Operation) -> Fusion | str:
    """The Pad feeding ``consumer``'s data input and the merged padding, or why there is none.

    Checks the conditions shared by the Conv and pooling fusions: the Pad's
    output is read only by this consumer (at its data input), it is not a
    graph output nor read by a nested graph; mode ``constant``; no negative
    count (a negative count crops, which a window's padding cannot express);
    no padding on the batch and channel axes (the consumer keeps those sizes);
    the consumer's ``auto_pad`` is NOTSET or VALID (SAME_* derives its padding
    from the input size, which the fusion changes).
    """
    g = model.graph
    if consumer.domain or not consumer.input_mapping or not consumer.input_mapping[0]:
        return "not a standard operation with a data input"
    t = consumer.input_mapping[0]
    k = producer(g, t)
    if k is None or g.operations[k].operator != "Pad" or g.operations[k].domain:
        return "its data input is not produced by a Pad"
    pad = g.operations[k]
    if readers(g, t) != [(g.operations.index(consumer), 0)]:
        return f"the Pad's output {t!r} has other readers"
    if t in g.outputs or t in captured_names(g):
        return f"the Pad's output {t!r} is a graph output or read by a nested graph"
    p = pad_params(model, pad)
    if isinstance(p, str):
        return p
    if p.mode != "constant":
        return f"Pad mode {p.mode!r}: only constant padding is what a window's padding means"
    if any(x < 0 for x in p.begin + p.end):
        return "a negative pad count crops the input; a window's padding cannot crop"
    if p.rank < 3:
        return f"the data has rank {p.rank}; a windowed operation needs N x C x D1 ..."
    if p.begin[0] or p.begin[1] or p.end[0] or p.end[1]:
        return "the Pad pads the batch or channel axis, whose size the consumer keeps"
    auto = consumer.attribute("auto_pad")
    auto_pad = auto.value if auto is not None else "NOTSET"
    if isinstance(auto_pad, bytes):
        auto_pad = auto_pad.decode("utf-8")
    if auto_pad not in ("NOTSET", "VALID"):
        return f"auto_pad {auto_pad}: the padding would be derived from the padded size, which the fusion changes"
    nsp = p.rank - 2
    own = consumer.attribute("pads")
    pads = tuple(int(x) for x in own.value) if own is not None and auto_pad == "NOTSET" else (0,) * (2 * nsp)
    if len(pads) == 0:
        pads = (0,) * (2 * nsp)
    if len(pads) != 2 * nsp:
        return f"the consumer's pads has {len(pads)} values for {nsp} spatial axes"
    merged = tuple(pads[i] + p.begin[2 + i] for i in range(nsp)) + tuple(
        pads[nsp + i] + p.end[2 + i] for i in range(nsp)
    )
    return Fusion(pad, consumer, p, pads, merged)


def is_positive_zero(fill: Any) -> bool:
    """True for an absent fill (the type's zero) or a zero whose sign bit is clear."""
    if fill is None:
        return True
    v = np.asarray(fill)
    if v.dtype.kind in "iub":
        return bool(v == 0)
    return bool(v == 0) and not bool(np.signbit(v))


def fused_model(model: Model, f: Fusion, extra: tuple[Any, ...] = ()) -> Model:
    """The model with the Pad removed and the consumer reading the Pad's input with the merged padding."""
    drop = {"auto_pad", "pads"} | {a.name for a in extra}
    attrs = [a for a in f.consumer.attributes if a.name not in drop]
    attrs += [Attribute("auto_pad", "STRING", "NOTSET"), Attribute("pads", "INTS", f.merged), *extra]
    attrs.sort(key=lambda a: a.name)
    inputs = (f.pad.input_mapping[0], *f.consumer.input_mapping[1:])
    new = f.consumer._replace(input_mapping=inputs, attributes=tuple(attrs))
    g = model.graph
    ops = [new if o is f.consumer else o for o in g.operations if o is not f.pad]
    tensors = dict(g.tensors)
    tensors.pop(f.consumer.input_mapping[0], None)
    return with_graph(model, prune(rebuild(g, ops, tensors)))


class PadFusion(Pass):
    """A pass that fuses a Pad into the windowed operation reading it (its explicit ``pads`` grow).

    Subclasses say in :meth:`fusion` whether ``op`` can take its Pad, and with
    which attributes set besides the merged padding; the precondition and the
    transformation both follow from that one answer.
    """

    @abstractmethod
    def fusion(self, model: Model, op: Operation) -> tuple[Fusion, tuple[Attribute, ...]] | str:
        """The fusion and the attributes the fused operation gets, or why ``op`` cannot take its Pad."""

    def requires(self, model: Model, op: Operation) -> str | None:
        got = self.fusion(model, op)
        return got if isinstance(got, str) else None

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        got = self.fusion(model, op)
        assert not isinstance(got, str)
        f, extra = got
        set_too = "".join(f" and {a.name} = {a.value}" for a in extra)
        return fused_model(model, f, extra), f"Pad fused into {op.label}: pads {list(f.merged)}{set_too}"
