"""``load_model``: from an ONNX file to an immutable :class:`sonnx.model.Model`.

Order of the checks, each failing with a one-line :class:`~sonnx.base.errors.SonnxError`:

1. the path names a non-empty regular file (:class:`InputError`);
2. the bytes decode as a protobuf ``ModelProto`` that has a graph
   (:class:`ModelFormatError`);
3. the IR version and the ``ai.onnx`` opset are ones the installed ``onnx``
   knows (:class:`UnsupportedModelError`);
4. graphs, functions and initial values convert, external data locations are
   safe and present (:class:`ModelFormatError`, :class:`ExternalDataError`,
   :class:`UnsafePathError`);
5. local functions are inlined, recursive chains recorded, and the calls of
   functions named like an ONNX operator recorded where they were inlined.

Not read: ``training_info`` (training algorithms are outside the SONNX
profile) and ``configuration`` (device placement).

Garbage collection is paused (process-wide) while the model is built: the conversion
allocates millions of tuples and none of them forms a reference cycle, so
the collector's passes would only cost time (about half of the total on a
million-operation graph).
"""

from __future__ import annotations

import gc
import os
import stat
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar

import onnx
from google.protobuf.message import DecodeError

from ..base.allocator import release_freed_heap
from ..base.errors import InputError, ModelFormatError, SonnxError, ToolError, UnsupportedModelError
from ..model.graph import InlinedCall, Model
from .attributes import normalise_domain
from .convert import GraphConverter
from .detach import ModelFile, identity_of
from .external import ExternalData
from .functions import check_function_opsets, collect_functions, opset_map
from .inline import Inliner
from .memory import ModelBytes
from .parse import node_runs, parse_model, whole_file_error
from .proto import decode_detail, text
from .sandbox import Failure, contained
from .unenforced import drop_unenforced
from .values import ValueFactory

PathLike = str | os.PathLike[str]
T = TypeVar("T")


def _one_line(text_: str) -> str:
    return " ".join(text_.split())


def _display(path: str) -> str:
    """The path as shown in messages: as given, or quoted when it holds unprintable characters."""
    return path if path.isprintable() else repr(path)


def load_model(
    path: PathLike | ModelBytes,
    *,
    read_weights: bool = True,
    infer_shapes: bool = False,
    weights_from_file: bool = False,
) -> Model:
    """Load the ONNX model at ``path``.

    With ``read_weights=False`` no weight byte is read (values read on
    demand; ``Model.weights_loaded`` is False). With ``read_weights=True``
    values are still read on demand, but every external data file is opened
    once and checked to hold the bytes its tensors need.

    With ``infer_shapes=True`` the file is first read by ``onnx`` itself (no
    external data), stripped of the declarations no runtime enforces
    (:func:`.unenforced.drop_unenforced`: intermediate ``value_info``, the shapes
    of graph outputs and of nested graphs' inputs, symbolic names shared by
    several input dimensions), and given onnx's shape inference, not strict,
    with data propagation; the types it adds to each graph's ``value_info``
    become the declared types of the tensors (STRICT-BROADCAST reads them), so
    they rest only on facts that hold at run time. A file onnx cannot read
    (more than 100 levels of nested graphs) fails as unsupported, and so does
    one on which the inference crashes or reaches a limit: it runs in a child
    process (:mod:`.sandbox`).

    With ``weights_from_file=True`` the main graph's embedded weights are not
    kept in memory: each is read from the file when its value is read (see
    :mod:`.detach`), so a run holds one copy of the weights, not two. The
    file must then stay as it was while the model is used; a value read
    after it changed or went away is a :class:`ModelFormatError`. The
    command line loads this way; the default keeps the model independent of
    the file. It has no effect with ``infer_shapes`` (the bytes parsed are
    then onnx's, not the file's).

    ``path`` may instead be the bytes of a model read from no file
    (:func:`load_model_bytes`): they are read as a file's bytes, with
    ``infer_shapes`` too; ``weights_from_file`` does not apply to them.

    Every failure is a :class:`~sonnx.base.errors.SonnxError` with a one-line
    message naming the file: an input problem as an ``InputError`` subclass,
    an unexpected internal failure as a ``ToolError``.
    """
    if isinstance(path, ModelBytes):
        if infer_shapes:
            shown, data = _display(path.name), path.data
            return _guarded(shown, lambda: _load("", shown, read_weights, False, _inference(data, shown))[0])
        return load_model_bytes(path, read_weights=read_weights)[0]
    path, display = _path(path)
    if infer_shapes:
        return _guarded(display, lambda: _load(path, display, read_weights, False, _inferred(path, display))[0])
    return _guarded(display, lambda: _load(path, display, read_weights, weights_from_file)[0])


def load_model_and_derived(
    path: PathLike | ModelBytes,
    *,
    read_weights: bool = True,
    weights_from_file: bool = False,
    derive: Callable[[Model], bool],
) -> tuple[Model, Derived | None]:
    """:func:`load_model`, and the types onnx's inference derives for the same bytes when ``derive`` asks for them.

    ``derive`` is asked once the model is built (the check asks when a rule
    that reads derived types will run: spec 9.4, STRICT-BROADCAST and
    GRAPH-IF-BRANCHES). The bytes read for the model are then given to onnx's
    shape inference as :func:`load_model` with ``infer_shapes=True`` gives them
    (so the file is read once, and the derived types are those of the very
    bytes the model was built from), and the inferred model is read without
    its weights. A failure there is no failure of the load: the
    :class:`Derived` record holds no model and says why (a reason without the
    path, so that an evidence bundle replays it unchanged). None when
    ``derive`` did not ask. Bytes read from no file are loaded by :func:`load_model_bytes`.
    """
    if isinstance(path, ModelBytes):
        return load_model_bytes(path, read_weights=read_weights, derive=derive)
    path, display = _path(path)
    return _guarded(display, lambda: _load(path, display, read_weights, weights_from_file, derive=derive))


def load_model_bytes(
    source: ModelBytes, *, read_weights: bool = True, derive: Callable[[Model], bool] | None = None
) -> tuple[Model, Derived | None]:
    """:func:`load_model_and_derived` for a model that has no file: its bytes (:mod:`.memory`).

    The bytes go through the decoding and the refusals of a file's bytes, in
    the same order, and messages name ``source.name``; the model's ``source``
    is empty (it was read from no file). It has no folder, so a tensor kept
    in external data is refused (:class:`~sonnx.base.errors.ExternalDataError`).
    Its weights are kept in memory. The derived types, when ``derive`` asks,
    are those of the same bytes.
    """
    display = _display(source.name)
    return _guarded(display, lambda: _load("", display, read_weights, False, derive=derive, given=source.data))


class Derived(NamedTuple):
    """The model with the types onnx's inference derives from enforced facts (spec 9.4), or None and why not."""

    model: Model | None
    why: str = ""


def no_inferred_types(exc: SonnxError, path: str) -> str:
    """Why ``path`` gave no inferred types, without the path (the reason is the same wherever the file lies, so
    that an evidence bundle replays it unchanged)."""
    why = exc.one_line()
    for shown in (path, repr(path)):
        why = why.removeprefix(f"{shown}: ")
    return f"no inferred types: {why}"


def _derived(kept: list[bytes], path: str, display: str) -> Derived:
    """The model of the bytes read from ``path`` (taken out of ``kept``, so that they are let go once inferred)
    after onnx's shape inference, read without weights."""
    try:
        inferred = _guarded(display, lambda: _load(path, display, False, False, _inference(kept.pop(), display))[0])
    except SonnxError as exc:
        return Derived(None, no_inferred_types(exc, path))
    return Derived(inferred)


def _path(path: PathLike) -> tuple[str, str]:
    """``path`` as a string, and as shown in messages."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise InputError(f"model path must be a str or os.PathLike, not {type(path).__name__}")
    return path, _display(path)


def _guarded(display: str, load: Callable[[], T]) -> T:
    """``load()`` with the collector paused, every failure turned into a one-line :class:`SonnxError`."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return load()
    except SonnxError as e:
        if "\n" in str(e) or "\r" in str(e):
            raise type(e)(_one_line(str(e))) from None
        raise
    except DecodeError as e:
        raise ModelFormatError(f"{display}: not a well-formed ONNX model: {decode_detail(e)}") from None
    except UnicodeDecodeError as e:
        raise ModelFormatError(f"{display}: text that is not valid UTF-8: {_one_line(str(e))}") from None
    except OSError as e:
        raise InputError(f"{display}: {e.strerror or _one_line(str(e))}") from None
    except MemoryError:
        raise InputError(f"{display}: not enough memory to load the model") from None
    except Exception as e:
        raise ToolError(f"{display}: internal error while loading: {type(e).__name__}: {_one_line(str(e))}") from e
    finally:
        if gc_was_enabled:
            gc.enable()


def _read_file(path: str, display: str) -> tuple[bytes, ModelFile]:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(f"{display}: no such file") from None
    except PermissionError:
        raise InputError(f"{display}: permission denied") from None
    except ValueError:
        raise InputError(f"{display}: not a valid path") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{display}: is a directory, not a model file")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{display}: not a regular file")
    if st.st_size == 0:
        raise InputError(f"{display}: empty file")
    with open(path, "rb") as fh:
        data = fh.read()
        identity = identity_of(os.fstat(fh.fileno()))
    if not data:
        raise InputError(f"{display}: empty file")
    if identity[2] != len(data):
        raise InputError(f"{display}: the file changed while it was read")
    return data, ModelFile(display, os.path.realpath(path), identity)


def _header(m: Any, display: str) -> tuple[int, dict[str, int], dict[str, str]]:
    """IR version, opset imports and metadata, checked."""
    ir = int(m.ir_version)
    if not m.HasField("ir_version") or ir == 0:
        raise UnsupportedModelError(f"{display}: the model has no IR version (ir_version is missing or 0)")
    if ir < 0:
        raise UnsupportedModelError(f"{display}: IR version {ir} is not a valid IR version")
    if ir > onnx.IR_VERSION:
        raise UnsupportedModelError(
            f"{display}: IR version {ir} is newer than this tool knows (up to {onnx.IR_VERSION})"
        )
    opsets = opset_map(m.opset_import, display, "the model")
    if not opsets:
        if ir >= 3:
            raise UnsupportedModelError(f"{display}: the model imports no operator set (opset_import is empty)")
        opsets = {"": 1}  # before IR 3 there was no opset_import: operators were version 1
    meta: dict[str, str] = {
        "producer_name": m.producer_name,
        "producer_version": m.producer_version,
        "domain": m.domain,
        "model_version": str(int(m.model_version)),
        "doc_string": text(m.doc_string),
    }
    standard = set(meta)
    for entry in m.metadata_props:
        # A property named like a standard field is kept apart rather than hiding it;
        # a repeated property keeps its last value.
        key = f"metadata_props:{entry.key}" if entry.key in standard else entry.key
        meta[key] = entry.value
    return ir, opsets, meta


def _inferred(path: str, display: str) -> bytes:
    """The file's bytes, without its unenforced declarations, after onnx's shape inference (not strict, with data
    propagation, no external data)."""
    data, _ = _read_file(path, display)  # the same input checks as an ordinary load
    return _inference(data, display)


def _inference(data: bytes, display: str) -> bytes:
    """``data`` without its unenforced declarations, after onnx's shape inference (see :func:`_inferred`)."""
    outcome = contained(_infer, data)  # native code: a crash or a limit ends the child, not this process
    if isinstance(outcome, Failure):
        raise UnsupportedModelError(f"{display}: onnx's shape inference {outcome.reason}")
    inferred, refusal = outcome
    if refusal:
        raise UnsupportedModelError(f"{display}: onnx's shape inference cannot read the model: {refusal}")
    return inferred


def _infer(data: bytes) -> tuple[bytes, str]:
    """In the child: the inferred model's bytes, or its refusal as one line."""
    try:
        proto = onnx.load_model_from_string(data)  # external data stays unread: no base directory is given
        drop_unenforced(proto)
        inferred = onnx.shape_inference.infer_shapes(proto, check_type=False, strict_mode=False, data_prop=True)
    except (DecodeError, onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as exc:
        return b"", _one_line(str(exc)) or type(exc).__name__
    return inferred.SerializeToString(), ""


def _load(
    path: str,
    display: str,
    read_weights: bool,
    weights_from_file: bool,
    inferred: bytes | None = None,
    derive: Callable[[Model], bool] | None = None,
    given: bytes | None = None,
) -> tuple[Model, Derived | None]:
    """Convert the model at ``path`` (from ``inferred`` when given: the same file after shape inference; from
    ``given`` for a model without a file, ``path`` then empty), and its derived types when ``derive`` asks (see
    :func:`load_model_and_derived`)."""
    file: ModelFile | None = None
    if inferred is not None:
        data, inferred = inferred, None
    elif given is not None:
        data = given
    else:
        data, file = _read_file(path, display)
    m, raw, runs = parse_model(data, display, weights_from_file and file is not None)
    # the bytes are kept for the inference only when it may run
    kept = [data] if derive is not None and (file is not None or given is not None) else []
    whole = data if runs else None  # the main graph's nodes are parsed from it, run by run
    del data  # cut-out weights are read from the file again, when their values are read
    try:
        if not m.HasField("graph"):
            raise ModelFormatError(f"{display}: not an ONNX model: it has no graph")
        ir, opsets, meta = _header(m, display)

        calls = {(normalise_domain(fp.domain), fp.name) for fp in m.functions}
        values = ValueFactory(display, ExternalData(path, display, check_contents=read_weights), file)
        converter = GraphConverter(display, ir, values, calls)
        converter.gate.model(m)  # fields newer than the model's IR version are refused (irfields)
        functions = collect_functions(m.functions, converter, display)
        check_function_opsets(functions, opsets, display)
        graph = converter.convert_graph(m.graph, raw, None if whole is None else node_runs(whole, runs))
    except Exception:
        if whole is not None:
            whole_file_error(whole, display)
        raise
    run_wise = whole is not None
    del m, whole  # the protobuf arena is released here; only converted values remain
    if run_wise:  # the runs parsed one by one left free chunks among the records: give their pages back
        release_freed_heap()
    converter.gate.types(converter.types.known.values(), values.data_types)

    cycles: tuple[tuple[str, ...], ...] = ()
    written = graph
    inlined: tuple[InlinedCall, ...] = ()
    if functions:
        # A call of a function named like an ONNX operator (at any version) is recorded where it is inlined:
        # the rules decide at the model's opset whether the runtimes would run that operator instead.
        watched = frozenset(f.key for f in functions if onnx.defs.has(f.key[1], f.key[0]))
        inliner = Inliner(display, functions, converter.overloads, watched)
        inliner.check_total(graph)
        graph = inliner.expand(graph)
        cycles = inliner.call_cycles
        inlined = inliner.inlined_calls
    model = Model(
        graph=graph,
        ir_version=ir,
        opset_imports=MappingProxyType(opsets),
        functions=tuple(f.function for f in functions),
        call_cycles=cycles,
        source=path,
        weights_loaded=read_weights,
        metadata=MappingProxyType(meta),
        graph_as_written=None if written is graph else written,
        inlined_calls=inlined,
    )
    if not kept or derive is None or not derive(model):
        return model, None
    return model, _derived(kept, path, display)
