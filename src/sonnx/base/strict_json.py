"""Strict JSON for files a user or a stranger wrote: bounded nesting, no key twice, no NaN or Infinity.

Python's own parser keeps the last of two equal keys and recurses once per
nesting level, so a hostile file could hide a value behind a duplicate or
exhaust the stack. :func:`loads` refuses both before anything is built, and
refuses the non-standard constants ``NaN``, ``Infinity`` and ``-Infinity``.
Used for evidence bundles (:mod:`sonnx.checking.evidence.safe_files`) and for JSON
input files (:mod:`sonnx.execution.inputs`).
"""

from __future__ import annotations

import json
import re
from typing import Any

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text, brackets inside strings left out."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(text: str, max_depth: int | None) -> Any:
    """``text`` parsed as strict JSON; a :class:`ValueError` with one line of reason otherwise.

    ``max_depth`` None: the caller has already measured the nesting with :func:`json_depth`.
    """
    if max_depth is not None and json_depth(text) > max_depth:
        raise ValueError(f"JSON nested deeper than {max_depth} levels")
    return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
