"""Helpers shared by the ``ai.onnx.ml`` kernels: score transforms, class labels, attribute tensors, look-ups.

The score transforms (``post_transform``) act on the last axis of a score
matrix, one row per example:

* NONE: the scores unchanged;
* LOGISTIC: ``1 / (1 + exp(-s))`` element-wise;
* SOFTMAX: ``exp(s - max) / sum(exp(s - max))`` over the row;
* SOFTMAX_ZERO: the softmax over the row's non-zero scores, zeros staying zero;
* PROBIT: the inverse of the standard normal distribution function,
  ``sqrt(2) * erfinv(2 s - 1)``, element-wise.

[Non-normative: onnxruntime and onnx's reference evaluator compute PROBIT
with a coarse approximation of erfinv (a few 1e-3 off); sonnx evaluates the
inverse normal distribution function to about 1e-9 relative error.]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

TRANSFORMS = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")

# Rational approximation of the inverse normal distribution function (P. J. Acklam), relative error < 1.2e-9.
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425


def _poly(coefs: Sequence[float], t: np.ndarray) -> np.ndarray:
    """Horner evaluation of ``coefs[0] t^(n-1) + ... + coefs[-1]``."""
    acc = np.full_like(t, coefs[0])
    for c in coefs[1:]:
        acc = acc * t + c
    return acc


def probit(p: np.ndarray) -> np.ndarray:
    """The standard normal quantile of ``p`` (float64): -inf at 0, +inf at 1, NaN outside [0, 1]."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    with np.errstate(all="ignore"):
        q = p - 0.5
        r = q * q
        central = q * _poly(_A, r) / _poly((*_B, 1.0), r)
        tail_p = np.where(p < 0.5, p, 1.0 - p)
        t = np.sqrt(-2.0 * np.log(tail_p))
        tail = _poly(_C, t) / _poly((*_D, 1.0), t)
        tail = np.where(p < 0.5, tail, -tail)
    inside = (p > 0) & (p < 1)
    is_central = np.abs(q) <= 0.5 - _P_LOW
    out = np.where(inside & is_central, central, out)
    out = np.where(inside & ~is_central, tail, out)
    out = np.where(p == 0, -np.inf, out)
    return np.where(p == 1, np.inf, out)


def _exp(x: np.ndarray) -> np.ndarray:
    """exp in x's dtype; float32 goes through float64, so each result is the float32 nearest the true value."""
    if x.dtype == np.float64:
        return np.exp(x)
    return np.exp(x.astype(np.float64)).astype(x.dtype)


def row_sum(v: np.ndarray) -> np.ndarray:
    """The sum over the last axis, adding element after element (the order a scalar loop adds in)."""
    if v.shape[-1] == 0:
        return np.zeros((*v.shape[:-1], 1), dtype=v.dtype)
    return np.cumsum(v, axis=-1, dtype=v.dtype)[..., -1:]


def post_transform(scores: np.ndarray, name: str) -> np.ndarray:
    """``scores`` (rows of scores on the last axis, float32 or float64) after the named transform, same dtype.

    The logistic is computed as ``1 - 1 / (1 + exp(|s|))`` for negative s, which
    is exact in the tails; the softmax adds each row in order.
    """
    if name not in TRANSFORMS:
        raise ValueError(f"post_transform must be one of {', '.join(TRANSFORMS)}, not {name!r}")
    dtype = scores.dtype
    if name == "NONE" or scores.size == 0:
        return scores
    one = dtype.type(1)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if name == "LOGISTIC":
            v = one / (one + _exp(-np.abs(scores)))
            return np.where(scores < 0, one - v, v).astype(dtype, copy=False)
        if name == "PROBIT":
            return probit(scores).astype(dtype)
        if name == "SOFTMAX":
            e = _exp(scores - scores.max(axis=-1, keepdims=True))
            return (e / row_sum(e)).astype(dtype, copy=False)
        # SOFTMAX_ZERO: zero scores take no part and stay zero; a row of zeros stays zero
        nonzero = scores != 0
        top = np.where(nonzero, scores, -np.inf).max(axis=-1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0).astype(dtype)
        e = np.where(nonzero, _exp(scores - top), 0).astype(dtype, copy=False)
        total = row_sum(e)
        return np.where(total > 0, e / np.where(total > 0, total, one), e).astype(dtype, copy=False)


def texts(values: Any) -> np.ndarray:
    """A string tensor or attribute (str or UTF-8 bytes) as an object array of ``str``."""
    arr = np.asarray(values, dtype=object)
    if arr.size and any(isinstance(v, bytes) for v in arr.flat):
        arr = np.array([v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else v for v in arr.flat],
                       dtype=object).reshape(arr.shape)
    return arr


def map_values(raw: Sequence[Any]) -> np.ndarray:
    """The values of a map as one 1-D array: texts as str objects, NumPy scalars in their own type.

    Python numbers carry no ONNX type: floats are taken as float32 and ints as
    int64 (``map(..., float)`` and ``map(..., int64)``, the map types ML models use).
    """
    if any(isinstance(v, (str, bytes)) for v in raw):
        if not all(isinstance(v, (str, bytes)) for v in raw):
            raise ValueError("a map's values mix texts and numbers")
        return texts(list(raw))
    typed = [v for v in raw if isinstance(v, (np.generic, np.ndarray))]
    if typed:
        dtype = np.result_type(*typed)
    elif any(isinstance(v, float) for v in raw):
        dtype = np.dtype(np.float32)
    elif raw:
        dtype = np.dtype(np.int64)
    else:
        dtype = np.dtype(np.float32)
    return np.asarray(raw, dtype=dtype).reshape(-1)


def class_labels(ints: Sequence[int] | None, strings: Sequence[str] | None, *, required: bool = True) -> np.ndarray:
    """The ``classlabels_*`` attribute given: an int64 array or an object array of str (exactly one of them)."""
    if ints is not None and len(ints) and strings is not None and len(strings):
        raise ValueError("only one of the int64 and string class labels may be given")
    if strings is not None and len(strings):
        return texts(list(strings))
    if ints is not None and len(ints):
        return np.asarray(ints, dtype=np.int64)
    if required:
        raise ValueError("class labels (int64 or string) must be given")
    return np.zeros(0, dtype=np.int64)


def tensor_or_list(
    tensor: np.ndarray | None, values: Sequence[float] | None, dtype: Any = np.float32
) -> np.ndarray | None:
    """An attribute given as a tensor (``*_as_tensor``) or as a list of floats; None when neither is."""
    if tensor is not None and values is not None and len(values):
        raise ValueError("an attribute is given both as a list and as a tensor")
    if tensor is not None:
        return np.asarray(tensor).reshape(-1)
    if values is not None:
        return np.asarray(values, dtype=dtype)
    return None


def as_matrix(x: np.ndarray) -> np.ndarray:
    """A 1-D input as one row, a 2-D input unchanged (ML operators take [N, F] or [F])."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    if x.ndim != 2:
        raise ValueError(f"the input must be of shape [N, F] or [F], not {list(x.shape)}")
    return x


def lookup(keys: np.ndarray, values: np.ndarray, x: np.ndarray, default: Any, *, last_wins: bool = True) -> np.ndarray:
    """Each element of ``x`` replaced by the value of the equal key, or ``default`` when no key equals it.

    Keys and ``x`` compare by value (strings, integers, floats); a repeated key
    keeps its last value (``last_wins``) or its first. NaN matches no key here.
    """
    out_dtype = values.dtype
    if len(keys) != len(values):
        raise ValueError(f"{len(keys)} keys but {len(values)} values")
    flat = x.reshape(-1)
    if len(keys) == 0:
        return np.full(x.shape, default, dtype=out_dtype)
    # a stable sort puts equal keys in attribute order; keep the last (or first) of each run
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if last_wins:
        pos = np.searchsorted(sorted_keys, flat, side="right") - 1
        pos_ok = pos >= 0
    else:
        pos = np.searchsorted(sorted_keys, flat, side="left")
        pos_ok = pos < len(keys)
    safe = np.where(pos_ok, pos, 0)
    found = pos_ok & (sorted_keys[safe] == flat)
    picked = values[order[safe]]
    fill = default if out_dtype.kind == "O" else np.asarray(default, dtype=out_dtype)
    out = np.where(found, picked, fill)
    return np.asarray(out, dtype=out_dtype).reshape(x.shape)
