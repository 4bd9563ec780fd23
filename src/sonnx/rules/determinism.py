"""Which operators are deterministic: the table behind rule GRAPH-R2, kept as data.

SONNX restriction R2 (informal specification V2, final restriction list): a
graph shall only contain deterministic operators, i.e. operators whose outputs
are a function of their inputs and attributes.

How the table is read, for an operation of domain ``d`` and operator ``o``:

* ``d`` must be one of :data:`KNOWN_DOMAINS` (``ai.onnx`` is the default
  domain); for any other domain sonnx does not know what the operator does, so
  its determinism is unknown;
* the operator must exist in the ONNX operator schemas at the model's opset
  version for ``d``; otherwise its determinism is unknown;
* the entry of :data:`TABLE` covering (``d``, ``o``, schema since-version)
  decides: ``ALWAYS`` nondeterministic, ``NEVER`` deterministic (a reviewed
  case), or a named condition on the operation that the rule evaluates;
* an operator without an entry is deterministic: every other operator of the
  known domains was reviewed against its ONNX definition, which gives its
  outputs as a function of its inputs and attributes. Where the definition
  leaves a result undefined only for inputs outside a stated precondition
  (duplicate indices in ``ScatterND`` or ``ScatterElements`` with no
  reduction, reductions over an empty set, out-of-range casts), that is a
  domain restriction of the operator, not a source of run-to-run variation.

The control-flow operators (``If``, ``Loop``, ``Scan``, ``SequenceMap``) are
deterministic as operators: their bodies are graphs of the model and R2 checks
every operation in them.

ONNX's own ``OpSchema.node_determinism`` flag is *not* used to decide; the
test-suite compares it with this table and :data:`ONNX_FLAG_DIFFERENCES`
lists, with a reason, every operator on which the two disagree.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any, Dict, List, Mapping, NamedTuple, Tuple

import onnx.defs

KNOWN_DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview.training")
"""Domains whose operators sonnx knows (the ONNX operator sets it ships the schemas of)."""

ALWAYS = "always"
NEVER = "never"
IS_TEST_UNSET = "is_test absent or 0"
TRAINING_MODE_NOT_FALSE = "training_mode input given and not provably false"
TOPK_UNSORTED = "sorted attribute is 0"

CONDITIONS = (IS_TEST_UNSET, TRAINING_MODE_NOT_FALSE, TOPK_UNSORTED)
"""Conditions under which an operation of a conditional entry is nondeterministic."""


class Entry(NamedTuple):
    """One table row: which schema versions of an operator it covers, and when they are nondeterministic."""

    domain: str
    operator: str
    first: int
    """First schema since-version covered."""
    last: int | None
    """Last schema since-version covered; None for every later one."""
    condition: str
    """``ALWAYS``, ``NEVER`` or one of :data:`CONDITIONS`."""
    reason: str


_RANDOM = (
    "draws pseudo-random values; ONNX specifies no generator, so not even the seed attribute makes the "
    "values reproducible from one runtime to another"
)

TABLE: Tuple[Entry, ...] = (
    Entry("", "RandomNormal", 1, None, ALWAYS, _RANDOM),
    Entry("", "RandomUniform", 1, None, ALWAYS, _RANDOM),
    Entry("", "RandomNormalLike", 1, None, ALWAYS, _RANDOM),
    Entry("", "RandomUniformLike", 1, None, ALWAYS, _RANDOM),
    Entry("", "Multinomial", 1, None, ALWAYS, _RANDOM),
    Entry("", "Bernoulli", 1, None, ALWAYS, _RANDOM),
    Entry(
        "",
        "Dropout",
        1,
        6,
        IS_TEST_UNSET,
        "versions 1 and 6 drop random elements unless the is_test attribute is set to a non-zero value",
    ),
    Entry(
        "",
        "Dropout",
        7,
        11,
        NEVER,
        "versions 7 and 10 carry no mode in the model; a model denotes its inference semantics, where "
        "Dropout copies its input and its mask is all true",
    ),
    Entry(
        "",
        "Dropout",
        12,
        None,
        TRAINING_MODE_NOT_FALSE,
        "from version 12 the optional third input training_mode selects random dropping; the operation is "
        "deterministic only when that input is omitted or provably false (an initializer that is not a graph "
        "input, or a Constant, holding false)",
    ),
    Entry(
        "",
        "TopK",
        11,
        None,
        TOPK_UNSORTED,
        "with sorted = 0 the order of the returned values and indices is left to the implementation",
    ),
)

ONNX_FLAG_DIFFERENCES: Mapping[Tuple[str, str], str] = {
    ("", "If"): "onnx flags control flow as nondeterministic because of the body; sonnx checks the branches "
    "as graphs of the model, so the operator itself is deterministic",
    ("", "Loop"): "as for If: the body is a graph of the model and is checked operation by operation",
    ("", "Scan"): "as for If: the body is a graph of the model and is checked operation by operation",
    ("", "SequenceMap"): "as for If: the body is a graph of the model and is checked operation by operation; "
    "the order in which samples are processed does not change the outputs, which keep the input order",
    ("", "AffineGrid"): "onnx flags it nondeterministic, but its definition gives the grid as a closed-form "
    "function of theta, size and align_corners",
    ("", "Dropout"): "onnx flags every version nondeterministic; sonnx decides per operation (is_test, "
    "training_mode) and treats versions 7 and 10 by their inference semantics",
    ("", "TopK"): "onnx flags it deterministic; with sorted = 0 (versions 11 and later) the order of the "
    "results is unspecified, so sonnx decides per operation",
    ("", "LinearAttention"): "onnx leaves the flag unknown; the definition gives the outputs by a sequential "
    "recurrence over the inputs, a function of them",
    ("", "CausalConvWithState"): "onnx leaves the flag unknown; the definition is a causal depthwise "
    "convolution, a function of its inputs",
    ("", "DepthToSpace"): "onnx leaves the flag unknown on version 28; the operator is a fixed permutation "
    "of its input, as in every earlier version",
    ("", "SpaceToDepth"): "onnx leaves the flag unknown on version 28; the operator is a fixed permutation "
    "of its input, as in every earlier version",
    ("ai.onnx.preview", "FlexAttention"): "domain ai.onnx.preview is not one sonnx knows, so sonnx answers "
    "unknown where onnx says deterministic",
}
"""Every operator on which :func:`schema_class` and onnx's ``node_determinism`` flag disagree, with why."""


def entry_for(domain: str, operator: str, since: int) -> Entry | None:
    """The table entry covering schema version ``since`` of (``domain``, ``operator``), if any."""
    for e in TABLE:
        if e.domain == domain and e.operator == operator and e.first <= since and (e.last is None or since <= e.last):
            return e
    return None


def schema_class(domain: str, operator: str, since: int) -> str:
    """How the table classifies one schema version: deterministic, nondeterministic, conditional or unknown."""
    if domain not in KNOWN_DOMAINS:
        return "unknown"
    e = entry_for(domain, operator, since)
    if e is None or e.condition == NEVER:
        return "deterministic"
    return "nondeterministic" if e.condition == ALWAYS else "conditional"


# -- operator schemas at the model's opset ----------------------------------------------------


def normal_domain(domain: str) -> str:
    """``ai.onnx`` and the empty string both name the default domain."""
    return "" if domain == "ai.onnx" else domain


def opset_version(opset_imports: Mapping[str, int], domain: str) -> int | None:
    """The version of ``domain`` the model imports (the default domain under either of its names)."""
    domain = normal_domain(domain)
    if domain == "":
        v = opset_imports.get("", opset_imports.get("ai.onnx"))
    else:
        v = opset_imports.get(domain)
    return None if v is None else int(v)


@lru_cache(maxsize=1)
def _history() -> Tuple[Dict[Tuple[str, str], List[int]], Dict[str, int]]:
    versions: Dict[Tuple[str, str], List[int]] = {}
    newest: Dict[str, int] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        versions.setdefault((s.domain, s.name), []).append(s.since_version)
        newest[s.domain] = max(newest.get(s.domain, 0), s.since_version)
    version_map = getattr(getattr(onnx.defs, "C", None), "schema_version_map", None)
    if version_map is not None:
        for domain, (_, last) in version_map().items():
            newest[domain] = max(newest.get(domain, 0), int(last))
    return {k: sorted(v) for k, v in versions.items()}, newest


def schema_versions(domain: str, operator: str) -> List[int]:
    """Every since-version ONNX defines for the operator (empty when it does not exist)."""
    return list(_history()[0].get((normal_domain(domain), operator), ()))


@cache
def schema_at(domain: str, operator: str, version: int | None) -> Tuple[Any, str]:
    """(schema, "") for the operator at opset ``version`` of its domain, or (None, why it cannot be had)."""
    domain = normal_domain(domain)
    shown = f"{domain or 'ai.onnx'}::{operator}"
    if version is None:
        return None, f"{shown}: the model imports no opset version for domain {domain or 'ai.onnx'!r}"
    newest = _history()[1].get(domain)
    if newest is None:
        return None, f"{shown}: onnx defines no operator schema for domain {domain!r}"
    if version > newest:
        return None, f"{shown}: opset {version} is newer than the schemas sonnx knows (up to {newest})"
    try:
        schema = onnx.defs.get_schema(operator, max_inclusive_version=version, domain=domain)
    except onnx.defs.SchemaError:
        return None, f"{shown}: no such operator at opset {version}"
    if schema.deprecated:
        return None, f"{shown}: deprecated at opset {version}"
    return schema, ""
