"""GRAPH-R2: the conditions on casts and on repeated axes, decided from the model's constants.

Two kinds of open points of the operator texts (spec, GRAPH-R2; reading A8):

* a cast (``Cast``, ``CastLike``) of a value the target type cannot
  represent: the text leaves a floating-point value out of an integer type's
  range undefined (x86 and ARM give different integers; NaN and the
  infinities are out of every range), a string to an integer type too, and a
  negative value or -0 to ``FLOAT8E8M0``. A constant input is checked element
  by element against the target's range; an input computed at run time is
  deterministic only when its element type, where it holds at run time
  (:mod:`.premises`), is an integer or boolean type (converted by rules the text defines), otherwise unknown;
* a ``QuantizeLinear`` to an integer type whose quotient ``x / y_scale``
  may be NaN: the text saturates values out of range but places no NaN, and
  x86 and ARM give different integers for it;
* the locale of ``StringNormalizer``, which the text leaves to the
  environment: changing case, or comparing stopwords without regard to case,
  makes the outputs depend on it, so such an operation is unknown;
* an axis named twice (``Slice``, ``Pad``, ``Resize``, ``CenterCropPad``):
  "behavior is undefined if an axis is repeated". The axes come from an
  attribute or from a constant input; a negative axis counts from the back,
  so it is compared with the others through the data's rank where it holds at
  run time.

Each function reads constants through ``read`` (the rule's own reading of
initializers and ``Constant`` outputs) and returns the operation's class with
its reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from onnx import TensorProto

from ..model.graph import Operation
from . import determinism_table as table
from .premises import RuntimeType

DET, NONDET, UNKNOWN = "deterministic", "nondeterministic", "unknown"
Outcome = tuple[str, str]


class Value(Protocol):
    """What the rule knows of a tensor's value: ``kind`` is ``value``, ``runtime`` or ``unread``."""

    kind: str
    what: str
    array: np.ndarray | None


AXES_INPUT = 3
"""The position of the axes input (``Slice`` from version 10 and ``Pad`` from 18 both have it fourth)."""
Reader = Callable[[str, str], Value]
"""(tensor name, role in the reason) -> what is known of its value."""
Types = Callable[[str], RuntimeType]
"""tensor name -> what holds at run time of its element type and dimensions (:func:`.premises.runtime_type`)."""


def elem_type(types: Types, name: str) -> int:
    """The element type of ``name`` where it holds at run time (:mod:`.premises`); 0 when it is not established
    (an omitted name, a computed tensor, a declaration no runtime enforces)."""
    return types(name).elem_type if name else 0


def rank_of(types: Types, name: str) -> int | None:
    """The rank of ``name`` where it holds at run time (:mod:`.premises`), or None when it is not established."""
    dims = types(name).dims if name else None
    return None if dims is None else len(dims)


def _cast_target(types: Types, op: Operation, entry: table.Entry) -> tuple[int | None, str]:
    """The element type a Cast or CastLike converts to, or None and why it is not known."""
    if op.operator == "Cast":
        to = op.attribute("to")
        if to is None or to.type != "INT":
            what = "absent" if to is None else f"of type {to.type}, not INT"
            return None, f"Cast's attribute 'to' is {what}, so the target type is not known; {entry.reason}"
        return int(to.value), ""
    m = op.input_mapping  # CastLike: the target type is that of its second input, where it holds at run time
    target = types(m[1] if len(m) > 1 else "")
    if target.elem_type == 0:
        return None, f"CastLike's target type is not established ({target.why}); {entry.reason}"
    return target.elem_type, ""


def unrepresentable_cast(read: Reader, types: Types, op: Operation, entry: table.Entry) -> Outcome:
    """A cast whose input may hold a value its target type cannot represent."""
    target, why = _cast_target(types, op, entry)
    if target is None:
        return UNKNOWN, why
    bounds = table.INTEGER_RANGES.get(target)
    if target != TensorProto.FLOAT8E8M0 and bounds is None:
        return DET, ""
    m = op.input_mapping
    if not m or not m[0]:
        return UNKNOWN, f"the input is omitted: {entry.reason}"
    c = read(m[0], "input")
    if c.kind != "value" or c.array is None:
        exact = bounds is not None and elem_type(types, m[0]) in table.EXACT_SOURCES
        return (DET, "") if exact else (UNKNOWN, f"{c.what}: {entry.reason}")
    if c.array.dtype.kind not in table.NUMERIC_KINDS:
        return UNKNOWN, f"{c.what} holds values of type {c.array.dtype}, not numbers: {entry.reason}"
    if bounds is not None and c.array.dtype.kind != "f":  # integers and booleans: converted by defined rules
        return DET, ""
    values = c.array.astype(np.float64, copy=False).reshape(-1)
    if bounds is None:  # FLOAT8E8M0: a negative value or -0 (NaN has no sign to speak of)
        bad = np.flatnonzero(np.signbit(values) & ~np.isnan(values))
        outside = ""
    else:
        lo, hi = bounds
        below_top = values <= float(hi) if hi < 2**53 else values < float(hi + 1)  # both exact in a double
        bad = np.flatnonzero(~((values >= float(lo)) & below_top))  # NaN fails both comparisons
        outside = f", outside [{lo}, {hi}] of {TensorProto.DataType.Name(target)}"
    if bad.size:
        return NONDET, f"{c.what} holds {values[bad[0]]} at flat position {int(bad[0])}{outside}; {entry.reason}"
    return DET, ""


def _axes(read: Reader, op: Operation, entry: table.Entry) -> tuple[list[int] | None, str, str]:
    """The axes the operation names (None when not known, with why), and how the reason names them."""
    if entry.condition == table.REPEATED_AXES_ATTRIBUTE:
        a = op.attribute("axes")
        if a is None:
            return [], "", ""
        if a.type != "INTS":
            return None, f"the attribute 'axes' is of type {a.type}, not INTS: {entry.reason}", ""
        return [int(x) for x in a.value], "", "the attribute 'axes'"
    m = op.input_mapping
    if len(m) <= AXES_INPUT or not m[AXES_INPUT]:
        return [], "", ""
    c = read(m[AXES_INPUT], "axes")
    if c.kind != "value" or c.array is None:
        return None, f"{c.what}: {entry.reason}", ""
    if c.array.dtype.kind not in table.INDEX_KINDS:
        return None, f"{c.what} holds values of type {c.array.dtype}, not integers: {entry.reason}", ""
    return [int(x) for x in c.array.reshape(-1).tolist()], "", c.what


def repeated_axes(read: Reader, types: Types, op: Operation, entry: table.Entry) -> Outcome:
    """An operation whose axes may name one axis twice (through a negative and a non-negative value too)."""
    axes, why, shown = _axes(read, op, entry)
    if axes is None:
        return UNKNOWN, why
    pair = first_repeat(axes)
    rank = rank_of(types, op.input_mapping[0] if op.input_mapping else "")
    if pair is None and rank is not None:
        pair = first_repeat([a + rank if a < 0 else a for a in axes])
    if pair is not None:
        i, j = pair
        same = f"{shown} holds {axes[i]} at position {i} and {axes[j]} at position {j}, one axis"
        return NONDET, f"{same}; {entry.reason}"
    if rank is None and any(a < 0 for a in axes) and any(a >= 0 for a in axes):
        why = f"{shown} mixes negative and other axes and the data's rank is not established at run time"
        return UNKNOWN, f"{why}: {entry.reason}"
    return DET, ""


def first_repeat(values: Sequence[int]) -> tuple[int, int] | None:
    """Positions of the first value equal to an earlier one (the earlier first), or None when all differ."""
    seen: dict[int, int] = {}
    for j, v in enumerate(values):
        if v in seen:
            return seen[v], j
        seen[v] = j
    return None


def text(v: object) -> str | None:
    """A STRING attribute's value as text (the loader may keep it as bytes), None when it is neither."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return v if isinstance(v, str) else None


def locale_dependent(read: Reader, types: Types, op: Operation, entry: table.Entry) -> Outcome:
    """A StringNormalizer whose output depends on the locale: it changes case, or drops stopwords ignoring case."""
    action, sensitive, stopwords = (op.attribute(n) for n in ("case_change_action", "is_case_sensitive", "stopwords"))
    act = "NONE" if action is None else text(action.value) if action.type == "STRING" else None
    if act not in ("NONE", "LOWER", "UPPER"):
        return UNKNOWN, f"the attribute 'case_change_action' is not one of NONE, LOWER, UPPER: {entry.reason}"
    if act != "NONE":
        return UNKNOWN, f"case_change_action is {act}: {entry.reason}"
    if stopwords is None or (stopwords.type == "STRINGS" and not stopwords.value):
        return DET, ""
    if stopwords.type == "STRINGS" and sensitive is not None and sensitive.type == "INT" and sensitive.value != 0:
        return DET, ""
    return UNKNOWN, f"stopwords are compared without regard to case: {entry.reason}"


def quantized_output_type(types: Types, op: Operation) -> int | None:
    """QuantizeLinear's output element type: ``output_dtype`` when set, else the zero point's type where it holds at run
    time, else UINT8 (the default without a zero point); 0 when the zero point's type is not established, None when
    ``output_dtype`` is not an INT."""
    od = op.attribute("output_dtype")
    if od is not None and od.type != "INT":
        return None
    if od is not None and od.value != 0:
        return int(od.value)
    m = op.input_mapping
    return elem_type(types, m[2]) if len(m) > 2 and m[2] else TensorProto.UINT8


def _float_facts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which elements are NaN, zero, infinite (integers are never NaN nor infinite)."""
    v = a.astype(np.float64, copy=False).reshape(-1)
    return np.isnan(v), v == 0, np.isinf(v)


def nan_quantized(read: Reader, types: Types, op: Operation, entry: table.Entry) -> Outcome:
    """A QuantizeLinear to an integer type whose quotient ``x / y_scale`` may be NaN, a value the saturation
    rules of the text do not place. A NaN in a constant ``x`` decides it; a NaN scale too (every scale meets
    some element); a zero or an infinity on both sides may meet (0/0, inf/inf) depending on the axis, so it is
    unknown, as is any input computed at run time."""
    if op.operator == "DynamicQuantizeLinear":
        return _dynamic_nan(read, op, entry)
    out = quantized_output_type(types, op)
    if out is None or out == 0:
        what = "the attribute 'output_dtype' is not an INT"
        if out == 0:
            what = "the zero point's type is not established"
        return UNKNOWN, f"{what}, so the output type is not known: {entry.reason}"
    if out not in table.INTEGER_RANGES:
        return DET, ""
    m = op.input_mapping
    x = read(m[0], "input") if m and m[0] else None
    if x is None:
        return UNKNOWN, f"the input is omitted: {entry.reason}"
    if x.kind == "value" and x.array is not None and x.array.dtype.kind in table.NUMERIC_KINDS:
        nan = np.flatnonzero(_float_facts(x.array)[0])
        if nan.size:
            return NONDET, f"{x.what} holds nan at flat position {int(nan[0])}; {entry.reason}"
    s = read(m[1], "scale") if len(m) > 1 and m[1] else None
    for c in (x, s):
        if c is None or c.kind != "value" or c.array is None:
            return UNKNOWN, f"{c.what if c else 'the scale is omitted'}: {entry.reason}"
        if c.array.dtype.kind not in table.NUMERIC_KINDS:
            return UNKNOWN, f"{c.what} holds values of type {c.array.dtype}, not numbers: {entry.reason}"
    assert x.array is not None and s is not None and s.array is not None
    (_, x0, xi), (sn, s0, si) = _float_facts(x.array), _float_facts(s.array)
    if sn.any() and x.array.size:
        return NONDET, f"{s.what} holds nan at flat position {int(np.flatnonzero(sn)[0])}; {entry.reason}"
    if (x0.any() and s0.any()) or (xi.any() and si.any()):
        return UNKNOWN, f"{x.what} and {s.what} may meet as 0/0 or inf/inf: {entry.reason}"
    return DET, ""


def _dynamic_nan(read: Reader, op: Operation, entry: table.Entry) -> Outcome:
    """DynamicQuantizeLinear: the scale is computed from the input, so NaN arises from a NaN or an infinity in it
    (inf/inf), or from an input of zeros only (scale 0, then 0/0); a constant input is checked."""
    m = op.input_mapping
    x = read(m[0], "input") if m and m[0] else None
    if x is None or x.kind != "value" or x.array is None or x.array.dtype.kind not in table.NUMERIC_KINDS:
        return UNKNOWN, f"{x.what if x else 'the input is omitted'}: {entry.reason}"
    nan, zero, inf = _float_facts(x.array)
    bad = np.flatnonzero(nan | inf)
    if bad.size:
        v = x.array.reshape(-1)[bad[0]]
        return NONDET, f"{x.what} holds {v} at flat position {int(bad[0])}; {entry.reason}"
    if zero.all():
        return NONDET, f"{x.what} holds only zeros, so the scale is 0; {entry.reason}"
    return DET, ""


READ_VALUES: dict[str, Callable[[Reader, Types, Operation, table.Entry], Outcome]] = {
    table.UNREPRESENTABLE_CAST: unrepresentable_cast,
    table.REPEATED_AXES_ATTRIBUTE: repeated_axes,
    table.REPEATED_AXES_INPUT: repeated_axes,
    table.LOCALE_DEPENDENT: locale_dependent,
    table.NAN_QUANTIZED: nan_quantized,
}
"""The conditions this module decides, by name."""
