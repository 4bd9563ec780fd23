"""The hand-written table of defined attribute values against every schema version onnx ships.

The table cannot fall behind onnx unseen: every string attribute and every integer attribute naming axes, in every
schema version of the domains sonnx knows, has an entry (a free one says why any value is defined); every entry
names an attribute that the versions it covers have, with a type its kind can read.
"""

from __future__ import annotations

from typing import Any

import onnx
import onnx.defs
import pytest

from sonnx.rules import attribute_domains as ad
from sonnx.rules.determinism_table import KNOWN_DOMAINS

A = onnx.AttributeProto
SCHEMAS = [s for s in onnx.defs.get_all_schemas_with_history() if s.domain in KNOWN_DOMAINS]
NAMES_AXES = ("axis", "axes", "perm")

DEFAULTS_OUTSIDE = {("", "GRU", 1, "direction"): "GRU-1's schema spells its default 'foward' (a typo in onnx)"}
"""Schema defaults that lie outside the set the operator text states, with why (the rule checks given values only)."""


def _wanted(schema: Any, name: str, attr: Any) -> bool:
    if attr.type in (A.STRING, A.STRINGS):
        return True
    return attr.type in (A.INT, A.INTS) and any(k in name for k in NAMES_AXES)


def test_every_string_and_axis_attribute_of_every_schema_version_has_an_entry() -> None:
    missing = [
        f"{s.domain or 'ai.onnx'}::{s.name}-{s.since_version} {n}"
        for s in SCHEMAS
        for n, a in s.attributes.items()
        if _wanted(s, n, a) and not ad.domains_for(s.domain, s.name, s.since_version, n)
    ]
    assert missing == []


def _versions(d: ad.Domain) -> list[Any]:
    return [
        s for s in SCHEMAS
        if s.domain == d.domain and s.name == d.operator and d.first <= s.since_version
        and (d.last is None or s.since_version <= d.last)
    ]


READS = {
    ad.ONE_OF: {A.STRING, A.STRINGS, A.INT, A.INTS},
    ad.AT_LEAST: {A.INT, A.INTS},
    ad.AXIS: {A.INT, A.INTS},
    ad.PERMUTATION: {A.INTS},
    ad.ELEMENT_TYPE: {A.INT, A.STRING},
    ad.MATCHES: {A.STRING},
    ad.FREE: {A.STRING, A.STRINGS},
    ad.UNCHECKED: {A.STRING, A.STRINGS, A.INT, A.INTS},
}


@pytest.mark.parametrize("entry", ad.TABLE, ids=[f"{d.operator}-{d.first}-{d.attribute}" for d in ad.TABLE])
def test_every_entry_names_an_attribute_its_versions_have(entry: ad.Domain) -> None:
    versions = _versions(entry)
    having = [s for s in versions if entry.attribute in s.attributes]
    assert having, f"no schema version in [{entry.first}, {entry.last}] has {entry.attribute}"
    for s in having:
        attr = s.attributes[entry.attribute]
        assert attr.type in READS[entry.kind], (s.since_version, attr.type)
        if entry.kind == ad.ELEMENT_TYPE:
            assert entry.values[0] in {c.type_param_str for c in s.type_constraints}
        if entry.kind == ad.ONE_OF and attr.default_value.type != A.UNDEFINED:
            default = onnx.helper.get_attribute_value(attr.default_value)
            items = default if isinstance(default, list) else [default]
            items = [x.decode() if isinstance(x, bytes) else x for x in items]
            key = (entry.domain, entry.operator, s.since_version, entry.attribute)
            assert all(x in entry.values for x in items) or key in DEFAULTS_OUTSIDE, (s.since_version, items)
    assert entry.source


def test_entries_of_one_attribute_do_not_overlap() -> None:
    seen: dict[tuple[str, str, str, int], ad.Domain] = {}
    for d in ad.TABLE:
        for s in _versions(d):
            key = (d.domain, d.operator, d.attribute, s.since_version)
            assert key not in seen, (d, seen.get(key))
            seen[key] = d


def test_the_recorded_default_exceptions_are_still_there() -> None:
    for (domain, operator, version, attribute), _why in DEFAULTS_OUTSIDE.items():
        schema = onnx.defs.get_schema(operator, version, domain)
        default = onnx.helper.get_attribute_value(schema.attributes[attribute].default_value)
        (entry,) = ad.domains_for(domain, operator, version, attribute)
        assert default.decode() not in entry.values
