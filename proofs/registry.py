"""The list of theorems: one module per theorem, in the order of issue 5 (a)-(e).

Every module defines ``ID``, ``TITLE``, ``SUPPORTS`` (the spec rule IDs the
theorem justifies; empty for a rewrite theorem, whose ``PASS`` names the
``sonnx rewrite`` pass it proves sound instead), ``THEOREM`` (the exact statement proved, including what is
only bounded or meta-level) and ``check()`` returning a result whose
``proved`` is true only when every obligation was discharged.

``MODULES`` is a literal tuple on purpose: ``tools.traceability`` reads it,
and the constants of each module, without importing z3 or running anything.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Tuple

MODULES: Tuple[str, ...] = (
    "confluence",
    "termination",
    "order_independence",
    "acyclicity",
    "inlining",
    "rewrite_dropout",
    "rewrite_flatten",
    "rewrite_constant",
    "rewrite_identity",
    "rewrite_shape",
    "rewrite_pad_nop",
    "rewrite_pad_pool",
    "rewrite_pad_conv",
)


@dataclass(frozen=True)
class Theorem:
    id: str
    title: str
    module: str
    supports: Tuple[str, ...]
    statement: str
    rewrite_pass: str = ""


def theorems() -> Tuple[Theorem, ...]:
    """Import every theorem module and describe it (nothing is proved by this call)."""
    out = []
    for name in MODULES:
        mod = importlib.import_module(f"proofs.{name}")
        out.append(
            Theorem(
                mod.ID,
                mod.TITLE,
                f"proofs/{name}.py",
                tuple(mod.SUPPORTS),
                mod.THEOREM.strip(),
                getattr(mod, "PASS", ""),
            )
        )
    return tuple(out)
