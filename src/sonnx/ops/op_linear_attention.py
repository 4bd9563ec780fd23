"""LinearAttention: linear attention as a recurrence over a per-head state ``S`` of shape ``[d_k, d_v]``.

For each token t, with key k_t, value v_t, log-space decay g_t and rate b_t::

    linear:       S_t = S_{t-1} + k_t v_t^T
    gated:        S_t = exp(g_t) S_{t-1} + k_t v_t^T
    delta:        S_t = S_{t-1} + b_t k_t (v_t - S_{t-1}^T k_t)^T
    gated_delta:  S_t = D + b_t k_t (v_t - D^T k_t)^T,   D = exp(g_t) S_{t-1}
    o_t = scale * S_t^T q_t

``exp(g_t)`` scales the rows of S (one decay per key feature, decay
``[B, T, Hkv*d_k]``) or all of it (one per head, ``[B, T, Hkv]``). Inputs are
packed ``[B, T, H*d]``; query head h uses the state of key/value head
``h // (Hq / Hkv)``. ``scale`` 0 means ``1/sqrt(d_k)``. The state starts from
``past_state`` (zeros when omitted); ``present_state`` is the last one, in
``past_state``'s type (the query's when omitted). Arithmetic runs in float32
(the admitted types are float32 and narrower). One version.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel

_RULES = ("linear", "gated", "delta", "gated_delta")


def _heads(x: np.ndarray, heads: int, name: str) -> np.ndarray:
    """``[B, T, H*d]`` as float32 ``[B, H, T, d]``."""
    if x.ndim != 3:
        raise ValueError(f"{name} must be packed [batch, time, heads * features], its shape is {list(x.shape)}")
    b, t, hd = x.shape
    if hd % heads:
        raise ValueError(f"{name}'s last dimension {hd} is not a multiple of its {heads} heads")
    return x.reshape(b, t, heads, hd // heads).transpose(0, 2, 1, 3).astype(np.float32)


def linear_attention(
    query: np.ndarray,
    key: np.ndarray,
    value: np.ndarray,
    past_state: np.ndarray | None = None,
    decay: np.ndarray | None = None,
    beta: np.ndarray | None = None,
    *,
    q_num_heads: int | None = None,
    kv_num_heads: int | None = None,
    scale: float = 0.0,
    update_rule: str = "gated_delta",
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    if update_rule not in _RULES:
        raise ValueError(f"update_rule must be one of {_RULES}, not {update_rule!r}")
    if not q_num_heads or not kv_num_heads or q_num_heads < 1 or kv_num_heads < 1:
        raise ValueError("q_num_heads and kv_num_heads are required and must be positive")
    if q_num_heads % kv_num_heads:
        raise ValueError(f"q_num_heads={q_num_heads} is not a multiple of kv_num_heads={kv_num_heads}")
    q = _heads(query, q_num_heads, "query")
    k = _heads(key, kv_num_heads, "key")
    v = _heads(value, kv_num_heads, "value")
    batch, _, steps, d_k = q.shape
    d_v = v.shape[3]
    if k.shape != (batch, kv_num_heads, steps, d_k) or v.shape[:3] != (batch, kv_num_heads, steps):
        raise ValueError(f"query {list(query.shape)}, key {list(key.shape)} and value {list(value.shape)} disagree")
    gated = update_rule in ("gated", "gated_delta")
    delta = update_rule in ("delta", "gated_delta")
    factors: np.ndarray | None = None
    if gated:
        if decay is None:
            raise ValueError(f"update_rule {update_rule!r} needs the decay input")
        if decay.shape == (batch, steps, kv_num_heads * d_k):
            factors = np.exp(_heads(decay, kv_num_heads, "decay"))[..., None]  # [B, Hkv, T, d_k, 1]
        elif decay.shape == (batch, steps, kv_num_heads):
            factors = np.exp(decay.astype(np.float32)).transpose(0, 2, 1)[..., None, None]
        else:
            raise ValueError(f"decay has shape {list(decay.shape)}; want "
                             f"{[batch, steps, kv_num_heads * d_k]} or {[batch, steps, kv_num_heads]}")
    rates: np.ndarray | None = None
    if delta:
        if beta is None:
            raise ValueError(f"update_rule {update_rule!r} needs the beta input")
        if beta.shape not in ((batch, steps, kv_num_heads), (batch, steps, 1)):
            raise ValueError(f"beta has shape {list(beta.shape)}; want {[batch, steps, kv_num_heads]} or "
                             f"{[batch, steps, 1]}")
        rates = beta.astype(np.float32).transpose(0, 2, 1)[..., None]  # [B, Hkv or 1, T, 1]
    if past_state is None:
        state = np.zeros((batch, kv_num_heads, d_k, d_v), dtype=np.float32)
        state_type = query.dtype
    elif past_state.shape != (batch, kv_num_heads, d_k, d_v):
        raise ValueError(f"past_state has shape {list(past_state.shape)}, want {[batch, kv_num_heads, d_k, d_v]}")
    else:
        state = past_state.astype(np.float32)
        state_type = past_state.dtype
    factor = np.float32(scale) if scale else np.float32(1 / np.sqrt(d_k))
    group = q_num_heads // kv_num_heads
    out = np.zeros((batch, q_num_heads, steps, d_v), dtype=np.float32)
    # The recurrence is inherently sequential: the state of token t is built from that of token t-1.
    for t in range(steps):
        kt, vt = k[:, :, t], v[:, :, t]
        if factors is not None:
            state = state * factors[:, :, t]
        if rates is not None:
            predicted = np.einsum("bhkv,bhk->bhv", state, kt)
            update = rates[:, :, t] * (vt - predicted)
        else:
            update = vt
        state = state + kt[..., :, None] * update[..., None, :]
        shared = np.repeat(state, group, axis=1) if group > 1 else state
        out[:, :, t] = factor * np.einsum("bhk,bhkv->bhv", q[:, :, t], shared)
    packed = out.transpose(0, 2, 1, 3).reshape(batch, steps, q_num_heads * d_v)
    return packed.astype(query.dtype), state.astype(state_type)


KERNELS = (Kernel("LinearAttention", (27,), linear_attention),)
