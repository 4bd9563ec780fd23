"""OP-ERROR-INDEX (strict profile): no Gather or GatherElements of the main graph can read outside its data.

Spec rule OP-ERROR-INDEX (spec/operators.rst, section 5.2), AI-007 and
REQ-OP-040 (Gather is outside the working group's 35 operators, so no tag).
An index along axis ``axis`` must lie in ``[-s, s - 1]`` where ``s`` is the
data's size on that axis; the size must be fixed by a fact that holds at run
time (a constant's shape, an enforced graph input type, or onnx's inference
from those), the indices are read element by element when constant, else by
their range.
"""

from __future__ import annotations

import numpy as np

from ..base.verdict import Severity, Verdict
from .base import CheckContext
from .intervals import is_int
from .intervals_graph import Site
from .intervals_ops import attr
from .intervals_search import Hazard, decide, raised_at, ranges_json

ID = "OP-ERROR-INDEX"
SEVERITY = Severity.ERROR


def find(site: Site) -> Hazard | None:
    if len(site.args) < 2 or site.args[0] is None or site.args[1] is None:
        return None
    data, idx = site.args[0], site.args[1]
    axis = int(attr(site.op, "axis", 0))  # type: ignore[call-overload]
    size = None
    if data.shape is not None and -len(data.shape) <= axis < len(data.shape):
        size = data.shape[axis]
    ranges = ranges_json(indices=idx)
    where = (site.op.input_mapping[1], size if size is not None else 2**31)
    if size is None:
        return Hazard(site, f"the data's size on axis {axis} is not fixed", ranges, raised_at(site), (where,))
    ranges["size"] = {"axis": axis, "size": size}
    if idx.value is not None and is_int(idx.elem):
        v = np.asarray(idx.value)
        if np.all((v >= -size) & (v <= size - 1)):
            return None
    elif is_int(idx.elem) and idx.known and -size <= idx.lo and idx.hi <= size - 1:
        return None
    return Hazard(site, f"an index can fall outside [{-size}, {size - 1}]", ranges, raised_at(site),
                  (where, (site.op.input_mapping[1], -size - 1)))


def check(ctx: CheckContext) -> Verdict:
    return decide(ctx, ID, SEVERITY, frozenset({"Gather", "GatherElements"}), find)
