"""TreeEnsemble (ai.onnx.ml): the targets predicted by an ensemble of decision trees, [N, n_targets] in X's type.

Interior nodes (``nodes_*``) and leaves (``leaf_*``) are listed apart; a
branch goes to a node or, where ``nodes_trueleafs`` / ``nodes_falseleafs`` is
1, to a leaf. ``tree_roots`` gives each tree's root node. A node compares one
feature with its split (``nodes_modes``: 0 LEQ, 1 LT, 2 GTE, 3 GT, 4 EQ,
5 NEQ) or tests membership (6 MEMBER) in its set: ``membership_values``
lists the sets of the member nodes in node order, each ended by a NaN. A NaN
feature takes the true branch where ``nodes_missing_value_tracks_true`` is 1.
Each leaf adds its weight to its target; the targets are aggregated over the
trees (``aggregate_function``: 0 AVERAGE, 1 SUM, 2 MIN, 3 MAX) and
transformed (``post_transform``: 0 NONE, 1 SOFTMAX, 2 LOGISTIC,
3 SOFTMAX_ZERO, 4 PROBIT). See :mod:`sonnx.ops._trees` for the walk.
Scores add up in float32 for float16 and float32 inputs, float64 for doubles.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from typing import Any

import numpy as np

from ._ml import TRANSFORMS, as_matrix
from ._ml import post_transform as transform
from ._trees import AGGREGATES, LEAF, MEMBER, MODES, Forest, aggregate, leaf_table, leaves_reached
from .base import Kernel

_AGGREGATE_CODES = ("AVERAGE", "SUM", "MIN", "MAX")


def _member_sets(mode: np.ndarray, membership_values: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Each node's row in the member table, and the table [sets, width] of the NaN-delimited sets (NaN padded)."""
    is_member = mode == MEMBER
    n_sets = int(is_member.sum())
    row = np.zeros(len(mode), dtype=np.int64)
    if n_sets == 0:
        return row, np.zeros((0, 0))
    if membership_values is None:
        raise ValueError(f"{n_sets} BRANCH_MEMBER node(s) but no membership_values")
    values = np.asarray(membership_values, dtype=np.float64).reshape(-1)
    ends = np.isnan(values)
    set_of = np.cumsum(ends) - ends  # the set each value belongs to (its delimiter counts for the set it ends)
    given = int(ends.sum()) + int(len(values) > 0 and not ends[-1])  # the last set may lack its NaN
    if given < n_sets:
        raise ValueError(f"membership_values holds {given} sets for {n_sets} BRANCH_MEMBER nodes")
    keep = ~ends & (set_of < n_sets)
    members, owners = values[keep], set_of[keep]
    counts = np.bincount(owners, minlength=n_sets)
    width = max(int(counts.max()) if len(counts) else 0, 1)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    table = np.full((n_sets, width), np.nan)
    table[owners, np.arange(len(members)) - starts[owners]] = members
    row[is_member] = np.arange(n_sets)
    return row, table


def tree_ensemble(
    x: np.ndarray,
    *,
    tree_roots: Sequence[int],
    nodes_modes: np.ndarray,
    nodes_featureids: Sequence[int],
    nodes_splits: np.ndarray,
    nodes_truenodeids: Sequence[int],
    nodes_trueleafs: Sequence[int],
    nodes_falsenodeids: Sequence[int],
    nodes_falseleafs: Sequence[int],
    leaf_targetids: Sequence[int],
    leaf_weights: np.ndarray,
    n_targets: int | None = None,
    nodes_missing_value_tracks_true: Sequence[int] | None = None,
    membership_values: np.ndarray | None = None,
    aggregate_function: int = 1,
    post_transform: int = 0,
    **_attrs: Any,
) -> np.ndarray:
    """Version 5 (the only one)."""
    if x.dtype not in (np.float16, np.float32, np.float64):
        raise ValueError(f"the input must be float16, float32 or float64, not {x.dtype}")
    rows = as_matrix(x)
    mode = np.asarray(nodes_modes).reshape(-1).astype(np.int64)
    m = len(mode)
    lists: dict[str, Sized] = {
        "nodes_featureids": nodes_featureids,
        "nodes_splits": np.asarray(nodes_splits).reshape(-1),
        "nodes_truenodeids": nodes_truenodeids,
        "nodes_trueleafs": nodes_trueleafs,
        "nodes_falsenodeids": nodes_falsenodeids,
        "nodes_falseleafs": nodes_falseleafs,
    }
    for name, lst in lists.items():
        if len(lst) != m:
            raise ValueError(f"{name} has {len(lst)} entries, nodes_modes {m}")
    if ((mode < 0) | (mode > MEMBER)).any():
        raise ValueError(f"nodes_modes must be codes 0 to {MEMBER} ({', '.join(MODES[:-1])})")
    targets = np.asarray(leaf_targetids, dtype=np.int64)
    weights = np.asarray(leaf_weights).reshape(-1)
    if len(targets) != len(weights):
        raise ValueError(f"leaf_targetids has {len(targets)} entries, leaf_weights {len(weights)}")
    if not 0 <= aggregate_function < len(_AGGREGATE_CODES):
        raise ValueError(f"aggregate_function must be 0 to 3 ({', '.join(AGGREGATES)}), not {aggregate_function}")
    if not 0 <= post_transform < len(TRANSFORMS):
        raise ValueError(f"post_transform must be 0 to 4 ({', '.join(TRANSFORMS)}), not {post_transform}")
    if n_targets is None:
        n_targets = int(targets.max()) + 1 if len(targets) else 1
    n_leaves = len(targets)

    def next_node(ids: Sequence[int], to_leaf: Sequence[int], what: str) -> np.ndarray:
        ids_arr = np.asarray(ids, dtype=np.int64)
        leaf = np.asarray(to_leaf, dtype=bool)
        bound = np.where(leaf, n_leaves, m)
        bad = (ids_arr < 0) | (ids_arr >= bound)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            kind = "leaf" if leaf[k] else "node"
            raise ValueError(f"node {k}: its {what} branch is {kind} {int(ids_arr[k])}, which does not exist")
        return np.where(leaf, m + ids_arr, ids_arr)

    tracks = np.zeros(m, dtype=bool)
    if nodes_missing_value_tracks_true is not None and len(nodes_missing_value_tracks_true):
        if len(nodes_missing_value_tracks_true) != m:
            count = len(nodes_missing_value_tracks_true)
            raise ValueError(f"nodes_missing_value_tracks_true has {count} entries for {m} nodes")
        tracks = np.asarray(nodes_missing_value_tracks_true, dtype=bool)
    roots = np.asarray(tree_roots, dtype=np.int64)
    if ((roots < 0) | (roots >= m)).any():
        raise ValueError(f"tree_roots must index nodes_* (0 to {m - 1})")
    member_row, members = _member_sets(mode, membership_values)
    leaf_part = np.zeros(n_leaves, dtype=np.int64)
    forest = Forest(
        mode=np.concatenate([mode, np.full(n_leaves, LEAF)]).astype(np.int8),
        feature=np.concatenate([np.asarray(nodes_featureids, dtype=np.int64), leaf_part]),
        threshold=np.concatenate([np.asarray(nodes_splits, dtype=np.float64).reshape(-1), np.zeros(n_leaves)]),
        true_next=np.concatenate([next_node(nodes_truenodeids, nodes_trueleafs, "true"), m + np.arange(n_leaves)]),
        false_next=np.concatenate([next_node(nodes_falsenodeids, nodes_falseleafs, "false"), m + np.arange(n_leaves)]),
        missing_true=np.concatenate([tracks, np.zeros(n_leaves, dtype=bool)]),
        roots=roots,
        member_row=np.concatenate([member_row, leaf_part]),
        members=members,
    )
    acc = np.float64 if x.dtype == np.float64 else np.float32
    table, mask = leaf_table(m + n_leaves, n_targets, m + np.arange(n_leaves), targets, weights, acc)
    scores, _ = aggregate(leaves_reached(forest, rows), table, mask, _AGGREGATE_CODES[aggregate_function])
    return transform(scores, TRANSFORMS[post_transform]).astype(x.dtype)


KERNELS = (Kernel("TreeEnsemble", (5,), tree_ensemble, domain="ai.onnx.ml"),)
