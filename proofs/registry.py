"""The list of theorems, one module per theorem: the properties of the semantics first (confluence, termination,
order independence, acyclicity, inlining), then one theorem per rewrite pass.

Every module defines ``ID``, ``TITLE``, ``SUPPORTS`` (the spec rule IDs the
theorem justifies; empty for a rewrite theorem, which proves a ``sonnx
rewrite`` pass sound instead), ``THEOREM`` (the exact statement proved,
including what is only bounded or meta-level), ``RESTS_ON`` (the review items: every
hand-written axiom, induction instance, cited lemma or prose step the theorem
rests on, which z3 does not check; the result of ``check()`` lists exactly
these), optionally ``PROVED_IN_COQ`` (those of the steps whose exact statement
a Coq theorem of ``proofs/coq/`` proves, mapped to its full name: they are
cited, not counted as review items) and ``check()`` returning a result whose ``proved`` is true only when
every obligation was discharged.

The link between a pass and its theorem is written once, on the pass
(``Pass.theorem`` in ``sonnx.rewrite``); :func:`passes_by_theorem` reads it.

Run ``python -m proofs`` (from the repository root) for every theorem, or
``python -m proofs ID ...`` for some.

``MODULES`` is a literal tuple on purpose: ``tools.traceability`` reads it,
and the constants of each module, without importing z3 or running anything.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

MODULES: tuple[str, ...] = (
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
    supports: tuple[str, ...]
    statement: str
    rewrite_pass: str = ""
    rests_on: tuple[str, ...] = ()
    """Review items: the steps z3 does not check and no Coq theorem proves."""
    proved_in_coq: tuple[tuple[str, str], ...] = ()
    """(step, full name of the Coq theorem proving it) for the steps cited instead of reviewed."""


def passes_by_theorem() -> dict[str, str]:
    """The rewrite pass each theorem module proves sound, by module name (from the passes' own links)."""
    from sonnx.rewrite import PASSES

    return {p.theorem: p.name for p in PASSES if p.theorem}


def theorems() -> tuple[Theorem, ...]:
    """Import every theorem module and describe it (nothing is proved by this call)."""
    proves = passes_by_theorem()
    out = []
    for name in MODULES:
        mod = importlib.import_module(f"proofs.{name}")
        coq: dict[str, str] = dict(getattr(mod, "PROVED_IN_COQ", {}))
        out.append(
            Theorem(
                mod.ID,
                mod.TITLE,
                f"proofs/{name}.py",
                tuple(mod.SUPPORTS),
                mod.THEOREM.strip(),
                proves.get(name, ""),
                tuple(item for item in mod.RESTS_ON if item not in coq),
                tuple((item, coq[item]) for item in mod.RESTS_ON if item in coq),
            )
        )
    return tuple(out)
