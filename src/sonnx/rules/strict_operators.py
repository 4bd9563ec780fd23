"""STRICT-OPERATORS (strict profile): only operators of the allowed set are used.

Spec rule STRICT-OPERATORS (spec/graph.rst, section 4.1), from the working
group's REQ OP 000 and REQ-OP-020 and restriction [R3] of graph.md v23. A
certifiable model keeps to a small, reviewed set of operators, for which the
operator-level specifications and checks exist. The set is the one configured
for the run (``CheckConfig.allowed_operators``) or, when none is configured,
:data:`SONNX_OPERATORS`: the group's list of REQ OP 000, read from the package
data file ``sonnx/data/strict_operators.json`` where every name the group gives
that is not an ONNX operator (Dense, FullyConnected, Padding, ...) is mapped to
ONNX operators with its reason, together with the operators the group has
specified beyond that list (``specified``: ArgMax and BatchNormalization).

Operators used only for training (REQ-OP-020: the ``ai.onnx.preview.training``
domain and the loss operators) are in no allowed set: a configured set that
names one is refused before the check (:func:`training_operators`), and an
operation that applies one is named as such in the witness.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import first, op_ref
from ..model.index import operations_of, operator_kinds
from ..model.structure import scopes
from .base import CheckContext
from .schemas import normal_domain

ID = "STRICT-OPERATORS"
SEVERITY = Severity.ERROR

DATA_FILE = "strict_operators.json"


def operator_set_data() -> Mapping[str, Any]:
    """The package data file of the default set (the group's list, its mappings and the exclusions)."""
    text = resources.files("sonnx.data").joinpath(DATA_FILE).read_text(encoding="utf-8")
    data: Mapping[str, Any] = json.loads(text)
    return data


_DATA = operator_set_data()
TRAINING_DOMAINS = frozenset(_DATA["excluded"]["training_domains"])
"""Domains of operators used only for training (REQ-OP-020)."""
TRAINING_OPERATORS = frozenset(("", op) for op in _DATA["excluded"]["training_operators"])
"""Default-domain operators used only for training (REQ-OP-020 names the two loss operators)."""
SPECIFIED = frozenset(("", entry["onnx"]) for entry in _DATA["specified"]["operators"])
"""Operators the group has specified beyond REQ OP 000's list (ArgMax, BatchNormalization)."""
SONNX_OPERATORS = frozenset(("", op) for entry in _DATA["operators"] for op in entry["onnx"]) | SPECIFIED
"""The default operator set of the strict profile, as (domain, operator) pairs (all of the default domain): the
group's list mapped to ONNX, and the operators it has specified since."""


def is_training(domain: str, operator: str) -> bool:
    """Whether an operator is used only for training (REQ-OP-020)."""
    d = normal_domain(domain)
    return d in TRAINING_DOMAINS or (d, operator) in TRAINING_OPERATORS


def training_operators(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """The training-only operators among ``pairs``, written ``domain:Operator``, sorted."""
    return sorted(f"{normal_domain(d) or 'ai.onnx'}:{o}" for d, o in pairs if is_training(d, o))


def check(ctx: CheckContext) -> Verdict:
    configured = ctx.config.allowed_operators
    chosen = SONNX_OPERATORS if configured is None else configured
    allowed = {(normal_domain(d), o) for d, o in chosen if not is_training(d, o)}
    found: list[dict[str, Any]] = []
    names: set[str] = set()
    training: set[str] = set()
    for sc in scopes(ctx):
        bad = {k for k in operator_kinds(ctx, sc.graph) if (normal_domain(k[0]), k[1]) not in allowed}
        if bad:
            names.update(f"{normal_domain(d) or 'ai.onnx'}::{o}" for d, o in bad)
            training.update(f"{normal_domain(d) or 'ai.onnx'}::{o}" for d, o in bad if is_training(d, o))
            ops = sc.graph.operations
            found.extend(op_ref(sc.path, j, ops[j]) for j in operations_of(sc.graph, bad))
    if not found:
        return Verdict.proved(ID, SEVERITY)
    listed = sorted(names)
    source = "the configured set" if configured is not None else "the default sonnx-strict set (REQ OP 000)"
    summary = f"{len(found)} operation(s) use operators outside {source}: {', '.join(listed[:10])}"
    if training:
        summary += f"; training-only (REQ-OP-020): {', '.join(sorted(training)[:10])}"
    return Verdict.violated(
        ID,
        Witness(
            summary,
            {"count": len(found), "operators": listed, "training_only": sorted(training), "operations": first(found)},
        ),
        SEVERITY,
    )
