"""What the attention operators (Attention, FlexAttention) share.

* :func:`expand_kv_heads`: grouped-query attention. With ``Hq`` query heads
  and ``Hkv`` key/value heads (``Hkv`` divides ``Hq``), query head ``h`` reads
  key/value head ``h // (Hq / Hkv)``: each key/value head is repeated for a
  contiguous group of query heads.
* :func:`guarded_softmax`: softmax over the last axis that returns a zero row,
  not NaN, for a row whose every logit is ``-inf`` (no key may be attended).
* :func:`precision_dtype`: the NumPy type of a ``softmax_precision`` value.
"""

from __future__ import annotations

import numpy as np

from .values import numpy_dtype

_SOFTMAX_TYPES = (1, 10, 11, 16)  # FLOAT, FLOAT16, DOUBLE, BFLOAT16


def expand_kv_heads(x: np.ndarray, q_heads: int, name: str) -> np.ndarray:
    """``x`` ``[B, Hkv, S, D]`` with every head repeated so that there are ``q_heads`` heads."""
    kv_heads = x.shape[1]
    if kv_heads == q_heads:
        return x
    if kv_heads < 1 or q_heads % kv_heads:
        raise ValueError(f"{name} has {kv_heads} heads, which does not divide the {q_heads} query heads")
    return np.repeat(x, q_heads // kv_heads, axis=1)


def guarded_softmax(logits: np.ndarray, dead: np.ndarray | None = None) -> np.ndarray:
    """Softmax along the last axis; rows flagged in ``dead`` (default: rows of only ``-inf``) give zeros."""
    if dead is None:
        dead = np.all(logits == -np.inf, axis=-1, keepdims=True)
    zero = np.zeros((), dtype=logits.dtype)
    if logits.shape[-1] == 0:
        return logits.copy()
    peak = np.max(logits, axis=-1, keepdims=True)
    peak = np.where(np.isneginf(peak), zero, peak)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        e = np.exp(logits - peak)
        total = np.sum(e, axis=-1, keepdims=True)
        probs = e / np.where(total == zero, np.ones((), dtype=logits.dtype), total)
    return np.where(dead, zero, probs).astype(logits.dtype, copy=False)


def precision_dtype(softmax_precision: int | None, default: np.dtype) -> np.dtype:
    """The type a ``softmax_precision`` attribute names, ``default`` when it is not set."""
    if softmax_precision is None:
        return default
    if int(softmax_precision) not in _SOFTMAX_TYPES:
        raise ValueError(f"softmax_precision must be FLOAT, FLOAT16, DOUBLE or BFLOAT16, not {softmax_precision}")
    return numpy_dtype(int(softmax_precision))
