"""ArgMax: the index (int64) of the largest element along ``axis``.

Ties go to the first occurrence, or to the last with ``select_last_index``
(opset 12 on). NaN counts as the largest value (NumPy's rule; ONNX does not
say). The code is shared with ArgMin (:mod:`sonnx.ops._arg_extreme`).
"""

from __future__ import annotations

from ._arg_extreme import arg_extreme_versions
from .base import Kernel

arg_max, arg_max_1 = arg_extreme_versions("ArgMax", True, "arg_max")

KERNELS = (
    Kernel("ArgMax", (1,), arg_max_1),
    Kernel("ArgMax", (11, 12, 13), arg_max),
)
