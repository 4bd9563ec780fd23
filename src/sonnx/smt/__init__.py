"""The SMT engine: every graph rule proved by z3 from constraints generated from the model.

Public API: :func:`run_smt` (all encodings on a model), :class:`SolverSettings`
and :func:`solve` (the one solver factory), :func:`write_obligations`
(SMT-LIB2 export). See :mod:`sonnx.smt.engine` for modes and rule IDs.
"""

from __future__ import annotations

from .engine import RULE_IDS, SmtRun, run_smt
from .smtlib import Obligation, expected_answer, write_obligations
from .solver import SolverSettings, settings_report, solve

__all__ = [
    "RULE_IDS",
    "Obligation",
    "SmtRun",
    "SolverSettings",
    "expected_answer",
    "run_smt",
    "settings_report",
    "solve",
    "write_obligations",
]
