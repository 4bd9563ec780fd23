"""The Python API: check, run and cross-check a model from Python, with the command line's semantics.

``sonnx-check``, ``sonnx run``, ``sonnx crosscheck`` and ``sonnx batch`` are
thin layers over the same functions this module calls, so a verdict obtained
here is the verdict the command line prints. Every function takes a path, an
already loaded :class:`~sonnx.model.graph.Model` (:func:`load`), or a model
held in memory: an ``onnx.ModelProto`` or its serialized bytes, read as the
file they would be without writing one (:mod:`sonnx.loader.memory`). Wrong
arguments raise :class:`~sonnx.base.errors.UsageError`; a model that cannot be read
or run raises the :class:`~sonnx.base.errors.SonnxError` subclass that says why,
except in :func:`check` and :func:`batch`, whose reports hold that error
(``report.error``, exit code 2) as the command line does. Nothing here
prints.

Example::

    import sonnx

    report = sonnx.check("model.onnx", profile="sonnx-strict")
    if report.exit_code != 0:
        for verdict in report.verdicts:
            print(verdict.rule_id, verdict.status.value, verdict.witness or verdict.reason)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields
from typing import Any

import numpy as np
import onnx

from .base.errors import UsageError
from .base.progress import Say
from .checking.batch import Batch, find_models, run_batch
from .checking.option_values import parse_input_range
from .checking.options import CheckOptions, check_seed, operator_pair
from .checking.pipeline import check_model, check_models
from .checking.qualify.kit import Qualification
from .checking.qualify.kit import qualify as _qualify
from .checking.report import ModelReport
from .checking.selection import parse_selectors
from .differential.names import ORACLES
from .differential.run import CrossCheckReport, cross_check, parse_oracles
from .differential.tolerance import Tolerance
from .execution.executor import execute
from .execution.inputs import inputs_for
from .loader import load_model
from .loader.memory import ModelBytes, is_in_memory, model_bytes_of
from .model.graph import Model
from .model.semantics import FileOrder, LastReadyOrder, Scheduler, SeededRandomOrder
from .rules.graph_function_shadowing import refuse_shadowing
from .rules.shapes_terms import parse_dims

ModelSource = str | os.PathLike[str] | Model | onnx.ModelProto | bytes
"""A model file's path, a model already loaded with :func:`load`, or a model held in memory: an ``onnx.ModelProto``
or its serialized bytes (named ``<in-memory model>`` in reports)."""

_OPTION_NAMES = tuple(f.name for f in fields(CheckOptions))


def load(path: str | os.PathLike[str] | onnx.ModelProto | bytes, *, read_weights: bool = True) -> Model:
    """Load the ONNX model at ``path`` into sonnx's immutable model (the loader every command uses).

    ``path`` may be an ``onnx.ModelProto`` or its serialized bytes: the proto is
    serialized once and those bytes are read as a file's bytes are, with the
    same refusals; a tensor kept in external data is refused, since a model in
    memory has no folder to find it in. ``read_weights=False`` reads no weight
    byte (a model larger than memory can still be checked, not run). An
    unusable file raises the :class:`~sonnx.base.errors.InputError` subclass that says why.
    """
    if is_in_memory(path):
        return load_model(model_bytes_of(path), read_weights=read_weights)
    return load_model(_path(path), read_weights=read_weights)


def check_options(**values: Any) -> CheckOptions:
    """A :class:`~sonnx.checking.options.CheckOptions` from keyword values, with the conveniences of the API.

    ``operators`` may be an iterable of ``"[domain:]Operator"`` strings (or
    ``(domain, operator)`` pairs), ``required_metadata`` a comma-separated string
    or an iterable of keys, ``oracles`` a comma-separated string or an
    iterable of names, ``dims`` a ``--dims`` string (``"N=1..64,H=8"``) or ``(name, least, greatest)``
    triples, ``input_ranges`` an iterable of ``"input=lo..hi"`` strings or ``(input, lo, hi)``
    triples, ``tolerance`` a :class:`~sonnx.differential.tolerance.Tolerance`
    or a mapping with ``atol``, ``rtol``, ``ulp``, ``quant_steps``. An unknown name or a value
    the check cannot use is a :class:`~sonnx.base.errors.UsageError`.
    """
    unknown = sorted(set(values) - set(_OPTION_NAMES))
    if unknown:
        raise UsageError(f"unknown check option(s) {', '.join(unknown)} (known: {', '.join(_OPTION_NAMES)})")
    ops = values.get("operators")
    if ops is not None and not isinstance(ops, frozenset):
        if isinstance(ops, str):
            ops = [o.strip() for o in ops.split(",") if o.strip()]
        values["operators"] = frozenset(o if isinstance(o, tuple) else operator_pair(str(o)) for o in ops)
    meta = values.get("required_metadata")
    if meta is not None and not isinstance(meta, tuple):
        values["required_metadata"] = tuple(m.strip() for m in meta.split(",") if m.strip()) if isinstance(
            meta, str) else tuple(meta)
    oracles = values.get("oracles")
    if oracles is not None and not isinstance(oracles, tuple):
        values["oracles"] = parse_oracles(oracles if isinstance(oracles, str) else ",".join(oracles), "oracles")
    for name in ("select", "ignore"):
        chosen = values.get(name)
        if chosen is not None and not isinstance(chosen, tuple):
            values[name] = parse_selectors([chosen] if isinstance(chosen, str) else list(chosen), name)
    dims = values.get("dims")
    if isinstance(dims, str):
        values["dims"] = parse_dims([dims])
    elif dims is not None and not isinstance(dims, tuple):
        values["dims"] = tuple(tuple(d) for d in dims)
    ranges = values.get("input_ranges")
    if ranges is not None:  # "x=-1..1" strings or (input, lo, hi) triples
        values["input_ranges"] = tuple(parse_input_range(r) if isinstance(r, str) else tuple(r) for r in ranges)
    tol = values.get("tolerance")
    if isinstance(tol, Mapping):
        values["tolerance"] = Tolerance(**tol)
    for name in ("smt_dir", "inputs", "evidence", "sign", "waivers", "operator_declarations"):
        if isinstance(values.get(name), os.PathLike):
            values[name] = os.fspath(values[name])
    try:
        return CheckOptions(**values)
    except TypeError as exc:
        raise UsageError(f"invalid check option: {exc}") from None


def check(
    model: ModelSource,
    *,
    profile: str = "sonnx",
    engine: str = "auto",
    path: str | None = None,
    progress: Say | None = None,
    **options: Any,
) -> ModelReport:
    """Check ``model`` against the rules of ``profile`` with ``engine``, as ``sonnx-check`` does.

    ``options`` are the other fields of :class:`~sonnx.checking.options.CheckOptions`
    (``operators``, ``smt_dir``, ``structure_only``, ``seed``, ``orders``,
    ``inputs``, ``oracles``, ``tolerance``, ``evidence``,
    ``evidence_timestamp``, ``sign``, ``select``, ``ignore`` (a comma-separated string or an iterable of rule
    IDs or prefixes), ``waivers`` (a waivers file), ``waivers_date``, ``operator_declarations`` (the path of a
    file declaring custom operators); see :func:`check_options`). The returned
    :class:`~sonnx.checking.report.ModelReport` holds one verdict per rule, PROVED,
    VIOLATED with its witness, UNKNOWN with its reason or TESTED, and
    ``exit_code`` is the one ``sonnx-check`` would give. A file that cannot be
    read is reported in ``report.error`` (exit code 2), not raised.

    For an already loaded model, ``path`` names it in the report; the
    cross-checks (``oracles``) run the file with other runtimes and so need
    it, and ``evidence`` (which copies the file) needs a path as ``model``.

    An ``onnx.ModelProto`` (or its serialized bytes) is checked as the file it
    would be, without writing one: the report names it ``<in-memory model>``,
    FORMAT-ONNX runs onnx's full check on those bytes, the cross-checks give
    them to the other runtimes, and ``waivers`` name the model by their
    SHA-256 (that of the file ``onnx.save`` writes for it). ``evidence``
    (which copies the model's file) raises :class:`~sonnx.base.errors.UsageError`.
    """
    opts = check_options(profile=profile, engine=engine, **options)
    if is_in_memory(model):
        if path is not None:
            raise UsageError("path= names an already loaded Model; a model in memory is named <in-memory model>")
        return check_models([model_bytes_of(model)], opts, progress).reports[0]
    if isinstance(model, Model):
        if opts.evidence is not None:
            raise UsageError("evidence copies the model file into the bundle: pass the model's path, not a Model")
        if opts.oracles and path is None:
            raise UsageError("the cross-checks run the model file with other runtimes: give path= for a Model")
        return check_model(model, opts, path or "<model>", progress)
    if path is not None:
        raise UsageError("path= names an already loaded Model; a model file is named by its own path")
    return check_models([_path(model)], opts, progress).reports[0]


def batch(
    paths: Sequence[str | os.PathLike[str]],
    *,
    workers: int | None = None,
    executor: str | None = None,
    scheduler: str | None = None,
    progress: Say | None = None,
    **options: Any,
) -> Batch:
    """Check every model under ``paths`` (files, directories, glob patterns), as ``sonnx batch`` does.

    ``workers`` worker processes (default: the machine's cores; 1 checks the
    models one after the other in this process) on Dask distributed (the
    ``fleet`` extra) or, without it or with ``executor="pool"``, a local
    process pool; ``scheduler`` (``tcp://HOST:PORT``) uses an existing Dask
    cluster. ``options`` are those of :func:`check`; ``evidence`` is the root
    directory of the per-model bundles. The result lists every model once,
    in sorted path order, with its report and its check time.
    """
    found = find_models([_path(p) for p in paths])
    return run_batch(
        found, check_options(**options), workers=workers, executor=executor, scheduler=scheduler, progress=progress
    )


def scheduler_factory(spec: str) -> Callable[[], Scheduler]:
    """``file``, ``lifo`` or ``random:SEED`` (the order in which ready operations run) as a scheduler maker."""
    if spec == "file":
        return FileOrder
    if spec == "lifo":
        return LastReadyOrder
    kind, _, seed = spec.partition(":")
    if kind == "random" and seed.lstrip("-").isdigit():
        return lambda: SeededRandomOrder(int(seed))
    raise UsageError(f"--schedule {spec!r}: expected file, lifo or random:SEED")


def feeds_for(model: Model, inputs: str | os.PathLike[str] | Mapping[str, Any] | None, seed: int) -> dict[str, Any]:
    """Graph-input values: from ``inputs`` (an ``.npz`` or ``.json`` path, or a mapping by name), the rest
    drawn with ``seed`` (:func:`sonnx.execution.inputs.inputs_for`)."""
    return inputs_for(model, inputs, seed).values


def run(
    model: ModelSource,
    inputs: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    schedule: str = "file",
    budget: float | None = None,
) -> dict[str, np.ndarray]:
    """Execute ``model`` with sonnx's NumPy executor, as ``sonnx run`` does; return the outputs by name.

    ``model`` may be an ``onnx.ModelProto`` or its serialized bytes, read as :func:`load` reads them.

    ``inputs`` maps graph-input names to values (NumPy arrays, or sequences,
    maps and optionals where the model declares them), or names an ``.npz``
    file; inputs it does not give are drawn from their declared types with
    ``seed``. ``schedule`` is the order in which ready operations run:
    ``file`` (default), ``lifo`` or ``random:SEED``; by the semantics the
    outputs do not depend on it. Values that contradict the declared types,
    or operators sonnx cannot run, raise :class:`~sonnx.base.errors.ExecutionError`; a model-local function
    that shadows a standard operator, :class:`~sonnx.base.errors.FunctionShadowingError` (the runtimes would run
    the standard operator, sonnx the function). ``budget``, in seconds of wall-clock time, stops a run that
    has not finished by then with :class:`~sonnx.base.errors.BudgetExceeded` (None: no limit).
    """
    make = scheduler_factory(schedule)
    if isinstance(model, Model):
        loaded = model
    elif is_in_memory(model):
        loaded = load(model)
    else:
        # a file loaded here serves this call alone: its weights are read from it when the plan decodes them,
        # not kept twice (the serialized bytes beside the arrays), as sonnx run loads
        loaded = load_model(_path(model), weights_from_file=True)
    refuse_shadowing(loaded)
    return execute(loaded, feeds_for(loaded, inputs, check_seed(seed)), make(), budget=budget)


def crosscheck(
    model: ModelSource | ModelBytes,
    *,
    oracles: str | Iterable[str] = ORACLES,
    seed: int = 0,
    inputs: str | os.PathLike[str] | None = None,
    tolerance: Tolerance | Mapping[str, Any] | None = None,
    path: str | None = None,
) -> CrossCheckReport:
    """Compare the NumPy executor with other runtimes on the same inputs, as ``sonnx crosscheck`` does.

    ``oracles``: ``reference`` (onnx's reference evaluator) and/or
    ``onnxruntime``. Inputs come from the ``inputs`` ``.npz`` file or are drawn
    with ``seed``; ``tolerance`` overrides the per-type defaults (``quant_steps``: a tolerance in
    quantization steps on the outputs a quantizing operation writes). The report's
    ``outcome`` is AGREE, DIFFER (exit 1) or UNKNOWN (exit 2: an oracle missing
    or refusing the model). The oracles run the model file, so an already
    loaded model needs ``path``; an ``onnx.ModelProto`` or its bytes (or the
    :class:`~sonnx.loader.memory.ModelBytes` of ``sonnx crosscheck -``) are given
    to the oracles as they are. A model-local function that shadows a standard operator raises
    :class:`~sonnx.base.errors.FunctionShadowingError`: the oracles would run the standard operator, sonnx the
    function, and a disagreement would only restate that.
    """
    names = parse_oracles(oracles if isinstance(oracles, str) else ",".join(oracles), "oracles")
    tol = Tolerance(**tolerance) if isinstance(tolerance, Mapping) else (tolerance or Tolerance())
    inputs_file = None if inputs is None else os.fspath(inputs)
    if isinstance(model, Model):
        if path is None:
            raise UsageError("the cross-check runs the model file with other runtimes: give path= for a Model")
        refuse_shadowing(model)
        return cross_check(path, names, check_seed(seed), inputs_file, tol, model=model)
    if path is not None:
        raise UsageError("path= names an already loaded Model; a model file is named by its own path")
    if is_in_memory(model):  # the oracles run the very bytes sonnx read
        given = model_bytes_of(model)
        loaded = load_model(given)
        refuse_shadowing(loaded)
        return cross_check(given.name, names, check_seed(seed), inputs_file, tol, model=loaded, data=given.data)
    source = _path(model)
    loaded = load_model(source, weights_from_file=True)  # serves this call alone, as in run
    refuse_shadowing(loaded)
    return cross_check(source, names, check_seed(seed), inputs_file, tol, model=loaded)


def qualify(
    outdir: str | os.PathLike[str],
    *,
    suite: str = "small",
    jobs: int = 1,
    force: bool = False,
    progress: Say | None = None,
) -> Qualification:
    """Run the tool qualification suite here and write the kit into ``outdir``, as ``sonnx qualify`` does.

    ``suite`` is ``small`` (a subset, for CI) or ``full`` (every case). The
    returned :class:`~sonnx.checking.qualify.kit.Qualification` holds each case's
    result, the summary document and ``exit_code`` (0 every case passed, 1 one
    failed, 2 one could not run here); docs/qualification.rst says what the kit
    supports and what it is not.
    """
    return _qualify(outdir, suite_name=suite, jobs=jobs, force=force, progress=progress)


def _path(model: object) -> str:
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if not isinstance(model, str):
        raise UsageError(
            f"expected a model path, a sonnx Model, an onnx.ModelProto or its bytes, not {type(model).__name__}"
        )
    return model


__all__ = [
    "ModelSource",
    "batch",
    "check",
    "check_options",
    "crosscheck",
    "feeds_for",
    "load",
    "run",
    "scheduler_factory",
    "qualify",
]
