"""TreeEnsembleRegressor (ai.onnx.ml): the targets predicted by an ensemble of decision trees, float32 [N, n_targets].

Every example walks every tree from its root to a leaf (:mod:`sonnx.ops._trees`);
each leaf carries weights for some targets (``target_*``). For each target
the weights of the leaves reached are aggregated over the trees
(``aggregate_function`` SUM, AVERAGE, MIN or MAX), ``base_values`` are added,
and ``post_transform`` is applied. Versions 3 and 5 accept the float lists as
double tensors (``*_as_tensor``); version 5 only marks the operator as
deprecated in favour of TreeEnsemble. Versions behave alike. [Non-normative:
onnxruntime leaves out the base value of a target no reached leaf weighs,
and applies no transform but PROBIT to a single target.]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._legacy_trees import base_values, legacy_scores
from ._ml import post_transform as transform
from .base import Kernel


def tree_ensemble_regressor(
    x: np.ndarray,
    *,
    n_targets: int | None = None,
    aggregate_function: str = "SUM",
    post_transform: str = "NONE",
    **attrs: Any,
) -> np.ndarray:
    """Versions 1, 3 and 5."""
    if n_targets is not None and n_targets < 1:
        raise ValueError(f"n_targets must be positive, got {n_targets}")
    scores, _, outputs = legacy_scores(x, attrs, "target", n_targets, aggregate_function)
    base = base_values(attrs, outputs, scores.dtype)
    if base is not None:
        if len(base) != outputs:
            raise ValueError(f"{len(base)} base values for {outputs} targets")
        scores = scores + base
    return transform(scores.astype(np.float32), post_transform)


KERNELS = (Kernel("TreeEnsembleRegressor", (1, 3, 5), tree_ensemble_regressor, domain="ai.onnx.ml"),)
