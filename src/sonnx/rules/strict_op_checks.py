"""The kinds of check of STRICT-OP-RESTRICTIONS: one function per kind of row of :mod:`.strict_op_table`.

Spec rule STRICT-OP-RESTRICTIONS (spec/operators.rst, section 2). Each check
looks at one operation and answers :data:`HOLDS`, :data:`BROKEN` with what it
found, or :data:`OPEN` with why it cannot tell. What a check may rest on is
what holds at run time (spec/graph.rst 9.4): the attributes as written (or
the schema's default when one is left out), the values of initializers that
are not graph inputs and of ``Constant`` operations as the loader reads them,
and shapes onnx's inference derives from enforced facts only
(:func:`.derived.derived_model`) or the dimensions of a stored value. A
condition on a shape or value the check cannot establish is OPEN, never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx

from ..model.graph import Dim, Operation
from .graph_arity import WrittenScope

HOLDS = "holds"
BROKEN = "broken"
OPEN = "open"
Outcome = tuple[str, str]
"""(HOLDS | BROKEN | OPEN, what was found or why it stays open)."""


@dataclass(frozen=True)
class Site:
    """One operation under check, with what the check may read around it."""

    scopes: Sequence[WrittenScope]
    scope: int
    op: Operation
    schema: Any
    shapes_known: bool
    """Whether the scopes carry the types onnx derives from enforced facts (else only stored values' dims)."""
    weights_read: bool
    producers: Mapping[str, Operation]
    """The operation writing each name of this scope (a name written twice maps to none)."""

    def lookup(self, name: str) -> tuple[int, Any] | None:
        """The scope that defines ``name`` seen from this one, and its tensor record (lexical scoping)."""
        s = self.scope
        while s >= 0:
            g = self.scopes[s].graph
            if name in g.defined_names:
                return s, g.tensors.get(name)
            s = self.scopes[s].parent
        return None

    def shape(self, name: str) -> tuple[Dim, ...] | None:
        """The shape of tensor ``name`` as far as enforced facts give it; None when not even its rank is known."""
        found = self.lookup(name)
        if found is None or found[1] is None:
            return None
        t = found[1]
        if t.initial_value is not None and name not in self.scopes[found[0]].graph.inputs:
            return tuple(t.initial_value.dims)
        declared = t.type is not None and t.type.kind == "tensor" and t.type.shape is not None
        main_input = found[0] == 0 and name in self.scopes[0].graph.inputs
        if declared and (self.shapes_known or main_input):
            return tuple(t.type.shape)
        return None

    def constant(self, name: str) -> tuple[np.ndarray | None, str]:
        """The value every run gives ``name`` (a stored initializer that is no graph input, or a Constant's), or why
        there is none."""
        found = self.lookup(name)
        if found is None:
            return None, f"{name!r} is not defined"
        s, t = found
        g = self.scopes[s].graph
        if name in g.inputs:
            return None, f"{name!r} is a graph input, given at run time"
        op = self.producers.get(name) if s == self.scope else None
        value = None
        if t is not None and t.initial_value is not None:
            if not self.weights_read:
                return None, f"{name!r} is stored, and the check read no weights"
            value = t.initial_value
        elif op is not None and op.operator == "Constant" and op.domain == "":
            a = op.attribute("value")
            value = a.value if a is not None and a.type == "TENSOR" else None
        if value is None:
            return None, f"{name!r} is computed, not stored"
        try:
            return np.asarray(value.read()), ""
        except Exception as exc:  # an unreadable value is no fact
            return None, f"{name!r} could not be read ({type(exc).__name__})"

    def attribute(self, name: str) -> tuple[Any, bool]:
        """The attribute's value as written, else the schema's default; and whether it is written."""
        a = self.op.attribute(name)
        if a is not None:
            return a.value, True
        spec = self.schema.attributes.get(name)
        if spec is None or spec.default_value.type == onnx.AttributeProto.UNDEFINED:
            return None, False
        return onnx.helper.get_attribute_value(spec.default_value), False

    def input(self, k: int) -> str:
        m = self.op.input_mapping
        return m[k] if k < len(m) else ""


def _shown(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, tuple):
        return list(value)
    return value


def attr_eq(site: Site, name: str, want: Any) -> Outcome:
    value, written = site.attribute(name)
    value = _shown(value)
    if value == want:
        return HOLDS, ""
    how = "is" if written else "defaults to"
    return BROKEN, f"{name} {how} {value!r}, not {want!r}" if value is not None else f"{name} is not set"


def attr_min(site: Site, name: str, bound: int) -> Outcome:
    value, written = site.attribute(name)
    values = list(value) if isinstance(value, (list, tuple)) else [] if value is None else [value]
    low = [v for v in values if v < bound]
    if not low:
        return HOLDS, ""
    return BROKEN, f"{name} {'is' if written else 'defaults to'} {_shown(value)!r}, below {bound}"


def attr_above(site: Site, name: str, bound: float) -> Outcome:
    value, written = site.attribute(name)
    if value is None or value > bound:
        return HOLDS, ""
    return BROKEN, f"{name} {'is' if written else 'defaults to'} {value!r}, not above {bound}"


def attr_present(site: Site, name: str) -> Outcome:
    return (HOLDS, "") if site.op.attribute(name) is not None else (BROKEN, f"attribute {name} is not written")


def input_present(site: Site, k: int) -> Outcome:
    return (HOLDS, "") if site.input(k) else (BROKEN, f"input {k} is not given")


def rank(site: Site, k: int, want: int) -> Outcome:
    name = site.input(k)
    if not name:
        return OPEN, f"input {k} is not given"
    shape = site.shape(name)
    if shape is None:
        return OPEN, f"the rank of {name!r} is not established"
    return (HOLDS, "") if len(shape) == want else (BROKEN, f"{name!r} has rank {len(shape)}, not {want}")


def attr_len_spatial(site: Site, name: str, factor: int) -> Outcome:
    a = site.op.attribute(name)
    if a is None:
        return HOLDS, ""
    shape = site.shape(site.input(0))
    if shape is None:
        return OPEN, f"the rank of {site.input(0)!r} is not established"
    want = factor * (len(shape) - 2)
    n = len(a.value)
    return (HOLDS, "") if n == want else (BROKEN, f"{name} has {n} entries, not {want}")


def conv_group(site: Site) -> Outcome:
    group, _ = site.attribute("group")
    if group == 1:
        return HOLDS, ""
    shape = site.shape(site.input(0))
    if shape is not None and len(shape) > 1 and isinstance(shape[1], int):
        c = shape[1]
        return (HOLDS, "") if group == c else (BROKEN, f"group is {group}, neither 1 nor the {c} channels of X")
    w = site.shape(site.input(1))
    if w is not None and len(w) > 1 and isinstance(w[1], int):
        # a run that reaches this operation has C = group * W's second dimension (the operator's own precondition)
        return (HOLDS, "") if w[1] == 1 else (BROKEN, f"group is {group}, and W gives each group {w[1]} channels")
    return OPEN, "the channel count of X is not established"


def pool_kernel_pads(site: Site) -> Outcome:
    kernel = site.op.attribute("kernel_shape")
    if kernel is None:
        return OPEN, "kernel_shape is not written"
    k = list(kernel.value)
    pads = list(site.attribute("pads")[0] or [0] * (2 * len(k)))
    dil = list(site.attribute("dilations")[0] or [1] * len(k))
    if len(pads) != 2 * len(k) or len(dil) != len(k):
        return OPEN, "pads, dilations and kernel_shape disagree in length"
    for i, (ki, di) in enumerate(zip(k, dil, strict=True)):
        span, before, after = di * (ki - 1) + 1, pads[i], pads[i + len(k)]
        if span <= max(before, after):
            return BROKEN, f"axis {i}: the dilated kernel spans {span}, not more than its pads {before}, {after}"
    return HOLDS, ""


def conv_kernel_w(site: Site) -> Outcome:
    kernel = site.op.attribute("kernel_shape")
    if kernel is None:
        return HOLDS, ""
    w = site.shape(site.input(1))
    if w is None or not all(isinstance(d, int) for d in w[2:]):
        return OPEN, f"the spatial dimensions of {site.input(1)!r} are not established"
    want, given = list(w[2:]), list(kernel.value)
    return (HOLDS, "") if given == want else (BROKEN, f"kernel_shape is {given}, W's is {want}")


def _slice_args(site: Site) -> tuple[list[np.ndarray] | None, str]:
    """starts, ends, axes (or None entries when not given), steps as constants; or why they are not constants."""
    out: list[np.ndarray] = []
    for k in (1, 2, 3, 4):
        name = site.input(k)
        if not name:
            out.append(np.array([], dtype=np.int64) if k < 3 else np.array([-1]))
            continue
        v, why = site.constant(name)
        if v is None:
            return None, why
        out.append(v.reshape(-1).astype(np.int64))
    if len(out[0]) != len(out[1]):
        return None, "starts and ends differ in length"
    if not site.input(4):
        out[3] = np.ones(len(out[0]), dtype=np.int64)
    if not site.input(3):
        out[2] = np.arange(len(out[0]), dtype=np.int64)
    return out, ""


def slice_order(site: Site, sign: int) -> Outcome:
    args, why = _slice_args(site)
    if args is None:
        return OPEN, why
    starts, ends, _, steps = args
    for i, (s, e, k) in enumerate(zip(starts, ends, steps, strict=False)):
        if k * sign > 0 and (s > e if sign > 0 else s < e):
            return BROKEN, f"entry {i}: step {int(k)} with start {int(s)} and end {int(e)}"
    return HOLDS, ""


def slice_start(site: Site) -> Outcome:
    args, why = _slice_args(site)
    if args is None:
        return OPEN, why
    starts, _, axes, _ = args
    shape = site.shape(site.input(0))
    if shape is None:
        return OPEN, f"the shape of {site.input(0)!r} is not established"
    for s, a in zip(starts, axes, strict=False):
        ax = int(a) + len(shape) if a < 0 else int(a)
        if not 0 <= ax < len(shape):
            return OPEN, f"axis {int(a)} is outside the rank {len(shape)}"
        dim = shape[ax]
        if not isinstance(dim, int):
            return OPEN, f"dimension {ax} of {site.input(0)!r} is not fixed"
        if s >= dim:
            return BROKEN, f"start {int(s)} on axis {ax}, whose size is {dim}"
    return HOLDS, ""


def slice_axes_all(site: Site) -> Outcome:
    axes = site.input(3)
    if not axes:
        return BROKEN, "input 3 (axes) is not given"
    shape, given = site.shape(site.input(0)), site.shape(axes)
    if shape is None or given is None or len(given) != 1 or not isinstance(given[0], int):
        return OPEN, "the rank of the data or the length of the axes is not established"
    n = given[0]
    return (HOLDS, "") if n == len(shape) else (BROKEN, f"axes names {n} axes of a rank-{len(shape)} input")


CHECKS: Mapping[str, Callable[..., Outcome]] = {
    "attr-eq": attr_eq,
    "attr-min": attr_min,
    "attr-above": attr_above,
    "attr-present": attr_present,
    "input-present": input_present,
    "rank": rank,
    "attr-len-spatial": attr_len_spatial,
    "conv-group": conv_group,
    "pool-kernel-pads": pool_kernel_pads,
    "conv-kernel-w": conv_kernel_w,
    "slice-order": slice_order,
    "slice-start": slice_start,
    "slice-axes-all": slice_axes_all,
}
