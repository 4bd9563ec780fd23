"""RotaryEmbedding: rotary positional embedding (RoPE) of the first ``rotary_embedding_dim`` features of each head.

The rotated features of a head are viewed as ``R/2`` pairs ``(x1_k, x2_k)``:
the two halves of the rotated part, or with ``interleaved`` its even and odd
features. Each pair is rotated by the angle of its token and index::

    x1' = cos * x1 - sin * x2
    x2' = sin * x1 + cos * x2

``cos`` / ``sin`` come from the caches: rows ``position_ids[b, s]`` of the
``[max_position + 1, R/2]`` caches, or, without ``position_ids``, caches
already shaped ``[B, S, R/2]``. Features past ``R`` are copied. X is
``[B, H, S, D]`` or ``[B, S, H*D]`` (then ``num_heads`` is needed); ``R``
defaults to the head size ``D``. One version.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def rotary_embedding(
    x: np.ndarray,
    cos_cache: np.ndarray,
    sin_cache: np.ndarray,
    position_ids: np.ndarray | None = None,
    *,
    interleaved: int = 0,
    num_heads: int | None = None,
    rotary_embedding_dim: int = 0,
    **_attrs: Any,
) -> np.ndarray:
    if x.ndim == 4:
        tokens = np.swapaxes(x, 1, 2)  # [B, S, H, D]
    elif x.ndim == 3:
        if not num_heads or num_heads < 1:
            raise ValueError("a 3-D input needs the num_heads attribute")
        b, s, hidden = x.shape
        if hidden % num_heads:
            raise ValueError(f"the hidden size {hidden} is not a multiple of num_heads={num_heads}")
        tokens = x.reshape(b, s, num_heads, hidden // num_heads)
    else:
        raise ValueError(f"the input must have rank 3 or 4, not {x.ndim}")
    batch, seq, _, head = tokens.shape
    rot = int(rotary_embedding_dim) or head
    if rot % 2 or rot > head or rot < 0:
        raise ValueError(f"rotary_embedding_dim {rot} must be even and at most the head size {head}")
    if position_ids is not None:
        if position_ids.shape != (batch, seq):
            raise ValueError(f"position_ids has shape {list(position_ids.shape)}, want {[batch, seq]}")
        if cos_cache.ndim != 2 or sin_cache.ndim != 2:
            raise ValueError("with position_ids the caches must be 2-D [max_position + 1, rotary_dim / 2]")
        limit = min(cos_cache.shape[0], sin_cache.shape[0])
        if np.any(position_ids < 0) or np.any(position_ids >= limit):
            raise ValueError(f"position_ids must lie in [0, {limit - 1}]")
        cos, sin = cos_cache[position_ids], sin_cache[position_ids]
    else:
        cos, sin = cos_cache, sin_cache
    half = rot // 2
    for name, cache in (("cos_cache", cos), ("sin_cache", sin)):
        if cache.shape != (batch, seq, half):
            raise ValueError(f"{name} gives shape {list(cache.shape)} per token, want {[batch, seq, half]}")
    cos = cos[:, :, None, :].astype(x.dtype, copy=False)
    sin = sin[:, :, None, :].astype(x.dtype, copy=False)
    part = tokens[..., :rot]
    if interleaved:
        x1, x2 = part[..., 0::2], part[..., 1::2]
    else:
        x1, x2 = part[..., :half], part[..., half:]
    first = cos * x1 - sin * x2
    second = sin * x1 + cos * x2
    out = tokens.copy()
    if interleaved:
        out[..., 0:rot:2] = first
        out[..., 1:rot:2] = second
    else:
        out[..., :half] = first
        out[..., half:rot] = second
    return np.swapaxes(out, 1, 2).copy() if x.ndim == 4 else out.reshape(x.shape)


KERNELS = (Kernel("RotaryEmbedding", (23,), rotary_embedding),)
