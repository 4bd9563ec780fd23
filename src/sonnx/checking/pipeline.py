"""The check pipeline: ONNX file -> loader -> model -> rules and proofs -> verdicts -> report and evidence.

Everything ``sonnx-check`` does happens here, from one :class:`~sonnx.checking.options.CheckOptions`
record and without printing: the command line parses arguments into that
record and prints the :class:`~sonnx.checking.report.ModelReport` this returns; the
evidence verifier replays a bundle through the same functions with the
options the bundle recorded.

For one model (:func:`check_file`), in order:

1. load (a :class:`~sonnx.base.errors.SonnxError` is kept in the report, exit 2);
2. the rules of the selected profile, with their direct checks;
3. the SMT engine, when the options' engine asks for it, combined with the
   direct verdicts (:mod:`sonnx.checking.agreement`) and exported with ``smt_dir``;
4. EXEC-ORDERS, with ``orders`` seeded schedules;
5. the cross-checks with the ``oracles``;
6. the rule selection (``select``/``ignore``: rules left out become NOT CHECKED,
   :mod:`sonnx.checking.selection`), then the waivers (``waivers``: covered findings become
   WAIVED, :mod:`sonnx.checking.waivers`).

For several models (:func:`check_models`) each is checked in turn, and the
evidence bundle (one model only) is written before anything is printed.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.errors import InputError, InputSizeError, SonnxError, UsageError
from ..base.progress import Say, quiet
from ..base.verdict import Verdict
from ..loader.derived import Given, ReadAgain
from ..loader.load import Derived, load_model_and_derived
from ..loader.memory import ModelBytes
from ..loader.writer import model_bytes
from ..model.graph import Model
from ..rules.base import Started
from ..rules.declarations import assumption
from ..rules.declared_operations import check_declarations, rules_resting, unused
from ..rules.derived import asks_for_derived
from ..rules.registry import cancel_checks, start_file_checks
from ..rules.shapes_terms import check_dim_names
from .options import CheckOptions
from .proofs import DerivedTypes, prove
from .report import ModelReport
from .selection import apply_selection, left_out, selection_record

if TYPE_CHECKING:  # imported where a check uses them, so that a plain check starts without them
    from ..differential.run import CrossCheckReport, OracleResult

def check_file(
    path: str | ModelBytes,
    options: CheckOptions | None = None,
    progress: Say | None = None,
    freeze_gc: bool = False,
    export_stem: str | None = None,
    given: Mapping[str, OracleResult] | None = None,
) -> ModelReport:
    """Check the model at ``path`` as ``options`` say (see the module text) and return the whole report.

    A :class:`~sonnx.base.errors.SonnxError` while loading is kept in the report
    (exit 2); it is never raised to the caller. ``freeze_gc`` (for the command
    line) moves the loaded model out of the garbage collector's reach: the
    model is immutable and holds no reference cycles, so scanning its million
    objects again while the rules run would only cost time. ``export_stem``
    names the model's exported obligations (``smt_dir``); the file's stem by
    default. ``given``: cross-check results used instead of running those
    oracles (the evidence verifier's replay, :func:`~sonnx.differential.run.cross_check`).
    The main graph's embedded weights are read from the file when
    needed (``weights_from_file``), so the file must stay unchanged while the
    report's model is used.

    ``path`` may instead hold the bytes of a model read from no file (:mod:`sonnx.loader.memory`): they are
    loaded as a file's bytes are, FORMAT-ONNX and the cross-checks are given the same bytes, and the waivers
    name the model by their SHA-256.
    """
    opts = options or CheckOptions()
    say = progress or quiet
    name, data = (path.name, path.data) if isinstance(path, ModelBytes) else (path, None)
    say(f"loading {name}" + ("" if opts.read_weights else " (structure only, weights not read)"))
    # FORMAT-ONNX's child checks the file (or the bytes) while the model is read
    started = start_file_checks(name if data is None else data, opts.rules_config())
    try:
        try:
            model, derived = _load(path, opts, freeze_gc)
        except SonnxError as exc:
            return ModelReport(name, error=exc, profile=opts.profile)
        report = _check_loaded(model, opts, name, say, export_stem, Given(model, derived), given=given, data=data,
                               started=started)
    finally:
        cancel_checks(started)
    return _select_and_waive(report, opts, name, path.sha256 if isinstance(path, ModelBytes) else None)


def _load(path: str | ModelBytes, opts: CheckOptions, freeze_gc: bool) -> tuple[Model, Derived | None]:
    """The model at ``path`` as the check reads it, with the types onnx derives when a rule will ask for them (read
    from the same bytes); ``freeze_gc``: the model is out of the collector's reach before the collector runs again,
    whose first pass would otherwise scan every object of the new model once."""
    collecting = freeze_gc and gc.isenabled()
    if collecting:
        gc.disable()
    try:
        loaded = load_model_and_derived(
            path,
            read_weights=opts.read_weights,
            weights_from_file=True,
            derive=lambda m: asks_for_derived(m, opts.profile),
        )
        if freeze_gc:
            gc.freeze()
        return loaded
    finally:
        if collecting:
            gc.enable()


def _select_and_waive(report: ModelReport, opts: CheckOptions, path: str | None, digest: str | None = None
                      ) -> ModelReport:
    """Step 6: the selection, then the waivers, which name the model by the SHA-256 of the file at ``path`` (or by
    ``digest``, that of the bytes of a model read from no file)."""
    if opts.select is not None or opts.ignore:
        verdicts = apply_selection(report.verdicts, opts.profile, opts.select, opts.ignore)
        record = {**selection_record(opts.select, opts.ignore), "not_checked": left_out(
            opts.profile, opts.select, opts.ignore)}
        report = replace(report, verdicts=verdicts, selection=record)
    if opts.waivers is not None:
        if path is None:
            raise UsageError("waivers name the model by its file's SHA-256: check the model's file, not a Model")
        from .evidence.bundle import sha256_file
        from .waivers import WaiverError, apply_waivers, parse_date, read_waivers

        try:
            digest = digest or sha256_file(Path(path))
        except OSError as exc:
            raise WaiverError(f"--waivers: cannot hash {path}: {exc.strerror or exc}") from None
        waived, record = apply_waivers(
            report.verdicts, read_waivers(opts.waivers), digest, path, parse_date(str(opts.waivers_date)))
        report = replace(report, verdicts=waived, waivers=record)
    return report


def check_model(
    model: Model,
    options: CheckOptions | None = None,
    path: str = "<model>",
    progress: Say | None = None,
    export_stem: str | None = None,
) -> ModelReport:
    """Check an already loaded ``model`` (steps 2 to 5 of the module text); ``path`` names it in the report.

    The cross-checks run the model's file with the other runtimes, so
    ``options.oracles`` needs ``path`` to name the file the model was loaded
    from; the weights must have been read when the options execute the model
    (``orders``, ``oracles``). ``options.evidence`` is not honoured here: the
    bundle copies the model file, so :func:`check_models` writes it.

    A model that its file no longer holds, or that has none (built or changed
    by the caller), is judged where its types are derived (GRAPH-IF-BRANCHES,
    STRICT-BROADCAST) on the ONNX bytes :func:`sonnx.loader.writer.model_bytes` writes
    for it, the file it becomes when it is saved.
    """
    derived = ReadAgain(model_bytes)
    opts = options or CheckOptions()
    if opts.waivers is not None:
        raise UsageError("waivers name the model by its file's SHA-256: check the model's file, not a Model")
    return _select_and_waive(_check_loaded(model, opts, path, progress or quiet, export_stem, derived), opts, None)


def _orders_verdict(model: Model, opts: CheckOptions, say: Say = quiet) -> Verdict:
    """EXEC-ORDERS on the inputs of ``opts``; UNKNOWN with the reason when they cannot be drawn.

    An input the model declares too little about to draw (a map no
    vocabulary names, an undeclared shape) leaves the claim not established,
    and the rest of the report stands. An unreadable inputs file is an error
    of the command line, and a declared size no input can have makes the
    model unusable for execution (as in the cross-check): both are raised.
    """
    from ..execution.inputs import read_inputs
    from ..execution.orders import ID as ORDERS_ID
    from ..execution.orders import check_orders

    try:
        given = read_inputs(model, opts.inputs, [], opts.seed)
    except (InputError, UsageError, InputSizeError):
        raise
    except SonnxError as exc:
        return Verdict.unknown(ORDERS_ID, f"no inputs to run on: {exc.one_line()}", engine="executor")
    return check_orders(model, opts.orders, opts.seed, given.values, given.source.details(), say)


def _check_loaded(
    model: Model,
    opts: CheckOptions,
    path: str,
    say: Say,
    export_stem: str | None,
    derived: DerivedTypes,
    given: Mapping[str, OracleResult] | None = None,
    data: bytes | None = None,
    started: Mapping[str, Started] | None = None,
) -> ModelReport:
    """Steps 2 to 5 on a loaded model (see :func:`check_model`; ``derived``, ``data`` and ``started`` as for
    :func:`_prove`)."""
    if (opts.orders or opts.oracles) and not model.weights_loaded:
        raise UsageError("--orders and --cross-check execute the model: load it with its weights")
    say(f"loaded {len(model.graph.operations)} operations in the main graph")
    check_dim_names(model, opts.dims)
    notes: tuple[str, ...] = ()
    if opts.declarations is not None:  # a premise the model refutes is refused before any verdict rests on it
        check_declarations(model, opts.declarations)
        notes = tuple(unused(model, opts.declarations))
    proofs = prove(model, path, opts, say, export_stem, derived, data, started)
    proofs = replace(proofs, verdicts=assuming(proofs.verdicts, model, opts), findings=assuming(proofs.findings,
                     model, opts))
    verdicts = list(proofs.verdicts)
    if opts.orders:
        say(f"running {opts.orders} schedules")
        verdicts.append(_orders_verdict(model, opts, say))
    crosscheck: CrossCheckReport | None = None
    if opts.oracles:
        from ..differential.run import cross_check
        from ..differential.verdicts import crosscheck_verdicts

        say(f"cross-checking with {', '.join(opts.oracles)}")
        crosscheck = cross_check(path, opts.oracles, opts.seed, opts.inputs, opts.tolerance, model=model, given=given,
                                 data=data, say=say)
        verdicts.extend(crosscheck_verdicts(crosscheck))
    return ModelReport(
        path,
        model,
        tuple(verdicts),
        smt=proofs.smt,
        disagreements=proofs.disagreements,
        findings=proofs.findings,
        obligations=proofs.obligations,
        crosscheck=crosscheck,
        notes=notes,
        profile=opts.profile,
    )


def assuming(verdicts: Sequence[Verdict], model: Model, opts: CheckOptions) -> tuple[Verdict, ...]:
    """``verdicts`` with the declarations' assumption on those of the rules that rest on them for ``model``."""
    decls = opts.declarations
    resting = rules_resting(model, decls)
    if decls is None or not resting:
        return tuple(verdicts)
    fact = assumption(decls)
    return tuple(replace(v, assumes=(*v.assumes, fact)) if v.rule_id in resting else v for v in verdicts)


def export_stems(paths: Sequence[str | ModelBytes]) -> list[str]:
    """A distinct file-name stem per model for ``smt_dir`` (``m``, ``m-2``... when two files share a stem)."""
    used: set[str] = set()
    out = []
    for path in paths:
        stem = path.stem if isinstance(path, ModelBytes) else (Path(path).stem or "model")
        candidate, k = stem, 2
        while candidate in used:
            candidate, k = f"{stem}-{k}", k + 1
        used.add(candidate)
        out.append(candidate)
    return out


@dataclass(frozen=True)
class CheckRun:
    """The reports of every model of one check, in the order given, and the run's exit code."""

    reports: tuple[ModelReport, ...]
    options: CheckOptions

    @property
    def exit_code(self) -> int:
        return max(r.exit_code for r in self.reports)


def record_evidence(report: ModelReport, options: CheckOptions, progress: Say | None = None) -> None:
    """Write the evidence bundle of ``report`` to ``options.evidence`` (its destination must be free)."""
    assert options.evidence is not None
    from .evidence.bundle import write_bundle

    (progress or quiet)(f"writing the evidence bundle to {options.evidence}")
    write_bundle(options.evidence, report, options)


def check_with_evidence(
    path: str | ModelBytes,
    options: CheckOptions,
    progress: Say | None = None,
    freeze_gc: bool = False,
    export_stem: str | None = None,
) -> ModelReport:
    """Check ``path`` and write its evidence bundle to ``options.evidence``; the report names ``path`` as given.

    The check itself runs on the absolute paths of the model and the inputs
    file: the bundle renames both to their place in the bundle
    (:mod:`sonnx.checking.evidence.render`), which needs them spelled in full. A model read from no file is
    refused (:class:`UsageError`): the bundle is a copy of the model's file.
    """
    if isinstance(path, ModelBytes):
        raise UsageError(f"--evidence copies the model's file into the bundle; {path.name} has none")
    absolute = os.path.abspath(path)
    run_opts = replace(
        options,
        inputs=None if options.inputs is None else os.path.abspath(options.inputs),
        waivers=None if options.waivers is None else os.path.abspath(options.waivers),
        operator_declarations=None if options.operator_declarations is None else os.path.abspath(
            options.operator_declarations),
    )
    report = check_file(absolute, run_opts, progress, freeze_gc=freeze_gc, export_stem=export_stem)
    record_evidence(report, run_opts, progress)
    return replace(report, path=path)


def check_models(
    paths: Sequence[str | ModelBytes], options: CheckOptions | None = None, progress: Say | None = None,
    freeze_gc: bool = False,
) -> CheckRun:
    """Check every model of ``paths`` (files, or bytes read from no file); write the evidence bundle when the options
    ask for one (only of a file).

    The options are checked against the list first (a bundle holds one model,
    its destination must be free), so a usage error comes before any work.
    """
    opts = options or CheckOptions()
    say = progress or quiet
    if not paths:
        raise UsageError("name at least one model to check")
    if opts.evidence is not None:
        from .evidence.attestation import load_signing_key
        from .evidence.bundle import check_destination

        if len(paths) != 1:
            raise UsageError("--evidence writes the bundle of one model; give exactly one MODEL")
        check_destination(opts.evidence)
        if opts.sign is not None:
            load_signing_key(opts.sign)  # a key that cannot sign is refused before the check runs
    if opts.waivers is not None:  # a malformed file or an expired entry is refused before the check runs
        from .waivers import check_dates, parse_date, read_waivers

        check_dates(read_waivers(opts.waivers), parse_date(str(opts.waivers_date)))
    stems = export_stems(paths)
    check = check_file if opts.evidence is None else check_with_evidence
    reports = tuple(
        check(path, opts, say, freeze_gc=freeze_gc, export_stem=stem) for path, stem in zip(paths, stems, strict=True)
    )
    run = CheckRun(reports, opts)
    say("done")
    return run
