"""GRAPH-FUNCTION-SHADOWING: no model-local function has the domain and name of a standard operator.

Spec rule GRAPH-FUNCTION-SHADOWING (spec/graph.rst, section 4), a rule of
sonnx's own that the working group's texts do not state, placed beside their
text on function nodes (graph.md version 23, "Functions nodes"). A node names its operator by domain and name only; when
a model-local function has the domain and name of an operator that ONNX defines
at the version the model imports, the node can mean either. sonnx's loader
inlines the local function, while onnxruntime and onnx's reference evaluator
run their own kernel of the standard operator (measured: spec, the rule's
section). The meaning of the model then depends on the runtime. Error in both
profiles; GRAPH-R2 and GRAPH-DETERMINISM weigh both meanings at every call
(:mod:`.function_calls`), and the commands that run or rewrite a model refuse
one with a shadowing function (:func:`refuse_shadowing`).

A function shadows a standard operator when ``onnx.defs`` has a schema for
its (domain, name) at the opset version the model imports for that domain
(deprecated schemas included: the name still belongs to ONNX). When the model
imports no version of the domain, any version counts. An operator that ONNX
adds only in a later opset than the model imports is not shadowed: under the
model's opset a node can only mean the function (``Gelu`` written as a function
for opset 17, before ONNX's ``Gelu`` of opset 20).

Witness: each function (domain, name, overload) with the standard operator it
shadows, that operator's since-version and the opset version consulted. The
SMT engine decides the same rule by joining the function facts with the
standard-operator facts (:mod:`sonnx.smt.encodings.graph_function_shadowing`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import onnx

from ..base.errors import FunctionShadowingError
from ..base.verdict import Severity, Verdict
from ..model.graph import Function, Model
from .base import CheckContext, Listing
from .graph_arity import qualified
from .registry import rule_by_id
from .schemas import normal_domain, opset_version

ID = "GRAPH-FUNCTION-SHADOWING"
SEVERITY = Severity.ERROR


def entry(fn: Function, imports: Mapping[str, int], since: int) -> dict[str, Any]:
    """How a witness names ``fn`` and the standard operator (of schema since-version ``since``) it shadows."""
    domain = normal_domain(fn.domain)
    return {
        "function": qualified(fn),
        "domain": domain or "ai.onnx",
        "name": fn.name,
        "overload": fn.overload,
        "standard_operator": f"{domain or 'ai.onnx'}::{fn.name}",
        "since_version": since,
        "opset": opset_version(imports, domain),
    }


def shadowed(fn: Function, imports: Mapping[str, int]) -> dict[str, Any] | None:
    """The standard operator ``fn`` shadows under the opset ``imports`` (None when there is none)."""
    domain = normal_domain(fn.domain)
    version = opset_version(imports, domain)
    try:
        if version is None:
            schema = onnx.defs.get_schema(fn.name, domain=domain)
        else:
            schema = onnx.defs.get_schema(fn.name, version, domain)
    except onnx.defs.SchemaError:
        return None
    return entry(fn, imports, int(schema.since_version))


@cache
def _history() -> tuple[tuple[str, str, int], ...]:
    return tuple(sorted((s.domain, s.name, int(s.since_version)) for s in onnx.defs.get_all_schemas_with_history()))


def standard_operators(imports: Mapping[str, int]) -> dict[tuple[str, str], int]:
    """Every operator ONNX defines under ``imports``, (domain, name) -> since-version of the schema in force.

    A domain the imports do not name counts at every version. This is the listing the SMT engine joins with the
    function facts; :func:`shadowed` asks ``onnx.defs`` the same question one function at a time.
    """
    out: dict[tuple[str, str], int] = {}
    for domain, name, since in _history():
        version = opset_version(imports, domain)
        if version is None or since <= version:
            key = (normal_domain(domain), name)
            out[key] = max(out.get(key, 0), since)
    return out


def _show(f: dict[str, Any]) -> str:
    at = f"opset {f['opset']}" if f["opset"] is not None else "no opset imported"
    return f"function {f['function']} shadows {f['standard_operator']}-{f['since_version']} ({at})"


LISTING = Listing("model-local function(s) shadow a standard operator", "functions", _show, 3)


def shadowing(model: Model) -> list[dict[str, Any]]:
    """Every function of ``model`` that shadows a standard operator, as :func:`entry` names it (model order)."""
    return [s for s in (shadowed(fn, model.opset_imports) for fn in model.functions) if s is not None]


def refuse_shadowing(model: Model) -> None:
    """Raise :class:`FunctionShadowingError` when some function of ``model`` shadows a standard operator.

    The one check behind every command that gives a model a meaning by running or rewriting it (run,
    crosscheck, rewrite, equiv, partition, the backend): the runtimes would run the standard operator
    where sonnx inlines the function, so no result of sonnx's could be said to be the model's.
    """
    found = shadowing(model)
    if not found:
        return
    where = f"{model.source}: " if model.source else ""
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    raise FunctionShadowingError(
        f"{where}{_show(found[0])}{more}: onnxruntime and onnx's reference evaluator run the standard operator "
        f"where sonnx would inline the function, so the model has no one meaning; refused ({ID})"
    )


def check(ctx: CheckContext) -> Verdict:
    return LISTING.verdict(shadowing(ctx.model), ID, rule_by_id(ID).severity_in(ctx.config.profile))
