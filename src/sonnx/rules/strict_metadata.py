"""STRICT-METADATA (strict profile): the required metadata entries are present, and a declared order is usable.

Spec rule STRICT-METADATA (spec/graph.rst, section 4.1), from the working
group's REQ-FO-040 and REQ-FO-050 and the "required metadata" item of
REQ-TO-000. The required ``metadata_props`` keys are the run's
(``CheckConfig.required_metadata``, ``--required-metadata``) or by default
:data:`sonnx.model.metadata.DEFAULT_REQUIRED`. When the model declares an
execution order (``sonnx.execution_order``), it must be a complete firing order
of the main graph (:func:`sonnx.model.metadata.declared_order`); ``--orders``
then also runs it.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict, Witness
from ..model.metadata import DEFAULT_REQUIRED, EXECUTION_ORDER, OrderError, declared_order, required_keys
from .base import CheckContext

ID = "STRICT-METADATA"
SEVERITY = Severity.ERROR


def check(ctx: CheckContext) -> Verdict:
    keys = DEFAULT_REQUIRED if ctx.config.required_metadata is None else ctx.config.required_metadata
    lacking = required_keys(ctx.model, tuple(keys))
    problems = [f"{k} ({why})" for k, why in lacking.items()]
    data: dict[str, Any] = {"required": list(keys), "lacking": dict(lacking)}
    try:
        declared_order(ctx.model)
    except OrderError as exc:
        problems.append(f"malformed {EXECUTION_ORDER}: {exc}")
        data["order_error"] = str(exc)
    if not problems:
        return Verdict.proved(ID, SEVERITY)
    return Verdict.violated(
        ID, Witness(f"{len(problems)} metadata problem(s): {'; '.join(problems[:5])}", data), SEVERITY
    )
