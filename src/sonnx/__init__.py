"""sonnx: a checker for the SONNX graph profile of ONNX models.

The flow is one-way: ONNX file -> :mod:`sonnx.loader` -> :mod:`sonnx.model`
-> :mod:`sonnx.rules` -> :mod:`sonnx.base.verdict` -> report.

The Python API (:mod:`sonnx.api`) is available from here: :func:`check`,
:func:`batch`, :func:`run`, :func:`crosscheck`, :func:`load`, with the
records they return and the errors they raise. They are imported on first
use (PEP 562), so that ``import sonnx`` stays cheap and no module below the
API imports it by importing the package.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .base.version import __version__

_EXPORTS: dict[str, str] = {
    "check": "sonnx.api",
    "batch": "sonnx.api",
    "run": "sonnx.api",
    "crosscheck": "sonnx.api",
    "load": "sonnx.api",
    "check_options": "sonnx.api",
    "CheckOptions": "sonnx.checking.options",
    "ModelReport": "sonnx.checking.report",
    "Batch": "sonnx.checking.batch",
    "CrossCheckReport": "sonnx.differential.run",
    "Tolerance": "sonnx.differential.tolerance",
    "Model": "sonnx.model.graph",
    "Verdict": "sonnx.base.verdict",
    "Status": "sonnx.base.verdict",
    "Severity": "sonnx.base.verdict",
    "Witness": "sonnx.base.verdict",
    "SonnxError": "sonnx.base.errors",
    "UsageError": "sonnx.base.errors",
    "InputError": "sonnx.base.errors",
    "ModelFormatError": "sonnx.base.errors",
    "UnsupportedModelError": "sonnx.base.errors",
    "ExternalDataError": "sonnx.base.errors",
    "UnsafePathError": "sonnx.base.errors",
    "ExecutionError": "sonnx.base.errors",
    "ToolError": "sonnx.base.errors",
    "qualify": "sonnx.api",
    "Outcome": "sonnx.base.verdict",
}
"""Each public name and the module that defines it."""

__all__ = [
    "__version__",
    "check",
    "batch",
    "run",
    "crosscheck",
    "load",
    "check_options",
    "CheckOptions",
    "ModelReport",
    "Batch",
    "CrossCheckReport",
    "Tolerance",
    "Model",
    "Verdict",
    "Status",
    "Severity",
    "Witness",
    "SonnxError",
    "UsageError",
    "InputError",
    "ModelFormatError",
    "UnsupportedModelError",
    "ExternalDataError",
    "UnsafePathError",
    "ExecutionError",
    "ToolError",
    "qualify",
    "Outcome",
]
"""The public names: ``__version__`` and those of :data:`_EXPORTS` (a test keeps the two lists equal)."""

if TYPE_CHECKING:  # for type checkers and editors only; at run time the names are read on first use
    from .api import batch, check, check_options, crosscheck, load, qualify, run
    from .base.errors import (
        ExecutionError,
        ExternalDataError,
        InputError,
        ModelFormatError,
        SonnxError,
        ToolError,
        UnsafePathError,
        UnsupportedModelError,
        UsageError,
    )
    from .base.verdict import Outcome, Severity, Status, Verdict, Witness
    from .checking.batch import Batch
    from .checking.options import CheckOptions
    from .checking.report import ModelReport
    from .differential.run import CrossCheckReport
    from .differential.tolerance import Tolerance
    from .model.graph import Model


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sonnx' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
