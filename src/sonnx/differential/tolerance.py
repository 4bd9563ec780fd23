"""The tolerance of a comparison: the per-dtype defaults, a user's overrides, and the named policies.

The record :class:`Tolerance` is one option of a check (``--tolerance``,
``--atol``, ``--rtol``, ``--ulp``, ``--quant-steps``), so the options record
and the command line hold one before anything is compared; it lives apart from
the figures of :mod:`.metrics`, which read it, so that making the options of a
check without a cross-check does not import the comparison code. What the
figures mean and how a policy combines them: :mod:`.metrics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import UsageError
from .quant import MAX_QUANT_STEPS, StepTolerance

POLICIES = ("default", "sonnx-wg")
"""The tolerance policies ``--tolerance`` accepts."""


@dataclass(frozen=True)
class ResolvedTolerance:
    """The concrete tolerance used for one dtype (no field left to a default)."""

    atol: float
    rtol: float
    ulp: int
    exact: bool
    """True for integer and boolean dtypes: only equal values are within tolerance."""
    step: StepTolerance | None = None
    """The output's tolerance in quantization steps, when it has one (see :mod:`.metrics`)."""
    all_of: tuple[str, ...] = ()
    """When not empty: the criteria (``atol``, ``rtol``, ``ulp``) that must all hold for a float element that is
    not equal to the expected one (a named policy's combination); empty: the default combination."""
    policy: str = ""
    """Where a named policy's figures come from for this output (its class), empty under the default policy."""

    def to_json(self) -> dict[str, Any]:
        step = None if self.step is None else self.step.to_json()
        out: dict[str, Any] = {"atol": self.atol, "rtol": self.rtol, "ulp": self.ulp, "exact": self.exact,
                               "step": step}
        if self.policy:  # only then: a record written before named policies existed reads the same
            out["policy"] = {"class": self.policy, "all_of": list(self.all_of)}
        return out


DEFAULT_TOLERANCES: dict[str, ResolvedTolerance] = {
    "float16": ResolvedTolerance(atol=1e-3, rtol=1e-3, ulp=2, exact=False),
    "float32": ResolvedTolerance(atol=1e-5, rtol=1e-4, ulp=4, exact=False),
    "float64": ResolvedTolerance(atol=1e-12, rtol=1e-10, ulp=4, exact=False),
}
"""Default tolerance per floating-point dtype. The float32 figures allow the
reassociation of sums that optimised kernels (im2col, blocked GEMM) perform;
float64 is held far tighter. Any other dtype is compared exactly."""

EXACT = ResolvedTolerance(atol=0.0, rtol=0.0, ulp=0, exact=True)


@dataclass(frozen=True)
class Tolerance:
    """A tolerance policy: per-dtype defaults, with optional overrides.

    ``atol``, ``rtol`` and ``ulp`` replace the dtype's default when given.
    Overrides apply to floating-point dtypes only: integers and booleans are
    compared exactly. ``quant_steps`` (1 to :data:`MAX_QUANT_STEPS`) asks for
    a tolerance of that many quantization steps on the outputs a quantizing
    operation writes (:func:`sonnx.differential.quant.step_tolerances`).
    """

    atol: float | None = None
    rtol: float | None = None
    ulp: int | None = None
    quant_steps: int | None = None
    policy: str = "default"
    """The named policy (:data:`POLICIES`): ``sonnx-wg`` takes its figures per output from the working group's
    test policy and admits no ``atol``/``rtol``/``ulp`` override."""

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise UsageError(f"--tolerance: unknown policy {self.policy!r} (known: {', '.join(POLICIES)})")
        if self.policy != "default" and (self.atol, self.rtol, self.ulp) != (None, None, None):
            raise UsageError(f"--tolerance {self.policy} fixes its own figures: --atol, --rtol and --ulp do not apply")
        for name in ("atol", "rtol"):
            value = getattr(self, name)
            if value is not None and (not math.isfinite(value) or value < 0):
                raise UsageError(f"tolerance {name} must be a finite number >= 0, got {value}")
        if self.ulp is not None and self.ulp < 0:
            raise UsageError(f"tolerance ulp must be >= 0, got {self.ulp}")
        q = self.quant_steps
        if q is not None and (isinstance(q, bool) or not isinstance(q, int) or not 1 <= q <= MAX_QUANT_STEPS):
            raise UsageError(f"--quant-steps must be an integer from 1 to {MAX_QUANT_STEPS}, got {q!r}")

    def for_dtype(self, dtype: np.dtype[Any] | type) -> ResolvedTolerance:
        """The concrete tolerance for elements of ``dtype``."""
        base = DEFAULT_TOLERANCES.get(np.dtype(dtype).name)
        if base is None:
            return EXACT
        return ResolvedTolerance(
            atol=base.atol if self.atol is None else float(self.atol),
            rtol=base.rtol if self.rtol is None else float(self.rtol),
            ulp=base.ulp if self.ulp is None else int(self.ulp),
            exact=False,
        )

    def to_json(self) -> dict[str, Any]:
        """The overrides (None where the dtype default applies), and the policy when it is not the default."""
        out: dict[str, Any] = {"atol": self.atol, "rtol": self.rtol, "ulp": self.ulp, "quant_steps": self.quant_steps}
        if self.policy != "default":  # only then: options recorded before named policies existed read the same
            out["policy"] = self.policy
        return out
