"""TreeEnsembleClassifier (ai.onnx.ml): class scores of an ensemble of decision trees and the top class.

Every example walks every tree from its root to a leaf (:mod:`sonnx.ops._trees`);
each leaf carries weights for some classes (``class_*``). A class's score is
the sum of the weights of the leaves reached, plus its ``base_values`` entry.
The label Y is a class label (int64 or string), Z holds float32 scores.

More than two classes: Y is the class with the largest score among the classes
that received a weight or a base value (the first of equal ones), and
Z = ``post_transform(scores)``, [N, E].

Two classes (E = 2) whose leaves weigh both classes behave the same way. When
the leaves weigh only one class k, that class's score s (plus its base value,
or the single base value when only one is given) is a margin for the second
class: Y is the second label when s > 0.5 (all class weights >= 0, s a
probability) or s > 0 (some weight negative), else the first. If k is the
first class and at most one base value is given, s is the only score and Z
is its two-column expansion: ``[1 - p, p]`` with p = s
(or its LOGISTIC or PROBIT transform) when the weights are all >= 0;
otherwise ``[-p, p]``, or ``[logistic(-s), logistic(s)]`` under LOGISTIC.
Otherwise Z = ``post_transform([s_0, s_1])``. [Non-normative: this is how
skl2onnx encodes binary tree classifiers (one weight per leaf, class id 0)
and how onnxruntime evaluates them; onnxruntime labels a two-class ensemble
that weighs both classes by the sign of the second score, which sonnx does
not follow.]

A single class (E = 1): Y is that class, Z its transformed score.

Versions 3 and 5 accept the float lists as double tensors (``*_as_tensor``);
version 5 only marks the operator deprecated. Versions behave alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._legacy_trees import base_values, legacy_scores
from ._ml import class_labels, tensor_or_list
from ._ml import post_transform as transform
from .base import Kernel


def _one_score(s: np.ndarray, positive: bool, name: str) -> np.ndarray:
    """The two columns of Z for a binary classifier with one score per example (float32).

    The expansion is computed in the scores' type, the transforms in float32.
    """
    if name == "LOGISTIC" and not positive:
        low = s.astype(np.float32)
        return np.stack([transform(-low, name), transform(low, name)], axis=1)
    p = transform(s.astype(np.float32), name).astype(s.dtype) if name in ("LOGISTIC", "PROBIT") else s
    one = s.dtype.type(1)
    return np.stack([one - p, p] if positive else [-p, p], axis=1).astype(np.float32)


def _top_voted(scores: np.ndarray, voted: np.ndarray) -> np.ndarray:
    """The index of the largest score among the voted classes of each row (all classes where none is voted)."""
    candidates = np.where(voted.any(axis=1, keepdims=True), voted, True)
    return np.argmax(np.where(candidates, scores, -np.inf), axis=1)


def tree_ensemble_classifier(
    x: np.ndarray,
    *,
    classlabels_int64s: Sequence[int] | None = None,
    classlabels_strings: Sequence[str] | None = None,
    post_transform: str = "NONE",
    **attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """Versions 1, 3 and 5."""
    labels = class_labels(classlabels_int64s, classlabels_strings)
    n_classes = len(labels)
    scores, voted, _ = legacy_scores(x, attrs, "class", n_classes, "SUM")
    base = base_values(attrs, n_classes, scores.dtype)
    if base is not None and len(base) not in (n_classes, 1 if n_classes <= 2 else n_classes):
        raise ValueError(f"{len(base)} base values for {n_classes} classes")
    weights = tensor_or_list(attrs.get("class_weights_as_tensor"), attrs.get("class_weights"), np.float32)
    class_ids = np.asarray(attrs.get("class_ids") or [], dtype=np.int64)
    weighed_classes = np.unique(class_ids)
    n = scores.shape[0]

    if n_classes == 2 and len(weighed_classes) == 1:
        k = int(weighed_classes[0])
        positive = weights is None or bool((weights >= 0).all())
        threshold = 0.5 if positive else 0.0
        if k == 0 and (base is None or len(base) == 1):
            s = scores[:, 0] + (base[0] if base is not None else 0)
            chosen = labels[(s > threshold).astype(np.int64)]
            return chosen, _one_score(s, positive, post_transform)
        full = scores.copy()
        if base is not None and len(base) == 2:
            full += base
        elif base is not None:
            full[:, k] += base[0]  # one base value: the base of the one score
        chosen = labels[(full[:, k] > threshold).astype(np.int64)]
        return chosen, transform(full.astype(np.float32), post_transform)

    if base is not None:
        if len(base) != n_classes:
            raise ValueError(f"{len(base)} base values for {n_classes} classes")
        scores = scores + base
        voted = np.ones_like(voted)
    if n_classes == 1:
        chosen = np.repeat(labels, n)
    else:
        chosen = labels[_top_voted(scores, voted)] if n else labels[:0]
    return chosen, transform(scores.astype(np.float32), post_transform)


KERNELS = (Kernel("TreeEnsembleClassifier", (1, 3, 5), tree_ensemble_classifier, domain="ai.onnx.ml"),)
