"""The table of the SMT encodings: one :class:`~.common.Encoding` per module of ``encodings/``, in report order.

The engine (:mod:`.engine`) loops over :data:`ENCODINGS` and names no
encoding itself. Each record carries the ID of the direct rule it decides
again, its proof (one signature: a :class:`~.common.ProofContext`) and the
encodings whose results it needs; the engine starts an encoding once those
are done. :data:`START_ORDER` is the order in which the engine starts the
encodings whose needs are met; it changes where the time goes, never a
verdict or an obligation (each proof sees only its own answers and the
results it names).
"""

from __future__ import annotations

from .common import Encoding
from .encodings import (
    graph_acyclic,
    graph_arity,
    graph_c1,
    graph_c1_shadowing,
    graph_c1_sources,
    graph_c2,
    graph_c3,
    graph_determinism,
    graph_function_shadowing,
    graph_r1,
    graph_r1_transitive,
    graph_r2,
)

ENCODINGS: tuple[Encoding, ...] = (
    graph_acyclic.ENCODING,
    graph_c1.ENCODING,
    graph_c1_sources.ENCODING,
    graph_c1_shadowing.ENCODING,
    graph_c2.ENCODING,
    graph_c3.ENCODING,
    graph_r1.ENCODING,
    graph_r1_transitive.ENCODING,
    graph_r2.ENCODING,
    graph_determinism.ENCODING,
    graph_function_shadowing.ENCODING,
    graph_arity.ENCODING,
)
"""Every encoding, in the order of the report (verdicts, then obligations, rule by rule)."""

RULE_IDS: tuple[str, ...] = tuple(e.rule_id for e in ENCODINGS)
"""Rules the SMT engine decides, in report order."""

START_ORDER: tuple[str, ...] = (
    graph_c1.ENCODING.rule_id,
    graph_c1_sources.ENCODING.rule_id,
    graph_c1_shadowing.ENCODING.rule_id,
    graph_r1.ENCODING.rule_id,
    graph_r1_transitive.ENCODING.rule_id,
    graph_acyclic.ENCODING.rule_id,
    graph_c3.ENCODING.rule_id,
    graph_c2.ENCODING.rule_id,
    graph_r2.ENCODING.rule_id,
    graph_function_shadowing.ENCODING.rule_id,
    graph_arity.ENCODING.rule_id,
    graph_determinism.ENCODING.rule_id,
)
"""The order in which the engine starts the encodings (an encoding whose needs are not done waits for them).

Quick to encode and long for z3 to parse first, so that the solver workers
start early (the encoding and parsing times per rule at a million
operations: benchmarks/README.md, "Figures behind choices in the code"). An
encoding missing here starts after these, in table order.
"""

