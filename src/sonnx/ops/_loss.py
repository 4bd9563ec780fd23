"""The negative log-likelihood loss shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

For log-probabilities ``x`` of shape (N, C, d1, ..., dk) and labels ``t`` of
shape (N, d1, ..., dk): ``w[n, d] = weight[t[n, d]]`` (1 without weights, 0
where ``t = ignore_index``) and ``loss[n, d] = -x[n, t[n, d], d] * w[n, d]``.
Reductions: ``none`` returns ``loss``; ``sum`` its sum; ``mean`` its sum over
the sum of ``w`` (without weights and ignored labels: the plain mean). When
every label is ignored, ``mean`` is 0/0 = NaN. A label outside [0, C) that is
not ``ignore_index`` is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._indexing import integer_indices, text
from ._windows import accumulation_dtype

REDUCTIONS = ("none", "sum", "mean")


def nll_loss(
    x: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None,
    operator: str,
    *,
    reduction: Any = "mean",
    ignore_index: int | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """The loss in ``x``'s element type (computed in float32 for narrower floats).

    ``reduction`` and ``ignore_index`` are the two operators' attributes, with their schema defaults.
    """
    how = text(reduction)
    if how not in REDUCTIONS:
        raise ValueError(f"{operator}: reduction '{how}' is not one of {', '.join(REDUCTIONS)}")
    if x.ndim < 2:
        raise ValueError(f"{operator}: the input must have shape (N, C, d1, ..., dk), got rank {x.ndim}")
    n, c = x.shape[:2]
    if target.shape != (n, *x.shape[2:]):
        raise ValueError(f"{operator}: target shape {list(target.shape)} should be {[n, *x.shape[2:]]}")
    if weight is not None and weight.shape != (c,):
        raise ValueError(f"{operator}: weight shape {list(weight.shape)} should be [{c}]")
    t = integer_indices(target, operator, "target").reshape(n, int(np.prod(x.shape[2:], dtype=np.int64)))
    ignored = (t == int(ignore_index)) if ignore_index is not None else np.zeros(t.shape, dtype=bool)
    if np.any(~ignored & ((t < 0) | (t >= c))):
        bad = int(t[~ignored & ((t < 0) | (t >= c))][0])
        raise ValueError(f"{operator}: label {bad} outside [0, {c - 1}] and not ignore_index")
    safe = np.where(ignored, 0, t)
    acc = accumulation_dtype(x.dtype)
    x3 = x.astype(acc, copy=False).reshape(n, c, t.shape[1])
    picked = np.take_along_axis(x3, safe[:, None, :], axis=1)[:, 0, :]
    if weight is None:
        w = np.ones(t.shape, dtype=acc)
    else:
        w = weight.astype(acc, copy=False)[safe]
    w = np.where(ignored, np.zeros((), dtype=acc), w)
    loss = np.where(ignored, np.zeros((), dtype=acc), -picked * w)
    if how == "none":
        out = loss.reshape(target.shape)
    elif how == "sum":
        out = np.asarray(loss.sum(dtype=acc))
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.asarray(loss.sum(dtype=acc) / w.sum(dtype=acc))
    return np.asarray(out).astype(x.dtype, copy=False)


def log_softmax_classes(scores: np.ndarray) -> np.ndarray:
    """``log(softmax(scores))`` over axis 1, as ``s - max - log(sum(exp(s - max)))`` (no overflow)."""
    acc = accumulation_dtype(scores.dtype)
    s = scores.astype(acc, copy=False)
    shifted = s - s.max(axis=1, keepdims=True)
    return np.asarray(shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)))
