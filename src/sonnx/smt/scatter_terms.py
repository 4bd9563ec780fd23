"""GRAPH-R2's duplicate-indices condition of the scatter operators, as an SMT-LIB term over a constant's elements.

A scatter without reduction is deterministic exactly when no two of its
index tuples address the same element (spec, GRAPH-R2). ScatterND's tuples
are the rows of its indices; for ScatterElements and Scatter each element's
position, with the axis coordinate replaced by the element's value, is one
tuple. Negative indices are wrapped by the data's dimensions when those hold
at run time (:mod:`sonnx.rules.premises`); otherwise a negative index gives
the unknown class. The tuples are encoded as integers and the term is
``distinct`` over them, so the solver decides; the pair of equal positions
found here in NumPy is untrusted, and only the solver's check of it reaches
a witness.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..model.graph import Operation
from ..rules import determinism_table as table
from ..rules.premises import RuntimeType
from .constants import VALUE, Const, attr_fact, num
from .value_terms import any_of

AXIS_NOT_INT = "the attribute 'axis' is not an INT, so which element an index addresses is not known"
Pair = tuple[int, int, list[int]]
Scatter = tuple[str, Pair | None, str, tuple[str, ...]]


def _index_tuples(idx: np.ndarray) -> np.ndarray:
    """ScatterND's indices as one row per index tuple (not ``reshape(-1, k)``: the tuple length ``k`` may be 0)."""
    return idx.reshape(int(np.prod(idx.shape[:-1])), idx.shape[-1])


def scatter_term(op: Operation, data: RuntimeType, c: Const) -> Scatter:
    """Class of the duplicate-indices condition; an untrusted pair of positions with equal tuples and its check;
    notes for the verdict's reason. ``data``: what holds at run time of the data's type."""
    if c.kind != VALUE or c.array is None:
        return f"(ite (= {c.kind} {VALUE}) 0 1)", None, "", ()
    present, ax = attr_fact(op, "axis") if op.operator != "ScatterND" else (0, 0)
    notes = (AXIS_NOT_INT,) if present == 2 else ()
    if c.array.dtype.kind not in table.INDEX_KINDS:
        return "1", None, "", notes
    idx = c.array.astype(np.int64, copy=False)
    data_dims = data.dims
    if op.operator == "ScatterND":
        if idx.ndim == 0:
            return "1", None, "", notes
        k = idx.shape[-1]
        rows = [[num(int(v)) for v in r] for r in _index_tuples(idx).tolist()]
        dims = None if data_dims is None else data_dims[:k]
        guard = "true"
    else:
        if idx.ndim == 0:  # a single index: nothing to coincide with
            return "0", None, "", notes
        if present == 2:  # an axis that is not an INT: which element an index addresses is not known
            return "1", None, "", notes
        ax = ax if present == 1 else 0
        rank = idx.ndim
        axis = f"(ite (< {num(ax)} 0) (+ {num(ax)} {rank}) {num(ax)})"
        grid = np.indices(idx.shape).reshape(idx.ndim, -1).T.tolist()
        vals = idx.reshape(-1).tolist()
        rows = [
            [f"(ite (= {axis} {j}) {num(v)} {c_j})" for j, c_j in enumerate(g)] for g, v in zip(grid, vals, strict=True)
        ]
        dims = None if data_dims is None or len(data_dims) != idx.ndim else data_dims
        guard = f"(and (<= 0 {axis}) (< {axis} {rank}))"
    width = len(rows[0]) if rows else 0
    known = dims is not None and len(dims) >= width and all(d is not None for d in dims[:width])
    neg = any_of([f"(< {x} 0)" for r in rows for x in r])
    keys = []
    for r in rows:
        comps = [f"(ite (< {x} 0) (+ {x} {dims[j]}) {x})" if known and dims else x for j, x in enumerate(r)]
        keys.append(" ".join(f"(* {1 << (64 * j)} (+ {x} {1 << 63}))" for j, x in enumerate(comps)) or "0")
    keys = [f"(+ {k} 0)" for k in keys]
    distinct = f"(distinct {' '.join(keys)})" if len(keys) > 1 else "true"
    pair = _pair(idx, op.operator, dims, ax if op.operator != "ScatterND" else 0)
    term = f"(ite {guard} (ite (and {neg} {'false' if known else 'true'}) 1 (ite {distinct} 0 2)) 1)"
    check = "" if pair is None else f"(and (distinct {pair[0]} {pair[1]}) (= {keys[pair[0]]} {keys[pair[1]]}))"
    return term, pair, check, notes


def _pair(
    idx: np.ndarray, operator: str, dims: Sequence[int | None] | None, axis: int
) -> tuple[int, int, list[int]] | None:
    """Untrusted: the first two positions whose index tuples coincide, and the tuple (the formula decides)."""
    if operator == "ScatterND":
        keys = _index_tuples(idx)
    else:
        keys = np.indices(idx.shape).reshape(idx.ndim, -1).T
        axis = axis + idx.ndim if axis < 0 else axis
        if not 0 <= axis < idx.ndim:
            return None
        keys[:, axis] = idx.reshape(-1)
    if dims is not None and all(d is not None for d in dims[: keys.shape[1]]) and len(dims) >= keys.shape[1]:
        keys = np.where(keys < 0, keys + np.asarray(dims[: keys.shape[1]], dtype=np.int64), keys)
    if keys.shape[0] < 2:
        return None
    if keys.shape[1] == 0:  # empty tuples all address the whole tensor
        return 0, 1, []
    order = np.lexsort(keys.T[::-1])
    same = np.flatnonzero(np.all(keys[order][1:] == keys[order][:-1], axis=1))
    if same.size == 0:
        return None
    a, b = sorted((int(order[same[0]]), int(order[same[0] + 1])))
    return a, b, keys[a].tolist()
