"""MelWeightMatrix: triangular filters mapping ``dft_length // 2 + 1`` linear frequency bins to mel bands.

``mel(f) = 2595 log10(1 + f / 700)``. The mel range between the two edge
frequencies is cut into ``num_mel_bins + 2`` equal steps; the points
``m_0 .. m_{num_mel_bins+1}`` (the lower edge and the next ``num_mel_bins + 1``
steps) are mapped back to hertz and to spectrogram bins
``p_j = floor((dft_length + 1) f_j / sample_rate)``. Band ``i`` is a triangle
on bins ``p_i .. p_{i+2}``: rising ``(j - p_i) / (p_{i+1} - p_i)`` up to its
peak 1 at ``p_{i+1}``, falling ``(p_{i+2} - j) / (p_{i+2} - p_{i+1})`` after.
Output ``[dft_length // 2 + 1, num_mel_bins]`` of type ``output_datatype``.
One version.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._spectral import scalar_int
from .base import Kernel
from .values import numpy_dtype


def _scalar_float(v: Any, name: str) -> float:
    arr = np.asarray(v)
    if arr.size != 1:
        raise ValueError(f"{name} must be a scalar, it has {arr.size} elements")
    return float(arr.reshape(-1)[0])


def mel_weight_matrix(
    num_mel_bins: Any,
    dft_length: Any,
    sample_rate: Any,
    lower_edge_hertz: Any,
    upper_edge_hertz: Any,
    *,
    output_datatype: int = 1,
    **_attrs: Any,
) -> np.ndarray:
    bands = scalar_int(num_mel_bins, "num_mel_bins")
    length = scalar_int(dft_length, "dft_length")
    rate = scalar_int(sample_rate, "sample_rate")
    low = _scalar_float(lower_edge_hertz, "lower_edge_hertz")
    high = _scalar_float(upper_edge_hertz, "upper_edge_hertz")
    if bands < 1 or length < 1 or rate < 1:
        raise ValueError(f"num_mel_bins ({bands}), dft_length ({length}) and sample_rate ({rate}) must be positive")
    if not 0 <= low < high:
        raise ValueError(f"the edges must satisfy 0 <= lower ({low}) < upper ({high})")
    mel_low = 2595 * np.log1p(low / 700) / np.log(10)
    mel_high = 2595 * np.log1p(high / 700) / np.log(10)
    step = (mel_high - mel_low) / (bands + 2)
    mels = np.arange(bands + 2, dtype=np.float64) * step + mel_low
    hertz = 700 * np.expm1(mels / 2595 * np.log(10))
    points = np.floor((length + 1) * hertz / rate).astype(np.int64)
    left, centre, right = points[:-2], points[1:-1], points[2:]
    j = np.arange(length // 2 + 1, dtype=np.int64)[:, None]
    rise = (j - left) / np.maximum(centre - left, 1)
    fall = (right - j) / np.maximum(right - centre, 1)
    out = np.where(j == centre, 1.0, 0.0)
    out = np.where((j >= left) & (j < centre), rise, out)
    out = np.where((j > centre) & (j < right), fall, out)
    return out.astype(numpy_dtype(int(output_datatype)))


KERNELS = (Kernel("MelWeightMatrix", (17,), mel_weight_matrix),)
