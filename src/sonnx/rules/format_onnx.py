"""FORMAT-ONNX: the model file is a valid ONNX model, as onnx's own checker decides.

Spec rule FORMAT-ONNX (spec/graph.rst, section 4), from the working group's
REQ-FO-000 and the first item of REQ-TO-000. The check runs
``onnx.checker.check_model(path, full_check=True)`` on the file the model was
read from: the structural checks of the ONNX IR and operator schemas, then
onnx's shape inference in strict mode. It is given the path, never a loaded
``ModelProto``, so that external data locations are checked against the model's
directory and a model above protobuf's 2 GB limit can be checked. The path
form also takes less memory; at a million nodes the full check costs more
than the rules themselves, and it is not skipped above any size (figures:
benchmarks/README.md, "Figures behind choices in the code").

onnx's shape inference does not read tensors kept in external data: it stops
with "Cannot parse data from external tensors" when an operator needs such a
value (the shape input of a ``Reshape``, say). That is a limit of the checker,
not a defect of the model, so it is never reported as a violation:

* when weights may be read, the check is done again in two steps that are
  together the full check: ``check_model(path)`` (structure), then strict shape
  inference on the model read without external data except the external
  tensors of at most :data:`SMALL_EXTERNAL` bytes, which are loaded (shape
  inference reads small integer tensors, never large weights);
* under ``--structure-only`` (no weight byte is read) or when the value needed
  is a larger external tensor, the verdict is UNKNOWN with that reason.

A model read from no file (an ``onnx.ModelProto`` given to the Python API, a
model piped to ``sonnx-check -``) is checked the same way on the very bytes
the loader read (:attr:`~sonnx.rules.base.CheckConfig.model_bytes`):
``check_model(bytes, full_check=True)``, which is the full check of the file
those bytes would be. Such a model has no folder, so the loader has already
refused any tensor kept in external data (:mod:`sonnx.loader.memory`); were
the checker still to ask for an external tensor's value, the verdict would be
UNKNOWN, since there is no folder to read it from. Such a model is below
protobuf's 2 GiB limit by construction.

Likewise when the checker's own protobuf parser gives up on a file that
sonnx's loader decoded (protobuf stops at 100 levels of nesting, which sonnx's
loader does not): UNKNOWN, not VIOLATED.

The checker is native code, and a crafted model can crash it (a function
whose graph-attribute default calls the function itself makes it recurse until
the stack overflows). It therefore runs in a child process under a memory and a
time limit (:mod:`sonnx.loader.sandbox`); the child's death by a signal, or a
limit reached, is UNKNOWN naming the signal or the limit, and the other rules
run in the parent as usual. The checker needs only the file, so the child is
started before the model is read (:func:`start`, through ``Rule.start``) and
works while the parent reads the model and runs the other rules; the rule
joins it last, and its verdict is the one a child waited for at once would
give (the child keeps its own limits).

A model that uses a field its IR version does not define is refused by the
loader when the field has a meaning (spec/graph.rst, reading A14). An annotation
field nothing executes (metadata on graphs, nodes and functions, quantization
annotations, training and device information) stays ignored, and FORMAT-ONNX
is VIOLATED naming it, after the checker has accepted the file (the checker
does not compare fields with the IR version).

Verdicts: PROVED when the checker accepts the model; VIOLATED with the
checker's message as witness when it refuses it; UNKNOWN with the reason when
the check cannot be completed (the limits above, a model not read from a file,
a child that died, or an unexpected exception of the checker, which is a crash,
not a finding).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from ..base.verdict import Severity, Status, Verdict, Witness
from ..base.witness import LIMIT
from ..loader.irfields import NEWEST_ANNOTATION, annotations_clean, annotations_used, stated_ir_version
from ..loader.sandbox import Failure, Started, contained
from ..loader.sandbox import start as begin
from .base import CheckContext

ID = "FORMAT-ONNX"
SEVERITY = Severity.ERROR

SMALL_EXTERNAL = 64 * 1024
"""External tensors of at most this many bytes are loaded for the two-step check (never under --structure-only)."""

EXTERNAL_LIMIT = "Cannot parse data from external tensors"
"""The start of the message of onnx's shape inference when it needs an external tensor's value."""

UNPARSED = "Unable to parse proto from"
"""The start of onnx.checker's message when its own protobuf parser gives up on a file (or bytes) sonnx's loader
decoded (protobuf's limit of 100 nesting levels, for one): a limit of the checker, not a finding."""

MESSAGE_SHOWN = 300
"""Characters of the checker's message kept in the one-line summary (the whole message is in the data)."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _finding(stage: str, message: str, how: str) -> Verdict:
    msg = _one_line(message)
    shown = msg if len(msg) <= MESSAGE_SHOWN else msg[: MESSAGE_SHOWN - 3] + "..."
    data: dict[str, Any] = {"stage": stage, "message": msg, "how": how}
    return Verdict.violated(ID, Witness(f"onnx.checker refuses the model ({stage}): {shown}", data), SEVERITY)


def _tensors(model: Any) -> Iterator[Any]:
    """Every TensorProto of a ModelProto: initializers and attribute tensors, nested graphs and functions included."""
    graphs = [model.graph]
    nodes: list[Any] = [n for f in model.functions for n in f.node]
    while graphs or nodes:
        if graphs:
            g = graphs.pop()
            yield from g.initializer
            for sp in g.sparse_initializer:
                yield sp.values
                yield sp.indices
            nodes.extend(g.node)
            continue
        for a in nodes.pop().attribute:
            if a.HasField("t"):
                yield a.t
            yield from a.tensors
            if a.HasField("g"):
                graphs.append(a.g)
            graphs.extend(a.graphs)


def _nbytes(tensor: Any) -> int | None:
    """The byte length of an external tensor, from its ``length`` entry or its dims and element type."""
    import numpy as np
    from onnx import helper

    for entry in tensor.external_data:
        if entry.key == "length":
            try:
                return int(entry.value)
            except ValueError:
                return None
    try:
        itemsize = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.data_type)).itemsize
    except (KeyError, TypeError, ValueError):
        return None
    return int(np.prod(tensor.dims, dtype=np.int64)) * itemsize


def _two_step(path: str) -> Verdict:
    """The full check of a model with external data: structure on the path, then strict shape inference."""
    import onnx
    from onnx import checker, shape_inference
    from onnx.external_data_helper import load_external_data_for_tensor, uses_external_data

    how = "check_model(path) then strict shape inference with the external tensors of at most 64 KiB loaded"
    try:
        checker.check_model(path)
    except checker.ValidationError as exc:
        return _finding("structure", str(exc), how)
    proto = onnx.load_model(path, load_external_data=False)
    base = os.path.dirname(os.path.abspath(path))
    for t in _tensors(proto):
        if uses_external_data(t):
            size = _nbytes(t)
            if size is not None and size <= SMALL_EXTERNAL:
                load_external_data_for_tensor(t, base)
                t.data_location = onnx.TensorProto.DEFAULT
                del t.external_data[:]
    try:
        shape_inference.infer_shapes(proto, check_type=True, strict_mode=True, data_prop=False)
    except shape_inference.InferenceError as exc:
        if EXTERNAL_LIMIT in str(exc):
            return Verdict.unknown(
                ID,
                "onnx's shape inference needs the value of an external tensor larger than 64 KiB, which sonnx "
                f"does not load for it: {_one_line(str(exc))}",
                SEVERITY,
            )
        return _finding("shape inference", str(exc), how)
    return Verdict.proved(ID, SEVERITY)


def run_checker(path: str | bytes, read_weights: bool) -> Verdict:
    """The verdict of onnx's full check on the model file at ``path``, or on the model's bytes when it was read
    from no file (see the module text)."""
    from onnx import checker, shape_inference

    how = "check_model(path, full_check=True)" if isinstance(path, str) else "check_model(bytes, full_check=True)"
    try:
        checker.check_model(path, full_check=True)
    except shape_inference.InferenceError as exc:
        if EXTERNAL_LIMIT not in str(exc):
            return _finding("shape inference", str(exc), how)
        if not isinstance(path, str):
            return Verdict.unknown(
                ID,
                "onnx's shape inference needs the value of a tensor kept in external data, and a model read from no "
                "file has no folder to read it from",
                SEVERITY,
            )
        if not read_weights:
            return Verdict.unknown(
                ID,
                "onnx's shape inference needs the value of a tensor kept in external data, and --structure-only "
                "reads no weight; check without --structure-only to complete FORMAT-ONNX",
                SEVERITY,
            )
        return _two_step(path)
    except checker.ValidationError as exc:
        if UNPARSED in str(exc):
            return Verdict.unknown(
                ID,
                "onnx.checker's protobuf parser could not read the file, which sonnx's loader decoded (protobuf "
                "stops at 100 levels of nesting, for one); the checker could not run",
                SEVERITY,
            )
        return _finding("structure", str(exc), how)
    return Verdict.proved(ID, SEVERITY)


def check(ctx: CheckContext) -> Verdict:
    """The verdict on what the model was read from (its file, or the bytes of a model read from no file): from the
    child started for it before the model was read (``ctx.config.started``), else from a child started now."""
    target: str | bytes | None = ctx.config.model_bytes
    if target is None:
        target = ctx.model.source
        if not target or not os.path.isfile(target):
            return Verdict.unknown(
                ID,
                "the model was not read from a file nor given as bytes (FORMAT-ONNX checks what the model was read "
                "from)",
                SEVERITY,
            )
    given = ctx.config.started.get(ID)
    ours = isinstance(given, Early) and given.path == target and given.read_weights == ctx.config.read_weights
    mine = given if ours and isinstance(given, Early) else None
    early = mine or start(target, ctx.config.read_weights)
    try:
        return finish(early.child.join(), target, ctx.model.ir_version, _has_nested(ctx))
    finally:
        if mine is None:
            early.cancel()


@dataclass(frozen=True, eq=False)
class Early:
    """onnx's full check of the file at ``path`` (or of the bytes ``path`` holds), running in a child process since
    :func:`start`."""

    path: str | bytes
    read_weights: bool
    child: Started[tuple[Verdict, bool | None]]

    def cancel(self) -> None:
        """Stop the child when it still runs."""
        self.child.cancel()


def start(path: str | bytes, read_weights: bool) -> Early:
    """Start onnx's full check of the file at ``path`` (or of the model bytes ``path`` holds) in a child process
    (:mod:`sonnx.loader.sandbox`) and return at once; the rule's :func:`check` joins it. It needs only the file, so it
    can start before the model is read.

    onnx builds its registry of operator schemas on first use; the checker
    reads it, and so do the rules that run in this process (GRAPH-R2,
    GRAPH-ARITY...). It is built here before the fork, from onnx's own tables
    and nothing of the model, so that the child inherits it instead of
    building a copy of its own."""
    _build_schema_registry()
    return Early(path, read_weights, begin(_early, path, read_weights))


def _build_schema_registry() -> None:
    """Make onnx build its registry of operator schemas in this process now (it does so on the first lookup)."""
    import onnx

    onnx.defs.has("Identity")


def finish(outcome: tuple[Verdict, bool | None] | Failure, path: str | bytes, ir_version: int, nested: bool
           ) -> Verdict:
    """The verdict, from what the child started by :func:`start` gave and what the loaded model says.

    The undefined annotations are looked for only when the checker passed
    and the model's IR version is older than :data:`NEWEST_ANNOTATION`. The child already
    read the annotation view of the file (``clean``); when it found none and
    no graph is nested in an attribute, that decides, and otherwise
    :func:`undefined_annotations` runs in a child of its own, as it ran
    before in the checker's."""
    if isinstance(outcome, Failure):
        return _failed(outcome)
    verdict, clean = outcome
    if verdict.status is not Status.PROVED or ir_version >= NEWEST_ANNOTATION or (clean and not nested):
        return verdict
    second = contained(_annotations, path, nested)
    return _failed(second) if isinstance(second, Failure) else second


def _failed(outcome: Failure) -> Verdict:
    return Verdict.unknown(
        ID, f"onnx.checker {outcome.reason} (it runs in a child process, so the other rules still ran)", SEVERITY
    )


def _read(path: str | bytes) -> bytes:
    """The model's bytes: those given, or the file's."""
    if isinstance(path, bytes):
        return path
    with open(path, "rb") as fh:
        return fh.read()


def _early(path: str | bytes, read_weights: bool) -> tuple[Verdict, bool | None]:
    """In the child started by :func:`start`: the checker's verdict and, when it passed and the file's IR version is
    older than :data:`NEWEST_ANNOTATION`, whether the annotation view of the file is clean (None: not looked at, or
    not decided here, so that :func:`finish` runs :func:`undefined_annotations` itself)."""
    verdict = _guarded_checker(path, read_weights)
    if verdict.status is not Status.PROVED:
        return verdict, None
    try:
        raw = _read(path)
        ir = stated_ir_version(raw)
        return verdict, (annotations_clean(raw) if ir is not None and ir < NEWEST_ANNOTATION else None)
    except (Exception, MemoryError):  # decided again by undefined_annotations, which words any failure
        return verdict, None


def undefined_annotations(raw: bytes, nested: bool) -> Verdict:
    """VIOLATED when the file uses an annotation field its IR version does not define (:mod:`sonnx.loader.irfields`).

    A model without nested graphs is first read through a view of the
    annotation fields only, which decides the usual case without a walk over
    the nodes; the walk that names the fields runs when that view finds some,
    or when graphs are nested in attributes."""
    import onnx

    if not nested and annotations_clean(raw):
        return Verdict.proved(ID, SEVERITY)
    found = annotations_used(onnx.load_model_from_string(raw))
    if not found:
        return Verdict.proved(ID, SEVERITY)
    shown = "; ".join(found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
    data: dict[str, Any] = {"stage": "IR version", "fields": found[:LIMIT], "count": len(found)}
    summary = f"{len(found)} field(s) the model's IR version does not define (ignored): {shown}"
    return Verdict.violated(ID, Witness(summary, data), SEVERITY)


def _has_nested(ctx: CheckContext) -> bool:
    """Whether a graph of the model (its functions' bodies included) is nested in an attribute."""
    m = ctx.model
    roots = [m.graph_as_written or m.graph, *(f.body for f in m.functions)]
    return any(next(islice(g.nested(), 1, None), None) is not None for g in roots)


def _guarded_checker(path: str | bytes, read_weights: bool) -> Verdict:
    """:func:`run_checker`; an unexpected exception of the checker is UNKNOWN (a crash, not a finding). A
    ``MemoryError`` is left to the sandbox, which names the limit."""
    try:
        return run_checker(path, read_weights)
    except MemoryError:
        raise
    except Exception as exc:
        return _crashed(exc)


def _annotations(path: str | bytes, nested: bool) -> Verdict:
    """:func:`undefined_annotations` on the file at ``path`` (or the bytes it holds), guarded as
    :func:`_guarded_checker` is."""
    try:
        return undefined_annotations(_read(path), nested)
    except MemoryError:
        raise
    except Exception as exc:
        return _crashed(exc)


def _crashed(exc: Exception) -> Verdict:
    return Verdict.unknown(ID, f"onnx.checker failed: {type(exc).__name__}: {_one_line(str(exc))}", SEVERITY)
