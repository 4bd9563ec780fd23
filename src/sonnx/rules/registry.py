"""The one table of rules, and the one loop that runs them.

Every rule module exports a ``RULE``; this module lists them in report order.
:func:`run_rules` runs those of the selected profile. A rule that raises is
not a pass: its verdict becomes UNKNOWN with the reason, so a defect in a check
can never hide a violation.

A rule whose check runs in a child process (``Rule.start``: FORMAT-ONNX) is
started first, before the model is read when the layer that runs the rules
starts it (:func:`start_file_checks`), and joined after every other rule, so
that the child and this process work at the same time; its verdict keeps its
place in the table, and the verdict is the one it would be if it had been
waited for at once (the child keeps its own limits, :mod:`sonnx.loader.sandbox`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace

from ..base.errors import SonnxError
from ..base.progress import Say
from ..base.verdict import Verdict
from ..model.graph import Model
from . import (
    format_onnx,
    graph_acyclic,
    graph_arity,
    graph_attributes,
    graph_c1,
    graph_c1_shadowing,
    graph_c1_sources,
    graph_c2,
    graph_c3,
    graph_determinism,
    graph_function_shadowing,
    graph_functions,
    graph_if_branches,
    graph_initializers_used,
    graph_names,
    graph_outputs,
    graph_r1,
    graph_r1_outputs,
    graph_r1_transitive,
    graph_r2,
    op_error_div_zero,
    op_error_index,
    op_error_int_overflow,
    op_error_log,
    op_error_pow,
    op_error_sqrt,
    op_range_float,
    op_shapes,
    op_value_shapes,
    strict_attributes,
    strict_broadcast,
    strict_metadata,
    strict_op_restrictions,
    strict_operators,
    strict_opset,
    strict_shapes,
    strict_sparse,
)
from .base import PROFILE_STRICT, CheckConfig, CheckContext, Rule, Started

RULES: tuple[Rule, ...] = (
    format_onnx.RULE,
    graph_acyclic.RULE,
    graph_c1.RULE,
    graph_c1_sources.RULE,
    graph_c1_shadowing.RULE,
    graph_c2.RULE,
    graph_c3.RULE,
    graph_outputs.RULE,
    graph_r1.RULE,
    graph_r1_outputs.RULE,
    graph_initializers_used.RULE,
    graph_r1_transitive.RULE,
    graph_r2.RULE,
    graph_determinism.RULE,
    graph_functions.RULE,
    graph_function_shadowing.RULE,
    graph_if_branches.RULE,
    graph_names.RULE,
    graph_arity.RULE,
    graph_attributes.RULE,
    strict_operators.RULE,
    strict_attributes.RULE,
    strict_shapes.RULE,
    strict_broadcast.RULE,
    strict_sparse.RULE,
    strict_opset.RULE,
    strict_metadata.RULE,
    strict_op_restrictions.RULE,
    op_shapes.RULE,
    op_value_shapes.RULE,
    op_error_div_zero.RULE,
    op_error_log.RULE,
    op_error_sqrt.RULE,
    op_error_pow.RULE,
    op_error_index.RULE,
    op_error_int_overflow.RULE,
    op_range_float.RULE,
)


def rules_for(profile: str, graph_only: bool = False) -> tuple[Rule, ...]:
    """The rules that apply under ``profile`` (the strict profile includes the base one).

    ``graph_only`` leaves out the rules about the model's file (``Rule.reads_file``), for a graph that was
    never serialized, such as a partition's subgraph.
    """
    chosen = RULES if profile == PROFILE_STRICT else tuple(r for r in RULES if r.profile == profile)
    return tuple(r for r in chosen if not (graph_only and r.reads_file))


def rule_by_id(rule_id: str) -> Rule:
    for r in RULES:
        if r.id == rule_id:
            return r
    raise KeyError(rule_id)


def start_file_checks(path: str | bytes, config: CheckConfig, graph_only: bool = False) -> dict[str, Started]:
    """Start now the checks of the file at ``path`` (or of the model bytes ``path`` holds, for a model read from no
    file) of the rules of ``config.profile`` that have one (``Rule.start``).

    For the check of the model that will be read from ``path``: give them to
    :func:`run_rules` in ``config.started``, and :func:`cancel_checks` them
    when the model is not checked after all. None is started when ``path``
    names no file (the rule then says so itself)."""
    if isinstance(path, str) and not os.path.isfile(path):
        return {}
    chosen = rules_for(config.profile, graph_only)
    return {r.id: r.start(path, config.read_weights) for r in chosen if r.start is not None}


def cancel_checks(started: Mapping[str, Started]) -> None:
    """Stop the started checks still running (a joined one is left as it is)."""
    for check in started.values():
        check.cancel()


def _verdict(rule: Rule, ctx: CheckContext) -> Verdict:
    """The rule's verdict on ``ctx``: a check that raises gives UNKNOWN with the reason."""
    severity = rule.severity_in(ctx.config.profile)
    try:
        v = rule.check(ctx)
    except SonnxError as exc:
        v = Verdict.unknown(rule.id, exc.one_line(), severity)
    except RecursionError:
        v = Verdict.unknown(rule.id, "the check exceeded Python's recursion limit (a tool defect)", severity)
    except Exception as exc:
        v = Verdict.unknown(rule.id, f"internal error in the check: {type(exc).__name__}: {exc}", severity)
    if v.rule_id != rule.id:
        v = Verdict.unknown(rule.id, f"the check answered for {v.rule_id!r} (a tool defect)", severity)
    return v


def run_rules(
    model: Model,
    config: CheckConfig | None = None,
    progress: Say | None = None,
    graph_only: bool = False,
) -> list[Verdict]:
    """Run every rule of ``config.profile`` on ``model``; one verdict per rule, in table order.

    ``graph_only``: only the rules about the graph (see :func:`rules_for`).
    The rules with a check in a child process start first (unless
    ``config.started`` holds theirs) and are joined last (see the module
    text); every started check still running at the end is stopped."""
    cfg = config or CheckConfig()
    chosen = rules_for(cfg.profile, graph_only)
    started = dict(cfg.started)
    try:
        missing = [r for r in chosen if r.start is not None and r.id not in started]
        if missing and model.source and os.path.isfile(model.source):
            started.update((r.id, r.start(model.source, cfg.read_weights)) for r in missing if r.start is not None)
            cfg = replace(cfg, started=started)
        ctx = CheckContext(model, cfg)
        verdicts: dict[int, Verdict] = {}
        late = [i for i, r in enumerate(chosen) if r.start is not None]
        for i in [i for i in range(len(chosen)) if i not in late] + late:
            if progress is not None:
                progress(f"checking {chosen[i].id}")
            verdicts[i] = _verdict(chosen[i], ctx)
    finally:
        cancel_checks(started)
    return [verdicts[i] for i in range(len(chosen))]
