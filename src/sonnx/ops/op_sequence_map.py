"""SequenceMap: the ``body`` graph applied to each position of the input sequence(s).

The first input is a sequence of n; every other input is a sequence of n too
or a tensor. Run k feeds the body the k-th element of each sequence input and
each tensor input whole; output j is the sequence of the body's j-th output
over the n runs (empty when n = 0).
"""

from __future__ import annotations

from typing import Any

from ..model.graph import Graph
from ._sequence import as_sequence
from .base import Kernel


def sequence_map(first: Any, *additional: Any, body: Graph, scope: Any, **_attrs: Any) -> tuple[list[Any], ...]:
    """One version."""
    n = len(as_sequence(first, "SequenceMap's first input"))
    inputs = (first, *additional)
    if len(inputs) != len(body.inputs):
        raise ValueError(f"SequenceMap has {len(inputs)} inputs, its body {len(body.inputs)}")
    for k, x in enumerate(additional, start=1):
        if isinstance(x, list) and len(x) != n:
            raise ValueError(f"input {k} is a sequence of {len(x)}, the first input of {n}")
    outputs: tuple[list[Any], ...] = tuple([] for _ in body.outputs)
    # one run of the body graph per position (each run is a whole graph execution)
    for k in range(n):
        results = scope.run_nested(body, tuple(x[k] if isinstance(x, list) else x for x in inputs))
        for out, value in zip(outputs, results, strict=True):
            out.append(value)
    return outputs


KERNELS = (Kernel("SequenceMap", (17,), sequence_map, needs_scope=True),)
