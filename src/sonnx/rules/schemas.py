"""Operator schemas at a model's opset: the look-ups the rules share.

A rule that reads an operator's ONNX definition (its arity, attributes,
type constraints, its determinism entry) needs the schema in force at the
opset version the model imports for the operator's domain, not the newest
one. These functions find it, or say in one line why it cannot be had (no
opset import, an unknown domain, a version newer than the installed onnx, a
deprecated operator), so that the rules can make that reason their UNKNOWN.
``ai.onnx`` and the empty string name the same domain throughout.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

import onnx.defs


def normal_domain(domain: str) -> str:
    """``ai.onnx`` and the empty string both name the default domain."""
    return "" if domain == "ai.onnx" else domain


def opset_version(opset_imports: Mapping[str, int], domain: str) -> int | None:
    """The version of ``domain`` the model imports (``domain`` may name the default domain either way)."""
    v = opset_imports.get(normal_domain(domain))
    return None if v is None else int(v)


@lru_cache(maxsize=1)
def _history() -> dict[tuple[str, str], list[int]]:
    """Every since-version by (domain, operator), from all of onnx's schemas (needed without an opset import)."""
    versions: dict[tuple[str, str], list[int]] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        versions.setdefault((s.domain, s.name), []).append(s.since_version)
    return {k: sorted(v) for k, v in versions.items()}


@lru_cache(maxsize=1)
def _newest() -> dict[str, int]:
    """The newest opset version of each domain: onnx's registry of versions by domain, outside which onnx registers
    no schema (read without making every schema a Python object); else the newest since-version of the schemas."""
    version_map = getattr(getattr(onnx.defs, "C", None), "schema_version_map", None)
    if version_map is not None:
        return {domain: int(last) for domain, (_, last) in version_map().items()}
    newest: dict[str, int] = {}
    for (domain, _), since in _history().items():
        newest[domain] = max(newest.get(domain, 0), since[-1])
    return newest


def schema_versions(domain: str, operator: str) -> list[int]:
    """Every since-version ONNX defines for the operator (empty when it does not exist)."""
    return list(_history().get((normal_domain(domain), operator), ()))


@cache
def schema_at(domain: str, operator: str, version: int | None) -> tuple[Any, str]:
    """(schema, "") for the operator at opset ``version`` of its domain, or (None, why it cannot be had)."""
    domain = normal_domain(domain)
    shown = f"{domain or 'ai.onnx'}::{operator}"
    if version is None:
        return None, f"{shown}: the model imports no opset version for domain {domain or 'ai.onnx'!r}"
    newest = _newest().get(domain)
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
