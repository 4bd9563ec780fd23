"""FlexAttention (ai.onnx.preview): scaled dot-product attention with user subgraphs on scores and probabilities.

With ``s = sqrt(scale)`` (``scale`` defaults to ``1/sqrt(head_size)``)::

    scores = (s Q) (s K)^T           [B, Hq, L, S], then in the softmax type
    scores = score_mod(scores)       when the subgraph is given
    probs  = softmax(scores)         over the keys
    probs  = prob_mod(probs)         when the subgraph is given
    Y      = probs V                 in Q's type

Q, K, V are rank 4; a key/value head serves a contiguous group of query heads
(``h // (Hq / Hkv)``). The softmax type is ``softmax_precision``, by default
float64 for float64 inputs and float32 otherwise; the scaled product itself is
computed in the input type. A query row whose scores are all ``-inf`` (masked
out by ``score_mod``) gives zero probabilities. Each subgraph maps one tensor
of the softmax type and shape ``[B, Hq, L, S]`` to one of the same shape.
One version.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..model.graph import Graph
from ._attention import expand_kv_heads, guarded_softmax, precision_dtype
from .base import Kernel


def _modify(graph: Graph, x: np.ndarray, scope: Any, name: str) -> np.ndarray:
    outs = scope.run_nested(graph, (x,))
    if len(outs) != 1 or not isinstance(outs[0], np.ndarray):
        raise ValueError(f"{name} must produce exactly one tensor")
    y = outs[0]
    if y.shape != x.shape:
        raise ValueError(f"{name} turned shape {list(x.shape)} into {list(y.shape)}")
    return y.astype(x.dtype, copy=False)


def flex_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    *,
    scope: Any,
    scale: float | None = None,
    softmax_precision: int | None = None,
    score_mod: Graph | None = None,
    prob_mod: Graph | None = None,
    **_attrs: Any,
) -> np.ndarray:
    for name, x in (("Q", q), ("K", k), ("V", v)):
        if x.ndim != 4:
            raise ValueError(f"{name} must have rank 4, its shape is {list(x.shape)}")
    batch, q_heads, _, head_size = q.shape
    if k.shape[0] != batch or v.shape[0] != batch or k.shape[3] != head_size:
        raise ValueError(f"Q {list(q.shape)}, K {list(k.shape)} and V {list(v.shape)} disagree")
    if k.shape[1:3] != v.shape[1:3]:
        raise ValueError(f"K (heads, length) {k.shape[1:3]} and V {v.shape[1:3]} differ")
    kw = expand_kv_heads(k.astype(q.dtype, copy=False), q_heads, "K")
    vw = expand_kv_heads(v, q_heads, "V")
    factor = 1 / np.sqrt(head_size) if scale is None else float(scale)
    root = np.asarray(np.sqrt(np.float32(factor)), dtype=q.dtype)
    default = np.dtype(np.float64) if q.dtype == np.float64 else np.dtype(np.float32)
    soft = precision_dtype(softmax_precision, default)
    scores = np.matmul(q * root, np.swapaxes(kw * root, -1, -2)).astype(q.dtype, copy=False).astype(soft)
    if score_mod is not None:
        scores = _modify(score_mod, scores, scope, "score_mod")
    probs = guarded_softmax(scores)
    if prob_mod is not None:
        probs = _modify(prob_mod, probs, scope, "prob_mod")
    return np.matmul(probs, vw.astype(soft)).astype(q.dtype)


KERNELS = (Kernel("FlexAttention", (1,), flex_attention, domain="ai.onnx.preview", needs_scope=True),)
