"""Scan: run a body graph over slices of its scan inputs, carrying state.

Scan-9 and later: inputs are N initial state values then M scan inputs
(``num_scan_inputs``); each iteration feeds the body the states and one slice
of each scan input (along ``scan_input_axes``, forwards or backwards per
``scan_input_directions``); the body returns new states and one element of
each scan output, which are stacked along ``scan_output_axes`` (reversed per
``scan_output_directions``). Scan-8 has a leading batch axis on every input,
an optional ``sequence_lens`` first input, and one ``directions`` list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..model.graph import Graph
from .base import Kernel


def _norm(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def _scan(
    states: Sequence[Any],
    scan_inputs: Sequence[np.ndarray],
    body: Graph,
    scope: Any,
    in_axes: Sequence[int],
    in_dirs: Sequence[int],
    out_axes: Sequence[int],
    out_dirs: Sequence[int],
    length: int | None = None,
) -> tuple[Any, ...]:
    axes = [_norm(a, x.ndim) for a, x in zip(in_axes, scan_inputs, strict=True)]
    lengths = {x.shape[a] for a, x in zip(axes, scan_inputs, strict=True)}
    if len(lengths) > 1:
        raise ValueError(f"scan inputs have different lengths along their scan axes: {sorted(lengths)}")
    steps = length if length is not None else (lengths.pop() if lengths else 0)
    n_state = len(states)
    state = list(states)
    collected: list[list[Any]] = [[] for _ in range(len(body.outputs) - n_state)]
    for t in range(steps):
        slices = [
            np.take(x, steps - 1 - t if d else t, axis=a)
            for x, a, d in zip(scan_inputs, axes, in_dirs, strict=True)
        ]
        outs = scope.run_nested(body, (*state, *slices))
        state = list(outs[:n_state])
        for k, v in enumerate(outs[n_state:]):
            collected[k].append(v)
    results = []
    for k, values in enumerate(collected):
        if not values:
            raise ValueError("the scan ran no iteration, so its scan outputs have no shape")
        if out_dirs[k]:
            values = values[::-1]
        stacked = np.stack(values, axis=0)
        axis = _norm(out_axes[k], stacked.ndim)
        results.append(np.moveaxis(stacked, 0, axis))
    return (*state, *results)


def scan_9(*inputs: Any, body: Graph, num_scan_inputs: int, scope: Any, **attrs: Any) -> tuple[Any, ...]:
    m = num_scan_inputs
    n = len(inputs) - m
    n_out = len(body.outputs) - n
    in_axes = attrs.get("scan_input_axes") or [0] * m
    in_dirs = attrs.get("scan_input_directions") or [0] * m
    out_axes = attrs.get("scan_output_axes") or [0] * n_out
    out_dirs = attrs.get("scan_output_directions") or [0] * n_out
    return _scan(inputs[:n], [np.asarray(x) for x in inputs[n:]], body, scope, in_axes, in_dirs, out_axes, out_dirs)


def scan_8(
    sequence_lens: Any | None, *inputs: Any, body: Graph, num_scan_inputs: int, scope: Any, **attrs: Any
) -> tuple[Any, ...]:
    m = num_scan_inputs
    n = len(inputs) - m
    dirs = attrs.get("directions") or [0] * m
    batch = np.asarray(inputs[0]).shape[0] if inputs else 0
    per_batch: list[tuple[Any, ...]] = []
    for b in range(batch):
        scans = [np.asarray(x)[b] for x in inputs[n:]]
        length = int(np.asarray(sequence_lens)[b]) if sequence_lens is not None else None
        if length is not None:
            scans = [x[:length] for x in scans]
        n_out = len(body.outputs) - n
        per_batch.append(
            _scan([np.asarray(s)[b] for s in inputs[:n]], scans, body, scope, [0] * m, dirs, [0] * n_out, [0] * n_out)
        )
    return tuple(np.stack([r[k] for r in per_batch]) for k in range(len(body.outputs)))


KERNELS = (
    Kernel("Scan", (8,), scan_8, needs_scope=True),
    Kernel("Scan", (9, 11, 16, 19, 21, 23, 24, 25), scan_9, needs_scope=True),
)
