"""Input values for execution, all in this package: from .npz, .npy and JSON files, or seeded random draws
from the declared types.

Used by ``sonnx run``, ``sonnx-check --orders`` and the cross-checks, the
partitioned runs, the evidence bundle, the validation of ``sonnx rewrite``
and ``sonnx equiv`` and the Python API (:func:`inputs_for`), so that every
tool that executes a model reads and draws inputs the same way (one seed, the
same values), and every report says where they came from
(:class:`~.source.InputSource`): a verdict tested on a file's values names
that file and its SHA-256, never a seed that drew nothing. The executor
itself draws nothing.

File forms: an ``.npz`` archive keyed by graph-input name holds tensors (a
STRING input may be stored as NumPy text, ``<U`` or ``S``: it is turned into
the ``str`` objects the executor and onnxruntime take); a JSON file
(:mod:`.json_file`) holds every input kind, maps, sequences and optionals
included. Inputs given by no file are drawn: tensors by
:func:`.tensors.random_inputs`, integers inside the domain the model admits (:mod:`.domain`), the
other kinds by :mod:`.drawing`.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from onnx import TensorProto

from ...base.errors import InputError, UsageError
from ...model.graph import Model, TensorType
from .drawing import draw_structured, is_structured
from .json_file import parse_inputs, parse_value
from .source import SHA_SHOWN, Inputs, InputSource
from .tensors import random_inputs

__all__ = [
    "MAX_JSON_INPUT_BYTES",
    "SHA_SHOWN",
    "InputSource",
    "Inputs",
    "complete_inputs",
    "inputs_for",
    "load_inputs",
    "random_inputs",
    "read_inputs",
]

MAX_JSON_INPUT_BYTES = 256 << 20
"""The largest JSON inputs file that is read (256 MiB): JSON is for small and structured values."""


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return digest.hexdigest()


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_JSON_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_JSON_INPUT_BYTES:
        raise InputError(f"{path}: more than {MAX_JSON_INPUT_BYTES} bytes; give large tensors in an .npz file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


def _is_json(path: str) -> bool:
    return path.lower().endswith(".json")


def _strings_of(path: str, name: str, value: np.ndarray) -> np.ndarray:
    """NumPy text (``<U``, or ``S`` as UTF-8) as the object array of ``str`` a STRING tensor is."""
    if value.dtype.kind == "U":
        return value.astype(object)
    try:
        return np.array([b.decode("utf-8") for b in value.flat], dtype=object).reshape(value.shape)
    except UnicodeDecodeError:
        raise InputError(f"{path}: input {name!r}: bytes that are not UTF-8 text in a STRING input") from None


def _declared_strings(ttype: TensorType | None) -> bool:
    """True when the declared type is a STRING tensor (or an optional holding one)."""
    while ttype is not None and ttype.kind == "optional":
        ttype = ttype.element
    return ttype is not None and ttype.kind == "tensor" and ttype.elem_type == TensorProto.STRING


def _as_declared(model: Model, path: str, name: str, value: Any) -> Any:
    """An array read from NumPy files, with text turned into ``str`` objects where a STRING input is declared.

    Text for an input declared otherwise is left as it is: the executor's
    input check refuses it with one line naming the declared type.
    """
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "US" or name not in model.graph.tensors:
        return value
    return _strings_of(path, name, value) if _declared_strings(model.graph.tensor(name).type) else value


def _load_array(path: str) -> np.ndarray:
    try:
        value = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: not a readable .npy file ({exc})") from None
    if not isinstance(value, np.ndarray):
        raise InputError(f"{path}: holds several arrays; use --inputs for an .npz file")
    return value


def _load_npz(path: str) -> dict[str, Any]:
    try:
        with np.load(path, allow_pickle=False) as data:
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise InputError(f"{path}: not an .npz archive")
            return {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: not a readable .npz file ({exc})") from None


def _types(model: Model) -> dict[str, TensorType | None]:
    g = model.graph
    return {n: g.tensor(n).type for n in g.inputs}


def complete_inputs(
    model: Model,
    given: Mapping[str, Any],
    seed: int,
    files: tuple[tuple[str, str], ...] = (),
    named: tuple[str, ...] = (),
) -> Inputs:
    """``given`` values completed by random draws with ``seed`` for every other input without an initial value.

    A key that names no graph input is a :class:`UsageError`; an input that
    cannot be drawn (its declared type says too little) an
    :class:`~sonnx.base.errors.ExecutionError` naming it.
    """
    g = model.graph
    unknown = sorted(set(given) - set(g.inputs))
    if unknown:
        raise UsageError(f"not graph inputs of the model: {', '.join(map(str, unknown))}")
    structured = [
        n for n in g.inputs if n not in given and g.tensor(n).initial_value is None and is_structured(g.tensor(n).type)
    ]
    values: dict[str, Any] = dict(random_inputs(model, seed, skip=frozenset(given) | frozenset(structured)))
    rng = np.random.default_rng([seed, 1])  # a stream of its own: the tensors drawn stay those of the seed
    for name in structured:
        values[name] = draw_structured(model, name, g.tensor(name).type, rng, 1)
    drawn = tuple(n for n in g.inputs if n in values)
    values.update(given)
    return Inputs(values, InputSource(seed, drawn, files, tuple(n for n in g.inputs if n in given), named))


def read_inputs(model: Model, file: str | None, npy: Sequence[str], seed: int) -> Inputs:
    """Graph-input values: ``file`` (``.npz``, or ``.json`` in the form of :mod:`.json_file`, keyed by input
    name), then ``NAME=FILE`` items (``.npy``, or ``.json`` holding one value), then random ones with ``seed``."""
    given: dict[str, Any] = {}
    files: list[tuple[str, str]] = []
    if file is not None:
        digest = _sha256(file)
        if _is_json(file):
            given.update(parse_inputs(_read_text(file), file, _types(model)))
        else:
            given.update({k: _as_declared(model, file, k, v) for k, v in _load_npz(file).items()})
        files.append((file, digest))
    for item in npy:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--input {item!r}: expected NAME=FILE.npy or NAME=FILE.json")
        digest = _sha256(path)
        if _is_json(path):
            ttype = model.graph.tensor(name).type if name in model.graph.inputs else None
            given[name] = parse_value(_read_text(path), path, name, ttype)
        else:
            given[name] = _as_declared(model, path, name, _load_array(path))
        files.append((path, digest))
    named = (*([file] if file is not None else []), *npy)
    return complete_inputs(model, given, seed, tuple(files), named)


def load_inputs(model: Model, npz: str | None, npy: Sequence[str], seed: int) -> dict[str, Any]:
    """The values of :func:`read_inputs` alone (for callers that do not report where they came from)."""
    return read_inputs(model, npz, npy, seed).values


def inputs_for(model: Model, given: str | os.PathLike[str] | Mapping[str, Any] | None, seed: int) -> Inputs:
    """Graph-input values from ``given`` (an ``.npz`` or ``.json`` path, or a mapping by input name), the rest
    drawn with ``seed``: what the Python API's ``inputs`` argument means."""
    if given is None or isinstance(given, (str, os.PathLike)):
        return read_inputs(model, None if given is None else os.fspath(given), [], seed)
    if not isinstance(given, Mapping):
        raise UsageError(f"inputs must be a mapping of graph-input name to value or an .npz path, not {given!r}")
    return complete_inputs(model, given, seed)
