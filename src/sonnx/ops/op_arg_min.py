"""ArgMin: the index (int64) of the smallest element along ``axis``.

Ties go to the first occurrence, or to the last with ``select_last_index``
(opset 12 on). NaN counts as the smallest value (NumPy's rule; ONNX does not
say). Version 1 refuses a negative axis (defined from version 11). The code is
shared with ArgMax (:mod:`sonnx.ops._arg_extreme`).
"""

from __future__ import annotations

from ._arg_extreme import arg_extreme_versions
from .base import Kernel

arg_min, arg_min_1 = arg_extreme_versions("ArgMin", False, "arg_min")

KERNELS = (
    Kernel("ArgMin", (1,), arg_min_1),
    Kernel("ArgMin", (11, 12, 13), arg_min),
)
