"""The partition model: subgraphs assigned to devices, and its JSON form.

A *partition* of a model's main graph is a list of *subgraphs*. Each one
carries the six fields of seed 003 (the cached ``ComputeCapability`` of an
execution provider):

* ``id``: a name unique within the partition;
* ``inputs``: the tensors the subgraph reads from outside (graph inputs,
  initializers that are graph inputs, tensors produced by other subgraphs);
* ``outputs``: the tensors it computes that are used outside it (by another
  subgraph or as graph outputs);
* ``nodes``: its operations, each named by its first output (the first
  non-empty entry of its output list);
* ``constant_initializers``: the constant initializers it reads (initializers
  that are not graph inputs, so that no caller can override them);
* ``device``: the execution provider (or device) that runs it.

JSON schema (``docs/partition.rst`` has the full description): either a bare
list of subgraph objects, or an object
``{"format": "sonnx-partition", "version": 1, "model": str, "subgraphs": [...]}``.
A subgraph object has the keys above; ``constant_initializers`` (also
accepted in protobuf's JSON spelling ``constantInitializers``) and
``device`` may be omitted. Any other key is refused: a misspelt field must
not be dropped in silence.

Reading checks the *form* only (types, required keys); whether the subgraphs
are a correct partition of a model is :mod:`sonnx.partition.verify`'s job.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..base.errors import InputError
from ..base.files import read_input_file, write_atomically

FORMAT = "sonnx-partition"
VERSION = 1
FIELDS = ("id", "inputs", "outputs", "nodes", "constant_initializers", "device")
_ALIASES = {"constantInitializers": "constant_initializers"}


class PartitionFormatError(InputError):
    """The partition file is missing, not JSON, or does not follow the partition schema (exit 2)."""


@dataclass(frozen=True)
class Subgraph:
    """One subgraph of a partition: the fields of seed 003, lists kept in the order given."""

    id: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    nodes: tuple[str, ...]
    constant_initializers: tuple[str, ...] = ()
    device: str = ""

    def to_json(self) -> dict[str, Any]:
        """The subgraph as a JSON-ready dict with the schema's key order."""
        return {
            "id": self.id,
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "nodes": list(self.nodes),
            "constant_initializers": list(self.constant_initializers),
            "device": self.device,
        }

    @property
    def boundary_inputs(self) -> tuple[str, ...]:
        """Everything the subgraph reads from outside: ``inputs`` then ``constant_initializers``."""
        return self.inputs + self.constant_initializers


@dataclass(frozen=True)
class Partition:
    """A list of subgraphs, and the model file they were made for (informative only)."""

    subgraphs: tuple[Subgraph, ...]
    model: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "model": self.model,
            "subgraphs": [s.to_json() for s in self.subgraphs],
        }

    def dumps(self) -> str:
        """The partition as indented JSON text with a final newline (stable: same partition, same bytes)."""
        return json.dumps(self.to_json(), indent=2) + "\n"


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PartitionFormatError(f"{where}: expected a list of strings")
    return tuple(value)


def subgraph_from_json(obj: Any, where: str) -> Subgraph:
    """One subgraph object, checked for form; ``where`` locates it in messages."""
    if not isinstance(obj, dict):
        raise PartitionFormatError(f"{where}: expected an object, got {type(obj).__name__}")
    fields: dict[str, Any] = {}
    for key, value in obj.items():
        name = _ALIASES.get(key, key)
        if name not in FIELDS:
            raise PartitionFormatError(f"{where}: unknown field {key!r} (fields: {', '.join(FIELDS)})")
        if name in fields:
            raise PartitionFormatError(f"{where}: field {name!r} given twice")
        fields[name] = value
    for required in ("id", "inputs", "outputs", "nodes"):
        if required not in fields:
            raise PartitionFormatError(f"{where}: missing field {required!r}")
    if not isinstance(fields["id"], str) or not fields["id"]:
        raise PartitionFormatError(f"{where}: 'id' must be a non-empty string")
    device = fields.get("device", "")
    if not isinstance(device, str):
        raise PartitionFormatError(f"{where}: 'device' must be a string")
    where = f"{where} ({fields['id']!r})"
    return Subgraph(
        id=fields["id"],
        inputs=_names(fields["inputs"], f"{where}.inputs"),
        outputs=_names(fields["outputs"], f"{where}.outputs"),
        nodes=_names(fields["nodes"], f"{where}.nodes"),
        constant_initializers=_names(fields.get("constant_initializers", []), f"{where}.constant_initializers"),
        device=device,
    )


def partition_from_json(data: Any) -> Partition:
    """A partition from parsed JSON: a bare list of subgraphs, or the wrapped form with ``format``."""
    model = ""
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"format", "version", "model", "subgraphs"})
        if unknown:
            raise PartitionFormatError(f"unknown top-level field(s): {', '.join(map(repr, unknown))}")
        if data.get("format") != FORMAT:
            raise PartitionFormatError(f"top-level 'format' must be {FORMAT!r}")
        version = data.get("version")
        if type(version) is not int or version != VERSION:  # true == 1 in Python; not a version number
            raise PartitionFormatError(f"unsupported version {data.get('version')!r} (this tool reads {VERSION})")
        model = data.get("model", "")
        if not isinstance(model, str):
            raise PartitionFormatError("top-level 'model' must be a string")
        items = data.get("subgraphs")
    else:
        items = data
    if not isinstance(items, list):
        raise PartitionFormatError("expected a list of subgraph objects (or an object with 'subgraphs')")
    return Partition(tuple(subgraph_from_json(o, f"subgraph {k}") for k, o in enumerate(items)), model)


def load_partition(path: str) -> Partition:
    """Read and form-check a partition JSON file; every failure is a one-line :class:`PartitionFormatError`."""
    try:
        text = read_input_file(path).decode("utf-8")
    except InputError as exc:
        raise PartitionFormatError(exc.one_line()) from None
    except UnicodeDecodeError as exc:
        raise PartitionFormatError(f"{path}: cannot read ({exc})") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # ValueError: malformed JSON, or an integer of too many digits
        raise PartitionFormatError(f"{path}: not JSON ({' '.join(str(exc).split())[:200]})") from None
    try:
        return partition_from_json(data)
    except PartitionFormatError as exc:
        raise PartitionFormatError(f"{path}: {exc}") from None


def save_partition(partition: Partition, path: str) -> None:
    """Write the partition as JSON, atomically (:func:`sonnx.base.files.write_atomically`)."""
    data = partition.dumps().encode("utf-8")
    write_atomically(path, lambda fh: fh.write(data))


def subgraphs_by_id(subgraphs: Sequence[Subgraph]) -> dict[str, list[Subgraph]]:
    """Subgraphs grouped by id (a valid partition has one per id)."""
    out: dict[str, list[Subgraph]] = {}
    for s in subgraphs:
        out.setdefault(s.id, []).append(s)
    return out
