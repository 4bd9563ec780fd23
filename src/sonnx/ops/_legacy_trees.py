"""The attribute reading shared by TreeEnsembleRegressor and TreeEnsembleClassifier (versions 1, 3, 5).

Both describe nodes by ``nodes_*`` lists keyed by (tree id, node id) and hang
weights on leaves by (tree id, node id, target or class). Versions 3 and 5
may give the float lists as double tensors (``*_as_tensor``); the values are
the same either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._ml import as_matrix, tensor_or_list
from ._trees import aggregate, leaf_table, leaves_reached, legacy_forest


def accumulation_type(x: np.ndarray) -> type[np.floating]:
    """Scores add up in float64 for double inputs, in float32 otherwise (the outputs are float32)."""
    return np.float64 if x.dtype == np.float64 else np.float32


def legacy_scores(
    x: np.ndarray,
    attrs: dict[str, Any],
    prefix: str,
    n_outputs: int | None,
    function: str,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Aggregated scores [N, outputs], the mask of weighed (example, output) pairs, and the number of outputs.

    ``prefix`` is ``target`` (regressor) or ``class`` (classifier); ``n_outputs``
    None takes one more than the largest target id.
    """
    rows = as_matrix(x)
    acc = accumulation_type(x)

    def ints(name: str) -> Sequence[int]:
        v = attrs.get(name)
        return [] if v is None else v

    tree_ids = ints("nodes_treeids")
    values = tensor_or_list(attrs.get("nodes_values_as_tensor"), attrs.get("nodes_values"), np.float32)
    if values is None:
        values = np.zeros(len(tree_ids))
    forest, find = legacy_forest(
        tree_ids,
        ints("nodes_nodeids"),
        ints("nodes_featureids"),
        [str(m) for m in (attrs.get("nodes_modes") or [])],
        values,
        ints("nodes_truenodeids"),
        ints("nodes_falsenodeids"),
        attrs.get("nodes_missing_value_tracks_true"),
    )
    w_trees = np.asarray(ints(f"{prefix}_treeids"), dtype=np.int64)
    w_nodes = np.asarray(ints(f"{prefix}_nodeids"), dtype=np.int64)
    w_ids = np.asarray(ints(f"{prefix}_ids"), dtype=np.int64)
    weights = tensor_or_list(attrs.get(f"{prefix}_weights_as_tensor"), attrs.get(f"{prefix}_weights"), np.float32)
    if weights is None:
        weights = np.zeros(0)
    if not len(w_trees) == len(w_nodes) == len(w_ids) == len(weights):
        raise ValueError(
            f"{prefix}_treeids, {prefix}_nodeids, {prefix}_ids and {prefix}_weights must have one length, "
            f"not {len(w_trees)}, {len(w_nodes)}, {len(w_ids)}, {len(weights)}"
        )
    if n_outputs is None:
        n_outputs = int(w_ids.max()) + 1 if len(w_ids) else 1
    leaf = find(w_trees, w_nodes, f"a {prefix} weight") if len(w_trees) else np.zeros(0, dtype=np.int64)
    table, mask = leaf_table(len(forest.mode), n_outputs, leaf, w_ids, weights, acc)
    reached = leaves_reached(forest, rows)
    scores, weighed = aggregate(reached, table, mask, function)
    return scores, weighed, n_outputs


def base_values(attrs: dict[str, Any], n_outputs: int, dtype: Any) -> np.ndarray | None:
    """``base_values`` (or ``base_values_as_tensor``) in ``dtype``, None when not given."""
    base = tensor_or_list(attrs.get("base_values_as_tensor"), attrs.get("base_values"), np.float32)
    if base is None or len(base) == 0:
        return None
    return base.astype(dtype)
