"""The one table of rules, and the one loop that runs them.

The table :data:`RULES` lists every rule in report order, with what the
reports, ``sonnx rules`` and the traceability read: ID, severity, profile.
The code that checks a rule lives in the module named after its ID, and
:func:`run_rules` imports it only when it runs the rule, so a check imports
the code of its profile's rules and no other. :func:`run_rules` runs the rules
of the selected profile. A rule that raises is not a pass: its verdict becomes
UNKNOWN with the reason, so a defect in a check can never hide a violation;
a rule whose module cannot be imported is UNKNOWN in the same way, saying so.

A rule whose check runs in a child process (``Rule.starts_early``: FORMAT-ONNX) is
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

from ..base.allocator import release_freed_heap
from ..base.errors import SonnxError
from ..base.progress import Say
from ..base.verdict import Severity, Verdict
from ..model.graph import Model
from .base import PROFILE_SONNX, PROFILE_STRICT, CheckConfig, CheckContext, Rule, Started

RULES: tuple[Rule, ...] = (
    Rule("FORMAT-ONNX", Severity.ERROR, PROFILE_SONNX, reads_file=True, starts_early=True),
    Rule("GRAPH-ACYCLIC", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-C1", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-C1-SOURCES", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-C1-SHADOWING", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-C2", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-C3", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-OUTPUTS", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-R1", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-R1-OUTPUTS", Severity.WARNING, PROFILE_SONNX),
    Rule("GRAPH-INITIALIZERS-USED", Severity.WARNING, PROFILE_SONNX),
    Rule("GRAPH-R1-TRANSITIVE", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-R2", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-DETERMINISM", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-FUNCTIONS", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-FUNCTION-SHADOWING", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-IF-BRANCHES", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-NAMES", Severity.ERROR, PROFILE_SONNX),
    Rule("GRAPH-ARITY", Severity.WARNING, PROFILE_SONNX, strict_severity=Severity.ERROR),
    Rule("GRAPH-ATTRIBUTES", Severity.ERROR, PROFILE_SONNX),
    Rule("STRICT-OPERATORS", Severity.ERROR, PROFILE_STRICT),
    Rule("STRICT-ATTRIBUTES", Severity.ERROR, PROFILE_STRICT),
    Rule("STRICT-SHAPES", Severity.ERROR, PROFILE_STRICT),
    Rule("STRICT-BROADCAST", Severity.ERROR, PROFILE_STRICT, reads_file=True),
    Rule("STRICT-SPARSE", Severity.ERROR, PROFILE_STRICT),
    Rule("STRICT-OPSET", Severity.ERROR, PROFILE_STRICT),
    Rule("STRICT-METADATA", Severity.ERROR, PROFILE_STRICT),
    Rule("STRICT-OP-RESTRICTIONS", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-SHAPES", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-VALUE-SHAPES", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-ERROR-DIV-ZERO", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-ERROR-LOG", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-ERROR-SQRT", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-ERROR-POW", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-ERROR-INDEX", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-ERROR-INT-OVERFLOW", Severity.ERROR, PROFILE_STRICT),
    Rule("OP-RANGE-FLOAT", Severity.WARNING, PROFILE_STRICT),
)
"""Every rule, in report order: its ID, severity, profile and what it reads. The module that checks a rule is named
after its ID (:attr:`Rule.module`) and is not imported here: the loop imports it when the rule runs."""


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
    started = {r.id: _start(r, path, config.read_weights) for r in chosen if r.starts_early}
    return {rule_id: check for rule_id, check in started.items() if check is not None}


def _start(rule: Rule, path: str | bytes, read_weights: bool) -> Started | None:
    """``rule.start(path, read_weights)``; None when the rule's module cannot be imported (its verdict then says
    why, see :func:`_verdict`)."""
    try:
        rule.code()
    except Exception:  # whatever the module raised while imported: reported by the rule's verdict
        return None
    return rule.start(path, read_weights)


def cancel_checks(started: Mapping[str, Started]) -> None:
    """Stop the started checks still running (a joined one is left as it is)."""
    for check in started.values():
        check.cancel()


def _release_analyses(ctx: CheckContext) -> None:
    """Let go of the analyses the rules shared (``ctx.cache``) before joining a check that runs in a child.

    Every rule that reads them has run by then; the joined rule reads the
    model and its child's answer only. Dropping them (the per-graph index of
    a million operations is a few hundred megabytes) while the child may
    still be working lowers what the two processes hold at once; no verdict
    depends on it.
    """
    ctx.cache.clear()
    release_freed_heap()


def _verdict(rule: Rule, ctx: CheckContext) -> Verdict:
    """The rule's verdict on ``ctx``: a check that raises gives UNKNOWN with the reason."""
    severity = rule.severity_in(ctx.config.profile)
    try:
        rule.code()
    except Exception as exc:  # whatever the module raised while imported (an ImportError, a broken data file...)
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        return Verdict.unknown(rule.id, f"the rule's code could not be imported: {reason} (a tool defect)", severity)
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
        missing = [r for r in chosen if r.starts_early and r.id not in started]
        if missing and model.source and os.path.isfile(model.source):
            for r in missing:
                check = _start(r, model.source, cfg.read_weights)
                if check is not None:
                    started[r.id] = check
            cfg = replace(cfg, started=started)
        ctx = CheckContext(model, cfg)
        verdicts: dict[int, Verdict] = {}
        late = [i for i, r in enumerate(chosen) if r.starts_early]
        for i in [i for i in range(len(chosen)) if i not in late] + late:
            if i in late and ctx.cache:
                _release_analyses(ctx)
            if progress is not None:
                progress(f"checking {chosen[i].id}")
            verdicts[i] = _verdict(chosen[i], ctx)
    finally:
        cancel_checks(started)
    return [verdicts[i] for i in range(len(chosen))]
