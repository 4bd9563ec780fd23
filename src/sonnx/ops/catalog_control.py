"""The control-flow kernels: If, Loop and Scan run nested graphs through the scope."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_if",
    "op_loop",
    "op_scan",
)

MODULES = operator_modules(__package__, NAMES)
