"""The SMT engine: every graph rule proved by z3 from constraints generated from the model.

Public API: :func:`run_smt` (all encodings on a model), :class:`SolverSettings`
and :func:`solve` (the one solver factory), :func:`write_obligations`
(SMT-LIB2 export). The encodings, one per rule, are in ``encodings/``; their
table, which the engine loops over, is :mod:`sonnx.smt.registry`. See
:mod:`sonnx.smt.engine` for modes and rule IDs.

The names are imported on first use (PEP 562): a solver worker process
(:mod:`sonnx.smt.pool`) imports this package to reach the solver factory,
and should not pay for the start-up of the encodings it never runs, several
times that of z3 alone (figures: benchmarks/README.md, "Figures behind
choices in the code").
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "RULE_IDS": "engine",
    "SmtRun": "engine",
    "run_smt": "engine",
    "Obligation": "smtlib",
    "expected_answer": "smtlib",
    "write_obligations": "smtlib",
    "SolverSettings": "solver",
    "settings_report": "solver",
    "solve": "solver",
}
"""Each public name and the module of this package that defines it."""

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
"""The names of :data:`_EXPORTS`."""

if TYPE_CHECKING:  # for type checkers and editors only; at run time the names are read on first use
    from .engine import RULE_IDS, SmtRun, run_smt
    from .smtlib import Obligation, expected_answer, write_obligations
    from .solver import SolverSettings, settings_report, solve


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
