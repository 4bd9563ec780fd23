"""The engines a check calls, each imported when the check first calls it.

A check of a small model with the direct engine runs neither the SMT engine
nor sonnx's executor, and should not pay their start-up (z3, the encodings,
every kernel module): :mod:`.pipeline` calls them through the functions below,
which import them on first use. ``tests/cli/test_startup_imports.py`` lists
what such a check imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..model.graph import Model

if TYPE_CHECKING:
    from ..rules.base import TrialRun
    from ..smt.engine import SmtRun


def run_smt(model: Model, **options: Any) -> SmtRun:
    """:func:`sonnx.smt.run_smt` on ``model`` with ``options``: a check whose engine is ``direct`` never
    loads the SMT engine and its encodings."""
    from .. import smt

    return smt.run_smt(model, **options)


def trial_run(model: Model, inputs: Mapping[str, Any]) -> TrialRun:
    """:func:`sonnx.execution.executor.trial_run`: a check whose rules confirm no candidate witness
    (spec/operators.rst) never loads the kernels."""
    from ..execution.executor import trial_run as run

    return run(model, inputs)


def uniform_between(lo: Any, hi: Any, shape: tuple[int, ...], dtype: Any, seed: int) -> Any:
    """:func:`sonnx.execution.inputs.drawing.uniform_between`: the input drawing of the error-condition rules."""
    from ..execution.inputs.drawing import uniform_between as draw

    return draw(lo, hi, shape, dtype, seed)
