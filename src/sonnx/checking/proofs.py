"""Steps 2 and 3 of a check: the rules' direct verdicts, and the SMT engine's combined in when it runs.

Which engines run is decided here (``--engine``, and for ``auto`` the size
limit :data:`SMT_AUTO_LIMIT`); the two engines' verdicts are reconciled by
:mod:`sonnx.checking.agreement` (spec/graph.rst, section 9: a disagreement is
UNKNOWN). :mod:`sonnx.checking.pipeline` calls :func:`prove` for every model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ..base.errors import UsageError
from ..base.progress import Say
from ..base.verdict import Verdict
from ..loader.load import Derived
from ..model.graph import Model
from ..rules import run_rules
from ..rules.base import Started
from ..smt import Obligation, write_obligations
from .agreement import combine, smt_only
from .engines import run_smt, trial_run, uniform_between
from .options import CheckOptions
from .report import SmtSummary

SMT_AUTO_LIMIT = 1_000_000
"""Operations (all graphs together) up to which ``--engine auto`` (the default) runs both engines.

Up to this size the SMT engine's proofs take a time a user can wait for (the
certificates over arrays, the obligations solved on a pool of worker
processes, ``--jobs``; figures in ``benchmarks/README.md``, "SMT engine at
scale"). Above it the SMT engine runs only when asked for (``--engine both``
or ``smt``), and the report says so.

How a new limit is chosen: the largest size at which the default check
(both engines, the model's load included) stays within four times
``onnx.checker.check_model(path, full_check=True)`` on the same file,
measured on the random DAGs of ``benchmarks/bench_smt_default.py`` beside
that peer in the same run. On those DAGs the default check is above that
factor at every size measured from 100,000 operations on, so the limit was
not raised past the size at which the SMT proofs alone met their own time
target (benchmarks/README.md, "SMT engine at scale")."""


def resolved_engine(options: CheckOptions, model: Model) -> tuple[str, str | None]:
    """The engine that runs on ``model``, and why the SMT engine was left out when ``auto`` left it out."""
    if options.engine != "auto":
        return options.engine, None
    if options.smt_dir:
        return "both", None  # exporting obligations asks for the SMT engine explicitly
    size = sum(len(g.operations) for _, g in model.graph.nested())
    if size <= SMT_AUTO_LIMIT:
        return "both", None
    return "direct", (
        f"the model has {size} operations, above the automatic SMT limit of {SMT_AUTO_LIMIT}; "
        "verdicts are the direct engine's alone (use --engine both or smt to run the SMT proofs)"
    )


@dataclass(frozen=True)
class Proofs:
    """What the rules and the engines established for one model, before EXEC-ORDERS and the cross-checks."""

    verdicts: tuple[Verdict, ...]
    findings: tuple[Verdict, ...] = ()
    disagreements: tuple[str, ...] = ()
    smt: SmtSummary | None = None
    obligations: tuple[Obligation, ...] = ()


DerivedTypes = Callable[[Model, bool], Derived]
"""Where the rules get the types onnx derives for the model (:attr:`sonnx.rules.base.CheckConfig.derived_types`)."""


def prove(
    model: Model, path: str, options: CheckOptions, say: Say, export_stem: str | None, derived: DerivedTypes,
    data: bytes | None = None,
    started: Mapping[str, Started] | None = None,
) -> Proofs:
    """The rules' verdicts, with the SMT engine's combined in when it runs.

    ``derived``: the types onnx derives for the model (spec 9.4), as :func:`~sonnx.checking.pipeline.check_file` and
    :func:`~sonnx.checking.pipeline.check_model`
    give them; ``data``: the bytes of a model read from no file, which FORMAT-ONNX checks; ``started``: the rules'
    checks of the model's file (or bytes) that :func:`~sonnx.checking.pipeline.check_file` started before reading it.
    """
    declared = {n for n in model.graph.inputs if n not in model.graph.initialized}
    unknown = [n for n, _, _ in options.input_ranges or () if n not in declared]
    if unknown:
        raise UsageError(f"--input-range: the model has no graph input {unknown[0]!r} without an initial value")
    trial = trial_run if model.weights_loaded else None
    config = replace(options.rules_config(), derived_types=derived, trial_run=trial, draw_uniform=uniform_between,
                     model_bytes=data)
    if started:
        config = replace(config, started=started)
    direct = run_rules(model, config, say)
    engine, skipped = resolved_engine(options, model)
    if skipped is not None:
        say(skipped)
        return Proofs(tuple(direct), smt=SmtSummary(skipped=skipped))
    if engine == "direct":
        return Proofs(tuple(direct))
    run = run_smt(model, progress=say, jobs=options.jobs, declarations=options.declarations)
    disagreements: list[str] = []
    if engine == "smt":
        verdicts, findings = smt_only(direct, run.verdicts)
    else:
        verdicts, findings, disagreements = combine(direct, run.verdicts)
    exported: tuple[str, ...] = ()
    if options.smt_dir:
        try:
            written = write_obligations(run.obligations, options.smt_dir, path, export_stem)
        except OSError as exc:
            raise UsageError(f"--smt-dir: cannot write {options.smt_dir}: {exc.strerror or exc}") from None
        exported = tuple(str(p) for p in written)
    summary = SmtSummary(parameters=dict(run.parameters), exported=exported)
    return Proofs(tuple(verdicts), tuple(findings), tuple(disagreements), summary, tuple(run.obligations))
