"""The values of check options read from text: ``--input-range`` and what an evidence bundle records.

:class:`~sonnx.checking.options.CheckOptions` is made from the command line, from the Python API and from a
bundle's manifest; this module reads the parts of those that are not plain values: an input range written
``x=-1..1``, and the groups of keys a manifest records only when their option was used. A bundle is read as
hostile input, so every recorded value is checked as the command line checks it (a UsageError otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import product
from typing import Any

from ..base.errors import UsageError
from ..rules.range_syntax import RangeSyntaxError, parse_range
from ..rules.shapes_terms import DimRange, check_range

RECORDED_KEYS = (
    "profile", "operators", "engine", "structure_only", "seed", "orders", "inputs", "cross_check", "tolerance",
    "required_metadata",
)
"""The keys of the ``options`` object of an evidence bundle's manifest, in the order it writes them."""
OPTIONAL_RECORDED_KEYS = (
    ("select", "ignore"), ("waivers", "waivers_date"), ("operator_declarations",), ("dims",), ("input_ranges",),
)
"""Groups of keys written after :data:`RECORDED_KEYS` only when that option is used, in this order (a bundle
written before they existed has none, and reads as a check without selection, waivers, declarations, dims or
declared input ranges)."""

InputRange = tuple[str, int | float, int | float]


def parse_input_range(text: str) -> InputRange:
    """``--input-range <input>=<lo>..<hi>`` as ``(input, lo, hi)``; a malformed value is a UsageError."""
    name, sep, rest = text.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"--input-range {text!r}: expected <input>=<lo>..<hi>, such as x=-1..1")
    try:
        lo, hi = parse_range(rest)
    except RangeSyntaxError as exc:
        raise UsageError(f"--input-range {text!r}: {exc}") from None
    return name.strip(), lo, hi


def check_input_ranges(ranges: tuple[InputRange, ...]) -> None:
    names = set()
    for item in ranges:
        ok = isinstance(item, tuple) and len(item) == 3 and isinstance(item[0], str) and bool(item[0])
        nums = ok and all(
            not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) for v in item[1:]
        )
        if not nums or item[1] > item[2]:
            raise UsageError(f"--input-range {item!r}: expected an input name and two finite bounds, lo <= hi")
        if item[0] in names:
            raise UsageError(f"--input-range: input {item[0]!r} is given two ranges")
        names.add(item[0])


def strings_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, list) and all(isinstance(x, str) for x in value))


def _recorded_dims(data: Any) -> tuple[DimRange, ...]:
    """The recorded ``dims`` (absent: none), each a ``[name, least, greatest]`` list bounded as ``--dims``."""
    if data is None:
        return ()
    if not isinstance(data, list) or not data or not all(isinstance(d, list) and len(d) == 3 for d in data):
        raise UsageError("the recorded dims must be a non-empty list of [name, least, greatest] lists")
    return tuple(check_range(*d) for d in data)


def recorded_later(data: Mapping[str, Any], waivers: str | None, declarations: str | None) -> dict[str, Any]:
    """The recorded selection, waivers and declarations (:data:`OPTIONAL_RECORDED_KEYS`) as keyword values."""
    later = tuple(data)[len(RECORDED_KEYS):]
    allowed = {
        tuple(k for group, used in zip(OPTIONAL_RECORDED_KEYS, mask, strict=True) if used for k in group)
        for mask in product((False, True), repeat=len(OPTIONAL_RECORDED_KEYS))
    }
    if later not in allowed:
        raise UsageError(f"the recorded options have unexpected keys after {RECORDED_KEYS[-1]!r}: {', '.join(later)}")
    out: dict[str, Any] = {}
    if "select" in data:
        select, ignore = data["select"], data["ignore"]
        if not strings_or_none(select) or not strings_or_none(ignore) or ignore is None:
            raise UsageError("the recorded select and ignore must be lists of strings")
        out |= {"select": None if select is None else tuple(select), "ignore": tuple(ignore)}
    if (data.get("waivers") is None) != (waivers is None) or ("waivers" in data and not isinstance(
            data["waivers_date"], str)):
        raise UsageError("the recorded waivers file and the bundle's waivers folder do not match")
    if waivers is not None:
        out |= {"waivers": waivers, "waivers_date": data["waivers_date"]}
    if ("operator_declarations" in data) != (declarations is not None) or (
        declarations is not None and not isinstance(data["operator_declarations"], str)
    ):
        raise UsageError("the recorded operator declarations file and the bundle's copy of it do not match")
    if declarations is not None:
        out["operator_declarations"] = declarations
    if "dims" in data:
        out["dims"] = _recorded_dims(data["dims"])
    if "input_ranges" in data:
        out["input_ranges"] = _recorded_ranges(data["input_ranges"])
    return out


def _recorded_ranges(ranges: Any) -> tuple[InputRange, ...]:
    """The recorded ``input_ranges``, each an ``[input, lo, hi]`` list checked as ``--input-range`` is."""
    if not isinstance(ranges, list) or not all(isinstance(r, list) and len(r) == 3 for r in ranges):
        raise UsageError("the recorded input ranges must be a list of [input, lo, hi] lists")
    out = tuple((r[0], r[1], r[2]) for r in ranges)
    check_input_ranges(out)
    return out
