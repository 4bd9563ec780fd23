"""Cross-checks of the NumPy executor against independent runtimes (onnx's reference evaluator, onnxruntime).

:mod:`.metrics` holds the error figures and the tolerance policy (also used by
the equivalence check of rewrites); :mod:`.oracles` runs the other runtimes;
:mod:`.run` puts them together into a :class:`~sonnx.crosscheck.run.CrossCheckReport`.
"""

from __future__ import annotations

from .metrics import DEFAULT_TOLERANCES, OutputComparison, ResolvedTolerance, Tolerance, compare_arrays, ulp_distance

__all__ = ["DEFAULT_TOLERANCES", "OutputComparison", "ResolvedTolerance", "Tolerance", "compare_arrays", "ulp_distance"]
