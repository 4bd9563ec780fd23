"""sonnx: a checker for the SONNX graph profile of ONNX models.

The flow is one-way: ONNX file -> :mod:`sonnx.loader` -> :mod:`sonnx.model`
-> :mod:`sonnx.rules` -> :mod:`sonnx.verdict` -> report.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
