"""Differential testing: cross-checks of the NumPy executor against independent runtimes.

The runtimes (the oracles) are onnx's reference evaluator and onnxruntime.
What the command line and the reports call a cross-check lives here.
:mod:`.verdicts` turns a cross-check into the ``EXEC-CROSSCHECK-*`` verdicts.

:mod:`.metrics` holds the error figures and the tolerance policy (also used by
the equivalence check of rewrites); :mod:`.oracles` runs the other runtimes;
:mod:`.run` puts them together into a :class:`~sonnx.differential.run.CrossCheckReport`.
"""

from __future__ import annotations

from .metrics import DEFAULT_TOLERANCES, OutputComparison, ResolvedTolerance, Tolerance, compare_arrays, ulp_distance

__all__ = ["DEFAULT_TOLERANCES", "OutputComparison", "ResolvedTolerance", "Tolerance", "compare_arrays", "ulp_distance"]
