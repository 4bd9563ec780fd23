"""Verified graph rewrites (the passes of seed 002), each with a proved precondition.

See :mod:`.base` for the pass contract (``requires`` / ``transform`` /
``ensures``), :mod:`.driver` for running the passes and :mod:`.validate`
for the translation validation of every rewrite. The soundness theorem of
each pass is in ``proofs/rewrite_*.py``; ``docs/rewrite.rst`` lists the
counterexamples that corrected the seed's preconditions.
"""

from __future__ import annotations

from .base import Application, Pass, PostconditionError, Refusal, RewriteError
from .driver import PASS_NAMES, PASSES, RewriteResult, rewrite_file, rewrite_model, select

__all__ = [
    "PASSES",
    "PASS_NAMES",
    "Application",
    "Pass",
    "PostconditionError",
    "Refusal",
    "RewriteError",
    "RewriteResult",
    "rewrite_file",
    "rewrite_model",
    "select",
]
