"""Loop: run a body graph while a trip count and/or a condition allow.

Body inputs are (iteration number, condition, carried values...); body
outputs are (condition, carried values..., scan outputs...). The Loop's
outputs are the final carried values, then each scan output stacked over the
iterations along a new first axis. With neither a trip count nor a condition
the loop never ends by definition; the kernel refuses it rather than hang.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..model.graph import Graph
from .base import Kernel
from .op_if import condition
from .values import numpy_dtype


def _empty_scan(body: Graph, name: str) -> np.ndarray:
    """A zero-iteration scan output: shape (0, *declared element shape) and the declared type."""
    t = body.tensor(name).type
    if t is None or t.kind != "tensor" or t.elem_type == 0:
        raise ValueError(f"the loop ran no iteration and scan output {name!r} has no declared type")
    tail = tuple(d if isinstance(d, int) else 0 for d in (t.shape or ()))
    return np.zeros((0, *tail), dtype=numpy_dtype(t.elem_type))


def loop_kernel(
    trip_count: Any | None, cond: Any | None, *carried: Any, body: Graph, scope: Any, **_attrs: Any
) -> tuple[Any, ...]:
    if trip_count is None and cond is None:
        raise ValueError("a Loop with neither trip count nor condition never terminates")
    limit = None if trip_count is None else int(np.asarray(trip_count).reshape(-1)[0])
    keep_going = True if cond is None else condition(cond)
    n_carried = len(carried)
    state = list(carried)
    scans: list[list[Any]] = [[] for _ in range(len(body.outputs) - 1 - n_carried)]
    i = 0
    while keep_going and (limit is None or i < limit):
        outs = scope.run_nested(body, (np.array(i, dtype=np.int64), np.array(keep_going), *state))
        keep_going = condition(outs[0])
        state = list(outs[1 : 1 + n_carried])
        for k, v in enumerate(outs[1 + n_carried :]):
            scans[k].append(v)
        i += 1
    stacked = []
    for k, values in enumerate(scans):
        name = body.outputs[1 + n_carried + k]
        stacked.append(np.stack(values) if values else _empty_scan(body, name))
    return (*state, *stacked)


KERNELS = (Kernel("Loop", (1, 11, 13, 16, 19, 21, 23, 24, 25), loop_kernel, needs_scope=True),)
