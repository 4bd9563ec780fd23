"""Attention: scaled dot-product attention over multi-head Q, K, V with masks and a key/value cache.

With ``s = sqrt(scale)`` (``scale`` defaults to ``1/sqrt(head_size)``)::

    scores = (s Q) (s K)^T                        [B, Hq, Sq, T]
    scores = softcap * tanh(scores / softcap)     when softcap > 0
    probs  = softmax(scores + bias)               over the keys
    Y      = probs V

Q is ``[B, Hq, Sq, D]`` or 3-D ``[B, Sq, Hq*D]`` (then ``q_num_heads`` is
needed; K and V likewise with ``kv_num_heads``), and Y follows Q's rank. With
fewer key/value heads than query heads, each key/value head serves a
contiguous group of query heads (GQA/MQA). ``past_key`` / ``past_value`` are
prepended to K / V; the results are ``present_key`` / ``present_value`` and
``T = past + kv``.

``bias`` sums: the mask (a boolean one gives 0 where True and -inf where
False; a numeric one is added; it broadcasts to ``[B, Hq, Sq, T]``); with
``is_causal`` -inf wherever key ``j > i + offset`` for query ``i``; with
``nonpad_kv_seqlen`` -inf at keys ``j >= nonpad[b]``; and from version 25 -inf
outside the window ``p - left <= j <= p + right`` around ``p = offset + i``
(a bound of -1 leaves that side open). ``offset`` is the past length with
``past_key``, ``nonpad[b] - Sq`` with ``nonpad_kv_seqlen`` only, else 0. A
query whose every key is excluded gives a zero row (of probabilities and of
Y). ``softmax_precision`` names the type the softmax runs in; the
probabilities are then cast back. ``qk_matmul_output`` is, by
``qk_matmul_output_mode``: 0 the raw scores, 1 after softcap, 2 with the bias
added, 3 the probabilities (in Q's type).

Versions: 23 as above without ``nonpad_kv_seqlen``; 24 adds that input and
lets the mask's last axis be shorter than ``T`` (it is padded with excluded
positions); 25 adds ``left_window_size`` / ``right_window_size``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._attention import expand_kv_heads, guarded_softmax, precision_dtype
from .base import Kernel

_MODES = (0, 1, 2, 3)


def _to_4d(x: np.ndarray, heads: int | None, name: str, heads_name: str) -> np.ndarray:
    if x.ndim == 4:
        return x
    if x.ndim != 3:
        raise ValueError(f"{name} must have rank 3 or 4, not {x.ndim}")
    if not heads or heads < 1:
        raise ValueError(f"a 3-D {name} needs the {heads_name} attribute")
    b, s, hidden = x.shape
    if hidden % heads:
        raise ValueError(f"{name}'s hidden size {hidden} is not a multiple of {heads_name}={heads}")
    return x.reshape(b, s, heads, hidden // heads).transpose(0, 2, 1, 3)


def _mask_bias(mask: np.ndarray, total: int, pad_short: bool, dtype: np.dtype) -> np.ndarray:
    """The additive bias of an attention mask, its key axis padded (excluded) up to ``total`` when allowed."""
    if mask.ndim == 0:
        mask = mask.reshape(1)
    if mask.ndim > 4:
        raise ValueError(f"attn_mask has rank {mask.ndim}, more than 4")
    if mask.dtype == np.bool_:
        bias = np.where(mask, np.zeros((), dtype), np.full((), -np.inf, dtype))
    else:
        bias = mask.astype(dtype)
    width = bias.shape[-1]
    if pad_short and width < total:
        pad = np.full((*bias.shape[:-1], total - width), -np.inf, dtype=dtype)
        bias = np.concatenate((bias, pad), axis=-1)
    elif width not in (1, total):
        raise ValueError(f"attn_mask's last dimension is {width}, the total key sequence length is {total}")
    return bias


def _attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    attn_mask: np.ndarray | None = None,
    past_key: np.ndarray | None = None,
    past_value: np.ndarray | None = None,
    nonpad_kv_seqlen: np.ndarray | None = None,
    *,
    pad_short_mask: bool,
    is_causal: int = 0,
    kv_num_heads: int | None = None,
    q_num_heads: int | None = None,
    qk_matmul_output_mode: int = 0,
    scale: float | None = None,
    softcap: float = 0.0,
    softmax_precision: int | None = None,
    left_window_size: int = -1,
    right_window_size: int = -1,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every version: the inputs and attributes of Attention-25, their defaults the schema's.

    ``pad_short_mask`` says whether a mask whose key axis is shorter than the
    total key length is padded with excluded positions (24 on) or refused (23).
    """
    work = q.dtype
    q4 = _to_4d(q, q_num_heads, "Q", "q_num_heads").astype(work, copy=False)
    k4 = _to_4d(k, kv_num_heads, "K", "kv_num_heads")
    v4 = _to_4d(v, kv_num_heads, "V", "kv_num_heads")
    batch, q_heads, q_len, head_size = q4.shape
    if k4.shape[0] != batch or v4.shape[0] != batch:
        raise ValueError(f"Q, K and V have batch sizes {batch}, {k4.shape[0]} and {v4.shape[0]}")
    if k4.shape[3] != head_size:
        raise ValueError(f"K's head size {k4.shape[3]} differs from Q's {head_size}")
    if k4.shape[1:3] != v4.shape[1:3]:
        raise ValueError(f"K (heads, length) {k4.shape[1:3]} and V {v4.shape[1:3]} differ")
    if (past_key is None) != (past_value is None):
        raise ValueError("past_key and past_value must be given together")
    past = 0
    if past_key is not None and past_value is not None:
        if past_key.ndim != 4 or past_key.shape[:2] != k4.shape[:2] or past_key.shape[3] != head_size:
            raise ValueError(f"past_key has shape {list(past_key.shape)}, K (as 4-D) {list(k4.shape)}")
        if past_value.shape[:3] != past_key.shape[:3] or past_value.shape[3] != v4.shape[3]:
            raise ValueError(f"past_value has shape {list(past_value.shape)}, V (as 4-D) {list(v4.shape)}")
        past = past_key.shape[2]
        k4 = np.concatenate((past_key.astype(k4.dtype, copy=False), k4), axis=2)
        v4 = np.concatenate((past_value.astype(v4.dtype, copy=False), v4), axis=2)
    present_key, present_value = k4, v4
    total = k4.shape[2]
    kw = expand_kv_heads(k4.astype(work, copy=False), q_heads, "K")
    vw = expand_kv_heads(v4.astype(work, copy=False), q_heads, "V")

    factor = 1 / np.sqrt(head_size) if scale is None else float(scale)
    root = np.asarray(np.sqrt(factor), dtype=work)
    scores = np.matmul(q4 * root, np.swapaxes(kw * root, -1, -2)).astype(work, copy=False)
    raw = scores
    if softcap and softcap > 0:
        scores = (softcap * np.tanh(scores / softcap)).astype(work, copy=False)
    capped = scores

    bias = np.zeros((1, 1, 1, 1), dtype=work)
    if attn_mask is not None:
        bias = _mask_bias(attn_mask, total, pad_short_mask, work)
        bias = bias.reshape((1,) * (4 - bias.ndim) + bias.shape)
    offset: np.ndarray = np.zeros((1, 1, 1, 1), dtype=np.int64)
    keys = np.arange(total).reshape(1, 1, 1, total)
    if nonpad_kv_seqlen is not None:
        lens = np.asarray(nonpad_kv_seqlen).astype(np.int64).reshape(-1)
        if lens.shape != (batch,):
            raise ValueError(f"nonpad_kv_seqlen has {lens.size} values for a batch of {batch}")
        if np.any(lens < 0) or np.any(lens > total):
            raise ValueError(f"nonpad_kv_seqlen values must lie in [0, {total}], got {lens.tolist()}")
        lens4 = lens.reshape(batch, 1, 1, 1)
        bias = bias + np.where(keys < lens4, 0, -np.inf).astype(work)
        if past_key is None:
            offset = lens4 - q_len
    if past_key is not None:
        offset = np.full((1, 1, 1, 1), past, dtype=np.int64)
    position = offset + np.arange(q_len).reshape(1, 1, q_len, 1)
    allowed = np.ones((1, 1, 1, 1), dtype=bool)
    if is_causal:
        allowed = allowed & (keys <= position)
    if left_window_size >= 0:
        allowed = allowed & (keys >= position - left_window_size)
    if right_window_size >= 0:
        allowed = allowed & (keys <= position + right_window_size)
    if not np.all(allowed):
        bias = bias + np.where(allowed, 0, -np.inf).astype(work)
    target = (batch, q_heads, q_len, total)
    try:
        fits = np.broadcast_shapes(bias.shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        shown = list(attn_mask.shape) if attn_mask is not None else []
        raise ValueError(f"attn_mask of shape {shown} does not broadcast to {list(target)}")
    logits = np.broadcast_to((scores + bias).astype(work, copy=False), target)

    dead = np.all(np.broadcast_to(bias, logits.shape) == -np.inf, axis=-1, keepdims=True)
    soft_type = precision_dtype(softmax_precision, work)
    probs = guarded_softmax(logits.astype(soft_type), dead).astype(work)
    y = np.matmul(probs, vw).astype(work, copy=False)
    if q.ndim == 3:
        y = y.transpose(0, 2, 1, 3).reshape(batch, q_len, -1)
    mode = int(qk_matmul_output_mode)
    if mode not in _MODES:
        raise ValueError(f"qk_matmul_output_mode must be 0, 1, 2 or 3, not {mode}")
    qk = (raw, capped, logits, probs)[mode]
    return y.astype(work), present_key, present_value, np.ascontiguousarray(qk).astype(work)


_NO_WINDOW = {"left_window_size": -1, "right_window_size": -1}


def attention_23(*inputs: Any, **attrs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Attention-23: inputs Q, K, V, attn_mask, past_key, past_value (no ``nonpad_kv_seqlen``), no window.

    The mask must broadcast to the full key length.
    """
    if len(inputs) > 6:
        raise TypeError(f"Attention-23 has 6 inputs at the most, not {len(inputs)}")
    return _attention(*inputs, pad_short_mask=False, **{**attrs, **_NO_WINDOW})


def attention_24(*inputs: Any, **attrs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Attention-24: Attention-25 without the window (both bounds open)."""
    return attention(*inputs, **{**attrs, **_NO_WINDOW})


def attention(
    *inputs: Any, left_window_size: int = -1, right_window_size: int = -1, **attrs: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Attention-25: with ``nonpad_kv_seqlen``, a mask key axis that may be short, and the sliding window bounds."""
    if left_window_size < -1 or right_window_size < -1:
        raise ValueError(f"window sizes must be -1 or more, got {left_window_size} and {right_window_size}")
    return _attention(*inputs, pad_short_mask=True, left_window_size=int(left_window_size),
                      right_window_size=int(right_window_size), **attrs)


KERNELS = (
    Kernel("Attention", (23,), attention_23),
    Kernel("Attention", (24,), attention_24),
    Kernel("Attention", (25,), attention),
)
