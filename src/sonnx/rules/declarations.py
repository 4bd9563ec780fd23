"""Operator declarations: what the user states about custom operators that no ONNX schema defines.

An operator of a domain sonnx does not know (``com.microsoft``, a vendor's
own) has no schema and no entry in the determinism table, so GRAPH-R2,
GRAPH-DETERMINISM and GRAPH-ARITY cannot decide an operation of it (they are
UNKNOWN, spec/graph.rst §9). A declarations file (``--operator-declarations``)
supplies those facts per operator and range of opset versions:

* ``deterministic``: the operator's outputs are a function of its inputs and
  attributes (``true``) or not (``false``); GRAPH-R2 and GRAPH-DETERMINISM
  read it, in both engines, as one more entry of the determinism table
  (:meth:`Declaration.entry`), always or never nondeterministic;
* ``inputs`` and ``outputs``: ``min`` and ``max`` positions (``max`` left out:
  variadic, any number from ``min``); positions from ``min`` on are optional.
  GRAPH-ARITY reads them as the operator's signature (every declared position
  bound; a variadic side: every position written), and an operation that
  writes more positions than ``max`` breaks the declaration, a violation of
  GRAPH-ARITY;
* ``attributes`` (name to AttributeProto type name) and
  ``required_attributes``: GRAPH-ATTRIBUTES reads them as the operator's
  attribute definitions (every attribute declared, of its type; every
  required one given); the declaration states no value set, so any value of
  the type is defined. Without ``attributes`` GRAPH-ATTRIBUTES stays UNKNOWN
  for the operator;
* ``types`` of a side: the element types its tensors may have (ONNX names,
  ``float``, ``int64``...). An input whose element type holds at run time
  (:mod:`.premises`) and is not declared makes the declarations unusable for
  the model: a one-line error, since every verdict resting on them would rest
  on a false statement.

The facts are trusted, not checked against the operator's implementation: a
verdict that rests on them says so (``assuming ...``, :func:`assumption`).
The file is read strictly (TOML or JSON by its suffix, every key known, each
value of its type, no two declarations of one operator for overlapping
versions, no declaration for a domain sonnx knows); a bad entry is a
:class:`~sonnx.base.errors.UsageError` of one line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from onnx import AttributeProto, TensorProto

from ..base.errors import UsageError
from ..base.files import read_option_file
from ..base.strict_json import loads
from .determinism_table import ALWAYS, KNOWN_DOMAINS, NEVER, Entry
from .schemas import normal_domain, opset_version

FLAG = "--operator-declarations"
MAX_BYTES = 1 << 20
"""The largest declarations file read (a file of facts about a handful of operators is a few kilobytes)."""
FORMAT_VERSION = 1
"""The ``version`` a declarations file states (the schema documented in docs/integration.rst)."""

TYPE_NAMES: Mapping[str, int] = {
    name.lower(): int(code)
    for name, code in TensorProto.DataType.items()
    if name != "UNDEFINED"
}
"""Element type names a declaration may use: TensorProto's, in lower case (``float``, ``int64``, ``float16``)."""

_TOP_KEYS = ("version", "operator")
_OP_KEYS = ("domain", "name", "since", "until", "deterministic", "inputs", "outputs", "attributes",
            "required_attributes")
ATTRIBUTE_TYPES: Mapping[str, int] = {
    name.lower(): int(code)
    for name, code in AttributeProto.AttributeType.items()
    if name != "UNDEFINED"
}
"""Attribute type names a declaration may use: AttributeProto's, in lower case (``float``, ``ints``, ``graph``)."""
_SIDE_KEYS = ("min", "max", "types")


@dataclass(frozen=True)
class SideDecl:
    """One side (inputs or outputs) of a declared operator: how many positions, and which element types."""

    minimum: int
    maximum: int | None
    """None: variadic (any number of positions from ``minimum``)."""
    types: frozenset[int] | None
    """Element types allowed at every position of the side; None when not declared."""


@dataclass(frozen=True)
class Declaration:
    """The declared facts of one custom operator over a range of its domain's opset versions."""

    domain: str
    name: str
    since: int
    until: int | None
    deterministic: bool
    inputs: SideDecl
    outputs: SideDecl
    attributes: tuple[tuple[str, int, bool], ...] | None = None
    """(name, AttributeProto type, required) per declared attribute; None when the declaration says nothing of
    them."""

    @property
    def shown(self) -> str:
        versions = f"{self.since}+" if self.until is None else f"{self.since}-{self.until}"
        return f"{self.domain}::{self.name} (opset {versions})"

    def covers(self, domain: str, name: str, version: int) -> bool:
        return (self.domain, self.name) == (domain, name) and self.since <= version and (
            self.until is None or version <= self.until
        )

    def entry(self, source: str) -> Entry:
        """The declaration as a row of the determinism table (GRAPH-R2's trusted base, both engines)."""
        word = "deterministic" if self.deterministic else "nondeterministic"
        return Entry(self.domain, self.name, self.since, self.until, NEVER if self.deterministic else ALWAYS,
                     f"declared {word} in {source}")


@dataclass(frozen=True)
class Declarations:
    """A read declarations file: where it came from, its SHA-256, and its declarations in file order."""

    path: str
    sha256: str
    entries: tuple[Declaration, ...]

    @property
    def source(self) -> str:
        """How a verdict names the file: its name and the start of its digest."""
        return f"{Path(self.path).name} (sha256 {self.sha256[:12]})"

    def find(self, domain: str, name: str, imports: Mapping[str, int]) -> Declaration | None:
        """The declaration of ``domain::name`` at the opset version ``imports`` give its domain, if one covers it.

        Only custom domains are declared; a model that imports no version of the domain has no declaration
        applied (which version is meant is not known).
        """
        d = normal_domain(domain)
        if d in KNOWN_DOMAINS:
            return None
        version = opset_version(imports, d)
        if version is None:
            return None
        for e in self.entries:
            if e.covers(d, name, version):
                return e
        return None


def assumption(decls: Declarations) -> str:
    """The words a verdict resting on ``decls`` carries."""
    return f"operator declarations {decls.source}"


def _fail(path: str, where: str, why: str) -> UsageError:
    return UsageError(f"{FLAG} {path}: {where}: {why}")


def _int(value: Any, path: str, where: str, key: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or value > 1_000_000:
        raise _fail(path, where, f"{key!r} must be an integer from {low} to 1000000, not {value!r}")
    return value


def _keys(obj: Any, allowed: Sequence[str], required: Sequence[str], path: str, where: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise _fail(path, where, f"expected a table of keys, not {type(obj).__name__}")
    unknown = [k for k in obj if k not in allowed]
    if unknown:
        raise _fail(path, where, f"unknown key {unknown[0]!r} (known: {', '.join(allowed)})")
    missing = [k for k in required if k not in obj]
    if missing:
        raise _fail(path, where, f"missing key {missing[0]!r}")
    return obj


def _side(obj: Any, path: str, where: str) -> SideDecl:
    data = _keys(obj, _SIDE_KEYS, ("min",), path, where)
    low = _int(data["min"], path, where, "min", 0)
    high = None if "max" not in data else _int(data["max"], path, where, "max", 0)
    if high is not None and high < low:
        raise _fail(path, where, f"'max' {high} is below 'min' {low}")
    types = data.get("types")
    if types is None:
        return SideDecl(low, high, None)
    if not isinstance(types, list) or not types or not all(isinstance(t, str) for t in types):
        raise _fail(path, where, "'types' must be a non-empty list of element type names")
    bad = [t for t in types if t not in TYPE_NAMES]
    if bad:
        raise _fail(path, where, f"unknown element type {bad[0]!r} (e.g. float, float16, int64, bool)")
    return SideDecl(low, high, frozenset(TYPE_NAMES[t] for t in types))


def _declaration(obj: Any, path: str, k: int) -> Declaration:
    where = f"operator {k + 1}"
    data = _keys(obj, _OP_KEYS, ("domain", "name", "deterministic", "inputs", "outputs"), path, where)
    domain, name = data["domain"], data["name"]
    if not isinstance(domain, str) or not isinstance(name, str) or not name or not name.isprintable():
        raise _fail(path, where, "'domain' and 'name' must be strings, the name not empty")
    where = f"operator {k + 1} ({domain}::{name})"
    if normal_domain(domain) in KNOWN_DOMAINS:
        raise _fail(path, where, f"domain {domain or 'ai.onnx'!r} is one sonnx knows; only custom operators are "
                                 "declared")
    since = _int(data.get("since", 1), path, where, "since", 1)
    until = None if "until" not in data else _int(data["until"], path, where, "until", since)
    if not isinstance(data["deterministic"], bool):
        raise _fail(path, where, "'deterministic' must be true or false")
    return Declaration(domain, name, since, until, data["deterministic"], _side(data["inputs"], path, f"{where} "
                       "inputs"), _side(data["outputs"], path, f"{where} outputs"), _attributes(data, path, where))


def _attributes(data: Mapping[str, Any], path: str, where: str) -> tuple[tuple[str, int, bool], ...] | None:
    attrs, required = data.get("attributes"), data.get("required_attributes", [])
    if attrs is None:
        if "required_attributes" in data:
            raise _fail(path, where, "'required_attributes' needs 'attributes'")
        return None
    if not isinstance(attrs, Mapping) or not all(isinstance(k, str) and k for k in attrs):
        raise _fail(path, where, "'attributes' must map attribute names to type names")
    bad = [f"{k} = {v!r}" for k, v in attrs.items() if not isinstance(v, str) or v not in ATTRIBUTE_TYPES]
    if bad:
        raise _fail(path, where, f"attribute {bad[0]}: unknown type (e.g. float, int, string, ints, tensor, graph)")
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise _fail(path, where, "'required_attributes' must be a list of attribute names")
    undeclared = [r for r in required if r not in attrs]
    if undeclared:
        raise _fail(path, where, f"required attribute {undeclared[0]!r} is not in 'attributes'")
    return tuple((k, ATTRIBUTE_TYPES[v], k in required) for k, v in attrs.items())


def _toml(text: str) -> Any:
    """``text`` read as TOML (the parser is imported here: only a check given a declarations file reads one)."""
    import tomllib

    return tomllib.loads(text)


def parse(raw: bytes, path: str) -> Declarations:
    """The declarations in ``raw`` (the bytes of file ``path``: TOML, or JSON when its name ends in ``.json``)."""
    try:
        text = raw.decode("utf-8")
        data = loads(text, 8) if path.endswith(".json") else _toml(text)
    except (UnicodeDecodeError, ValueError) as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise UsageError(f"{FLAG} {path}: not valid {'JSON' if path.endswith('.json') else 'TOML'}: "
                         f"{' '.join(str(exc).split())}") from None
    top = _keys(data, _TOP_KEYS, _TOP_KEYS, path, "the file")
    if top["version"] != FORMAT_VERSION or isinstance(top["version"], bool):
        raise _fail(path, "the file", f"'version' must be {FORMAT_VERSION}, not {top['version']!r}")
    ops = top["operator"]
    if not isinstance(ops, list) or not ops:
        raise _fail(path, "the file", "'operator' must be a non-empty list of operator tables")
    entries: list[Declaration] = []
    for k, obj in enumerate(ops):
        e = _declaration(obj, path, k)
        for other in entries:
            if (other.domain, other.name) == (e.domain, e.name) and not (
                (e.until is not None and e.until < other.since) or (other.until is not None and other.until < e.since)
            ):
                raise _fail(path, f"operator {k + 1}", f"{e.shown} overlaps the versions of {other.shown}")
        entries.append(e)
    import hashlib  # here: a check without declarations does not load OpenSSL's library at start-up

    return Declarations(path, hashlib.sha256(raw).hexdigest(), tuple(entries))


def read_declarations(path: str) -> Declarations:
    """The declarations file at ``path``, read and checked (a UsageError of one line when it cannot be used)."""
    return parse(read_option_file(path, FLAG, MAX_BYTES), path)
