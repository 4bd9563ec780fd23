"""Differential testing: cross-checks of the NumPy executor against independent runtimes.

The runtimes (the oracles) are onnx's reference evaluator and onnxruntime.
What the command line and the reports call a cross-check lives here.
:mod:`.verdicts` turns a cross-check into the ``EXEC-CROSSCHECK-*`` verdicts.

:mod:`.tolerance` holds the tolerance record an option of the check carries;
:mod:`.metrics` the error figures under that policy (also used by the
equivalence check of rewrites); :mod:`.oracles` runs the other runtimes;
:mod:`.run` puts them together into a :class:`~sonnx.differential.run.CrossCheckReport`.
The package imports none of them itself: its names are read from their
modules on first use (PEP 562), so that a check that holds a tolerance but
compares nothing does not import the comparison code.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "DEFAULT_TOLERANCES": ".tolerance",
    "OutputComparison": ".metrics",
    "ResolvedTolerance": ".tolerance",
    "Tolerance": ".tolerance",
    "compare_arrays": ".metrics",
    "ulp_distance": ".metrics",
}
"""Each name the package offers and the module that defines it."""

__all__ = ["DEFAULT_TOLERANCES", "OutputComparison", "ResolvedTolerance", "Tolerance", "compare_arrays", "ulp_distance"]

if TYPE_CHECKING:  # for type checkers only; at run time the names are read on first use
    from .metrics import OutputComparison, compare_arrays, ulp_distance
    from .tolerance import DEFAULT_TOLERANCES, ResolvedTolerance, Tolerance


def __getattr__(name: str) -> Any:
    """A name of :data:`_EXPORTS`, from the module that defines it, imported now."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
