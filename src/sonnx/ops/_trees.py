"""Tree-ensemble evaluation shared by TreeEnsemble, TreeEnsembleRegressor and TreeEnsembleClassifier.

A :class:`Forest` is a flat table of nodes (interior nodes and leaves in one
index space) with the index of each tree's root. Every example walks every
tree at once: at each step all (example, tree) pairs sitting on an interior
node compare their feature with the node's threshold and move to the true or
the false child; pairs on a leaf stay. The loop runs once per tree level.

A node's condition is its comparison (``x <= t``, ``x < t``, ``x >= t``,
``x > t``, ``x == t``, ``x != t``, or ``x`` in the node's set of members),
or'ed with ``isnan(x)`` where the node's missing value tracks the true branch.
Comparisons are made in float64, exact for float16, float32, float64 and int32
inputs and thresholds.

The leaves carry a dense table of weights, one column per target (class),
and a mask of the (leaf, target) pairs that have a weight at all. The
aggregation of a target over the trees is the SUM (added tree after tree, in
tree order), the AVERAGE (the sum over the number of trees), or the MIN or MAX
of the trees whose leaf weighs that target (0 when none does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

MODES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER", "LEAF")
LEQ, LT, GTE, GT, EQ, NEQ, MEMBER, LEAF = range(8)
AGGREGATES = ("AVERAGE", "SUM", "MIN", "MAX")


@dataclass(frozen=True)
class Forest:
    """Nodes (interior and leaves) as parallel arrays; a leaf has mode LEAF and is its own child."""

    mode: np.ndarray  # int8 per node, an index into MODES
    feature: np.ndarray  # int64 per node (0 for leaves)
    threshold: np.ndarray  # float64 per node
    true_next: np.ndarray  # int64 per node
    false_next: np.ndarray  # int64 per node
    missing_true: np.ndarray  # bool per node
    roots: np.ndarray  # int64 per tree, in aggregation order
    member_row: np.ndarray  # int64 per node: its row of ``members`` (BRANCH_MEMBER nodes), else 0
    members: np.ndarray  # float64 [sets, width], NaN padded

    def check(self, features: int) -> None:
        """Refuse feature ids outside the input and children outside the table."""
        n = len(self.mode)
        interior = self.mode != LEAF
        bad = interior & ((self.feature < 0) | (self.feature >= features))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"node {k} reads feature {int(self.feature[k])}, the input has {features}")
        for name, nxt in (("true", self.true_next), ("false", self.false_next)):
            wrong = interior & ((nxt < 0) | (nxt >= n))
            if wrong.any():
                k = int(np.flatnonzero(wrong)[0])
                raise ValueError(f"node {k}: its {name} branch {int(nxt[k])} is not a node")
        if ((self.roots < 0) | (self.roots >= n)).any():
            raise ValueError("a tree root is not a node")


def mode_codes(modes: Sequence[str]) -> np.ndarray:
    """The node mode names as codes (refusing unknown names)."""
    names, inverse = np.unique(np.asarray(list(modes), dtype=object).astype(str), return_inverse=True)
    unknown = [str(m) for m in names if m not in MODES]
    if unknown:
        raise ValueError(f"unknown node mode(s) {unknown}")
    codes = np.asarray([MODES.index(str(m)) for m in names], dtype=np.int8)  # one per distinct mode name
    return codes[inverse.reshape(-1)] if len(names) else np.zeros(0, dtype=np.int8)


def leaves_reached(forest: Forest, x: np.ndarray) -> np.ndarray:
    """The leaf each example reaches in each tree: int64 [N, T] node indices."""
    forest.check(x.shape[1])
    n_examples, n_trees = x.shape[0], len(forest.roots)
    values = x.astype(np.float64)
    at = np.broadcast_to(forest.roots, (n_examples, n_trees)).copy()
    rows = np.arange(n_examples)[:, None]
    has_members = forest.members.shape[0] > 0
    # Tree depth is inherently sequential: a level's node decides which node of the next level is visited.
    # A path longer than the number of nodes revisits a node: the branches form a cycle.
    for _ in range(len(forest.mode) + 1):
        mode = forest.mode[at]
        active = mode != LEAF
        if not active.any():
            return at
        v = values[rows, forest.feature[at]]
        t = forest.threshold[at]
        with np.errstate(invalid="ignore"):
            cond = np.select(
                [mode == LEQ, mode == LT, mode == GTE, mode == GT, mode == EQ, mode == NEQ],
                [v <= t, v < t, v >= t, v > t, v == t, v != t],
                default=False,
            )
            if has_members:
                in_set = (forest.members[forest.member_row[at]] == v[..., None]).any(axis=-1)
                cond = np.where(mode == MEMBER, in_set, cond)
        cond |= np.isnan(v) & forest.missing_true[at]
        at = np.where(active, np.where(cond, forest.true_next[at], forest.false_next[at]), at)
    raise ValueError("the tree branches form a cycle")


def leaf_table(
    n_nodes: int, n_targets: int, leaf: np.ndarray, target: np.ndarray, weight: np.ndarray, dtype: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Dense weights [nodes, targets] (weights of one leaf and target add up) and the mask of weighted pairs."""
    bad = (target < 0) | (target >= n_targets)
    if bad.any():
        raise ValueError(f"a leaf weight is for target {int(target[bad][0])}, outside [0, {n_targets})")
    table = np.zeros((n_nodes, n_targets), dtype=dtype)
    np.add.at(table, (leaf, target), weight.astype(dtype))
    mask = np.zeros((n_nodes, n_targets), dtype=bool)
    mask[leaf, target] = True
    return table, mask


def aggregate(
    reached: np.ndarray, table: np.ndarray, mask: np.ndarray, function: str
) -> tuple[np.ndarray, np.ndarray]:
    """Scores [N, targets] aggregated over the trees, and whether any tree weighed each (example, target)."""
    n_examples, n_trees = reached.shape
    n_targets = table.shape[1]
    weights = table[reached]  # [N, T, targets]
    weighed = mask[reached]
    any_weight = weighed.any(axis=1) if n_trees else np.zeros((n_examples, n_targets), dtype=bool)
    if n_trees == 0:
        return np.zeros((n_examples, n_targets), dtype=table.dtype), any_weight
    if function in ("SUM", "AVERAGE"):
        # running sums along the trees: added one tree after another, in tree order
        total = np.add.accumulate(weights, axis=1, dtype=table.dtype)[:, -1, :]
        if function == "AVERAGE":
            total = total / table.dtype.type(n_trees)
        return total.astype(table.dtype, copy=False), any_weight
    if function in ("MIN", "MAX"):
        fill = np.inf if function == "MIN" else -np.inf
        masked = np.where(weighed, weights, table.dtype.type(fill))
        best = masked.min(axis=1) if function == "MIN" else masked.max(axis=1)
        return np.where(any_weight, best, 0).astype(table.dtype), any_weight
    raise ValueError(f"aggregate_function must be one of {', '.join(AGGREGATES)}, not {function!r}")


def node_index(tree_ids: np.ndarray, node_ids: np.ndarray) -> Any:
    """A function mapping (tree id, node id) pairs to positions in the node lists (refusing unknown pairs)."""
    if len(tree_ids) == 0:
        raise ValueError("the ensemble has no nodes")
    t_min, n_min, n_max = int(tree_ids.min()), int(node_ids.min()), int(node_ids.max())
    span = n_max - n_min + 1
    keys = (tree_ids - t_min) * span + (node_ids - n_min)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    twice = sorted_keys[1:] == sorted_keys[:-1]
    if twice.any():
        k = int(order[np.flatnonzero(twice)[0]])
        raise ValueError(f"node {int(node_ids[k])} of tree {int(tree_ids[k])} is listed twice")

    def find(trees: np.ndarray, nodes: np.ndarray, what: str) -> np.ndarray:
        inside = (nodes >= n_min) & (nodes <= n_max) & (trees >= t_min)
        probe = np.where(inside, (trees - t_min) * span + (nodes - n_min), -1)
        pos = np.minimum(np.searchsorted(sorted_keys, probe), len(sorted_keys) - 1)
        found = inside & (sorted_keys[pos] == probe)
        if not found.all():
            k = int(np.flatnonzero(~found)[0])
            raise ValueError(f"{what} refers to node {int(nodes[k])} of tree {int(trees[k])}, which is not listed")
        return order[pos].astype(np.int64)

    return find


def legacy_forest(
    tree_ids: Sequence[int],
    node_ids: Sequence[int],
    feature_ids: Sequence[int],
    modes: Sequence[str],
    values: np.ndarray,
    true_ids: Sequence[int],
    false_ids: Sequence[int],
    missing_tracks_true: Sequence[int] | None,
) -> tuple[Forest, Any]:
    """The forest of TreeEnsembleRegressor / TreeEnsembleClassifier attributes, and its (tree, node) finder.

    Children are node ids of the same tree. A tree's root is the node of the
    tree no other node branches to (the first listed such node if several);
    trees are aggregated in the order they first appear in ``nodes_treeids``.
    """
    trees = np.asarray(tree_ids, dtype=np.int64)
    nodes = np.asarray(node_ids, dtype=np.int64)
    n = len(trees)
    lists = {"nodes_nodeids": nodes, "nodes_featureids": feature_ids, "nodes_modes": modes, "nodes_values": values,
             "nodes_truenodeids": true_ids, "nodes_falsenodeids": false_ids}
    for name, lst in lists.items():
        if len(lst) != n:
            raise ValueError(f"{name} has {len(lst)} entries, nodes_treeids {n}")
    if missing_tracks_true is not None and len(missing_tracks_true) not in (0, n):
        raise ValueError(f"nodes_missing_value_tracks_true has {len(missing_tracks_true)} entries for {n} nodes")
    if n == 0:
        raise ValueError("the ensemble has no nodes")
    mode = mode_codes(modes)
    if (mode == MEMBER).any():
        raise ValueError("BRANCH_MEMBER is a TreeEnsemble (version 5) mode only")
    find = node_index(trees, nodes)
    interior = mode != LEAF
    true_next = np.arange(n, dtype=np.int64)
    false_next = np.arange(n, dtype=np.int64)
    true_next[interior] = find(trees[interior], np.asarray(true_ids, dtype=np.int64)[interior], "a true branch")
    false_next[interior] = find(trees[interior], np.asarray(false_ids, dtype=np.int64)[interior], "a false branch")
    pointed = np.zeros(n, dtype=bool)
    pointed[true_next[interior]] = True
    pointed[false_next[interior]] = True
    _, first_seen = np.unique(trees, return_index=True)
    tree_order = trees[np.sort(first_seen)]
    # each tree's root: its first listed node that no node branches to
    candidates = np.flatnonzero(~pointed)
    cand_trees, first_candidate = np.unique(trees[candidates], return_index=True)
    pos = np.minimum(np.searchsorted(cand_trees, tree_order), max(len(cand_trees) - 1, 0))
    has_root = (cand_trees[pos] == tree_order) if len(cand_trees) else np.zeros(len(tree_order), dtype=bool)
    if not has_root.all():
        t = int(tree_order[np.flatnonzero(~has_root)[0]])
        raise ValueError(f"tree {t} has no root: every one of its nodes is some node's child")
    roots = candidates[first_candidate[pos]].astype(np.int64)
    tracks = np.asarray(missing_tracks_true, dtype=bool) if missing_tracks_true else np.zeros(n, dtype=bool)
    features = np.where(interior, np.asarray(feature_ids, dtype=np.int64), 0)
    forest = Forest(
        mode=mode,
        feature=features,
        threshold=np.asarray(values, dtype=np.float64),
        true_next=true_next,
        false_next=false_next,
        missing_true=tracks & interior,
        roots=roots,
        member_row=np.zeros(n, dtype=np.int64),
        members=np.zeros((0, 0)),
    )
    return forest, find
