"""Waivers (``--waivers FILE``): findings a project accepts, each with a justification, an author and a date.

The file is TOML, read strictly (every problem is a one-line :class:`WaiverError`, exit 2)::

    schema = "sonnx-waivers/1"
    shared = false                  # optional: true lets the file hold entries for other models

    [[waiver]]
    id = "W-001"                    # unique in the file; names the entry in reports and errors
    rule = "GRAPH-C2"
    model_sha256 = "<SHA-256 of the model file>"
    scope = "main_graph"            # the graph, as witnesses name it (with operation or tensor)
    tensor = "spare"                # or operation = "node_name" (or its witness label "Relu:node_name"),
                                    # or whole = true: every offender, or an UNKNOWN verdict
    justification = "why the finding is acceptable"
    author = "who accepts it"
    date = 2026-11-20
    expires = 2027-05-20            # optional

**Matching** (spec/graph.rst, section 9.1, WAIVED). The offenders of a
witness are the records of its lists whose entries name a ``scope`` (for a
witness about one place, the witness itself). An entry covers an offender
when its scope is the offender's and it names the offender's own operation
(``operation``) or one of its own tensors (``tensor``, ``input``, ``output``,
``initializer``). A VIOLATED verdict is WAIVED only when every offender is
covered and the witness lists every offender (its ``count`` is not larger);
otherwise it stays VIOLATED and its ``details["waivers"]`` names the entries
that matched and the offenders that remain. An UNKNOWN verdict, or a witness
that names no offender by scope, is waived only by an entry with
``whole = true``.

**Errors** (each names the entry): an entry for another model when the file
is not ``shared`` (a shared file's entries for other models are ignored); an
entry dated after the check's date or expired on it (``expires`` earlier than
the date); an entry that matches nothing (its rule PROVED, absent from the
check, or none of the offenders). An entry for a rule the selection left out
(NOT CHECKED) is not judged, and the report says so. The check's date is
recorded (:attr:`~sonnx.checking.options.CheckOptions.waivers_date`) so that
``sonnx evidence verify`` re-derives the same statuses.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import UsageError
from ..base.files import read_option_file
from ..base.verdict import Status, Verdict, Witness
from .verdict_text import titles

SCHEMA = "sonnx-waivers/1"
MAX_BYTES = 4 * 1024 * 1024
"""The largest waivers file read (a project's list of accepted findings is small)."""
TENSOR_KEYS = ("tensor", "input", "output", "initializer")
"""The keys of a witness record that name one of the offender's own tensors."""
_REQUIRED = ("id", "rule", "model_sha256", "justification", "author", "date")
_KEYS = (*_REQUIRED, "scope", "operation", "tensor", "whole", "expires")
_DIGEST = re.compile(r"[0-9a-f]{64}")


class WaiverError(UsageError):
    """The waivers file cannot be used: malformed, or an entry stale, expired or for another model (exit 2)."""


@dataclass(frozen=True)
class Waiver:
    """One entry of the file. ``kind`` is ``operation``, ``tensor`` or ``whole``; ``name`` is empty for ``whole``."""

    id: str
    rule: str
    model_sha256: str
    kind: str
    scope: str
    name: str
    justification: str
    author: str
    date: dt.date
    expires: dt.date | None

    def target(self) -> str:
        """What the entry covers, in words."""
        return "the whole finding" if self.kind == "whole" else f"{self.kind} {self.name!r} in {self.scope}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rule": self.rule,
            "covers": self.target(),
            "justification": self.justification,
            "author": self.author,
            "date": self.date.isoformat(),
            "expires": None if self.expires is None else self.expires.isoformat(),
        }


@dataclass(frozen=True)
class WaiverFile:
    """The entries of a waivers file, its SHA-256 and whether it covers several models."""

    path: str
    sha256: str
    shared: bool
    entries: tuple[Waiver, ...]


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise WaiverError(f"{where}: {key!r} must be a non-empty string without surrounding blanks")
    return value


def _date(value: Any, key: str, where: str) -> dt.date:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value) if re.fullmatch(r"\d{4}-\d\d-\d\d", value) else _bad_date(key, where)
        except ValueError:
            pass
    return _bad_date(key, where)


def _bad_date(key: str, where: str) -> dt.date:
    raise WaiverError(f"{where}: {key!r} must be a date YYYY-MM-DD")


def parse_date(value: str) -> dt.date:
    """A check date ``YYYY-MM-DD`` (a UsageError otherwise)."""
    return _date(value, "--waivers-date", "the check's date")


def _entry(raw: Any, k: int, known_rules: set[str]) -> Waiver:
    where = f"waiver #{k + 1}"
    if not isinstance(raw, dict):
        raise WaiverError(f"{where}: expected a table [[waiver]]")
    if isinstance(raw.get("id"), str) and raw["id"].strip():
        where = f"waiver {raw['id']!r}"
    unknown = sorted(set(raw) - set(_KEYS))
    if unknown:
        raise WaiverError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(_KEYS)})")
    missing = [key for key in _REQUIRED if key not in raw]
    if missing:
        raise WaiverError(f"{where}: missing {missing[0]!r}")
    ident, rule = _text(raw, "id", where), _text(raw, "rule", where)
    if rule not in known_rules:
        raise WaiverError(f"{where}: unknown rule {rule!r}")
    digest = raw["model_sha256"]
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise WaiverError(f"{where}: 'model_sha256' must be 64 lowercase hexadecimal digits")
    targets = [key for key in ("operation", "tensor", "whole") if key in raw]
    if len(targets) != 1:
        raise WaiverError(f"{where}: give exactly one of 'operation', 'tensor' or 'whole = true'")
    kind = targets[0]
    if kind == "whole":
        if raw["whole"] is not True:
            raise WaiverError(f"{where}: 'whole' can only be true")
        if "scope" in raw:
            raise WaiverError(f"{where}: 'scope' goes with 'operation' or 'tensor', not with 'whole'")
        scope = name = ""
    else:
        if "scope" not in raw:
            raise WaiverError(f"{where}: {kind!r} needs the 'scope' (the graph) it is in")
        scope, name = _text(raw, "scope", where), _text(raw, kind, where)
    date = _date(raw["date"], "date", where)
    expires = None if "expires" not in raw else _date(raw["expires"], "expires", where)
    if expires is not None and expires < date:
        raise WaiverError(f"{where}: expires ({expires}) before its date ({date})")
    return Waiver(
        ident, rule, digest, kind, scope, name, _text(raw, "justification", where), _text(raw, "author", where),
        date, expires,
    )


def read_waivers(path: str) -> WaiverFile:
    """The waivers file at ``path``, checked entry by entry (see the module text)."""
    label = f"--waivers {path}"
    data = read_option_file(path, "--waivers", MAX_BYTES, WaiverError)
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise WaiverError(f"{label}: not a TOML file ({' '.join(str(exc).split())})") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise WaiverError(f"{label}: nested too deeply to be a waivers file") from None
    if doc.get("schema") != SCHEMA:
        raise WaiverError(f"{label}: expected schema = {SCHEMA!r} at the top")
    extra = sorted(set(doc) - {"schema", "shared", "waiver"})
    if extra:
        raise WaiverError(f"{label}: unknown key {extra[0]!r} (known: schema, shared, waiver)")
    shared = doc.get("shared", False)
    if not isinstance(shared, bool):
        raise WaiverError(f"{label}: 'shared' must be true or false")
    raw = doc.get("waiver", [])
    if not isinstance(raw, list):
        raise WaiverError(f"{label}: 'waiver' must be an array of tables [[waiver]]")
    known = set(titles())
    entries: list[Waiver] = []
    for k, item in enumerate(raw):
        try:
            entry = _entry(item, k, known)
        except WaiverError as exc:
            raise WaiverError(f"{label}: {exc}") from None
        if any(e.id == entry.id for e in entries):
            raise WaiverError(f"{label}: waiver {entry.id!r}: the id is used twice")
        entries.append(entry)
    return WaiverFile(path, hashlib.sha256(data).hexdigest(), shared, tuple(entries))


def check_dates(waivers: WaiverFile, date: dt.date) -> None:
    """Refuse an entry dated after ``date`` or expired on it (one line naming the entry)."""
    for e in waivers.entries:
        if e.date > date:
            raise WaiverError(f"waiver {e.id!r} ({e.rule}): dated {e.date}, after the check's date {date}")
        if e.expires is not None and e.expires < date:
            raise WaiverError(f"waiver {e.id!r} ({e.rule}): expired on {e.expires} (the check's date is {date})")


@dataclass(frozen=True)
class Offender:
    """One offender of a witness: how it is shown, and the (kind, scope, name) triples it may be waived by."""

    shown: str
    names: frozenset[tuple[str, str, str]]


def _offender(record: Mapping[str, Any]) -> Offender:
    scope = record["scope"]
    names: set[tuple[str, str, str]] = set()
    label = record.get("operation")
    if isinstance(label, str):
        names.add(("operation", scope, label))
    for key in TENSOR_KEYS:
        if isinstance(record.get(key), str):
            names.add(("tensor", scope, record[key]))
    shown = ", ".join(f"{kind} {name!r}" for kind, _s, name in sorted(names)) or "an unnamed offender"
    return Offender(f"{shown} in {scope}", frozenset(names))


def offenders(witness: Witness) -> tuple[list[Offender], int]:
    """The offenders a witness lists, and how many more it counts without listing (see the module text)."""
    data = witness.data
    records: list[Mapping[str, Any]] = []
    for value in data.values():
        if isinstance(value, list) and value and all(
            isinstance(x, Mapping) and isinstance(x.get("scope"), str) for x in value
        ):
            records.extend(value)
    if not records and isinstance(data.get("scope"), str):
        records = [data]
    count = data.get("count")
    unlisted = count - len(records) if isinstance(count, int) and not isinstance(count, bool) else 0
    return [_offender(r) for r in records], max(0, unlisted)


def _covers(entry: Waiver, name: tuple[str, str, str]) -> bool:
    kind, scope, value = name
    if entry.kind != kind or entry.scope != scope:
        return False
    if kind == "operation" and ":" not in entry.name:
        return value.endswith(":" + entry.name)
    return value == entry.name


def _judge(v: Verdict, entries: Sequence[Waiver]) -> tuple[Verdict, list[Waiver]]:
    """``v`` waived, partly covered, or unchanged, and the entries that matched it."""
    whole = [e for e in entries if e.kind == "whole"]
    if v.status is Status.UNKNOWN or v.witness is None:
        return (Verdict.waived(v, [e.to_json() for e in whole]), whole) if whole else (v, [])
    found, unlisted = offenders(v.witness)
    used = [e for e in entries if e.kind != "whole" and any(_covers(e, n) for o in found for n in o.names)]
    if whole:
        used = whole + used
        return Verdict.waived(v, [e.to_json() for e in used]), used
    remaining = [o.shown for o in found if not any(_covers(e, n) for e in used for n in o.names)]
    if found and not remaining and unlisted == 0:
        return Verdict.waived(v, [e.to_json() for e in used]), used
    if not used:
        return v, []
    partly = {"covered_by": [e.id for e in used], "remaining": remaining, "not_listed": unlisted}
    kept = Verdict(v.rule_id, v.status, v.severity, v.witness, v.reason, v.engine, {**v.details, "waivers": partly})
    return kept, used


def apply_waivers(
    verdicts: Sequence[Verdict], waivers: WaiverFile, model_sha256: str, model: str, date: dt.date
) -> tuple[tuple[Verdict, ...], dict[str, Any]]:
    """The verdicts with the file's entries for this model applied, and the report's record of the waivers.

    Raises :class:`WaiverError` for the first entry that is for another model (file not shared), dated after
    ``date``, expired, or that matches nothing (see the module text).
    """
    check_dates(waivers, date)
    mine: list[Waiver] = []
    for e in waivers.entries:
        if e.model_sha256 == model_sha256:
            mine.append(e)
        elif not waivers.shared:
            raise WaiverError(
                f"waiver {e.id!r} ({e.rule}) is for the model with SHA-256 {e.model_sha256}, not {model} (SHA-256 "
                f"{model_sha256}); a file whose entries cover several models says shared = true"
            )
    out: list[Verdict] = []
    results: dict[str, str] = {}
    for v in verdicts:
        entries = [e for e in mine if e.rule == v.rule_id]
        if v.status is Status.NOT_CHECKED:
            results.update({e.id: "not judged: the rule was not checked" for e in entries})
        elif entries and v.status in (Status.VIOLATED, Status.UNKNOWN):
            judged, used = _judge(v, entries)
            kind = "waived" if judged.status is Status.WAIVED else "covers part of the finding"
            results.update({e.id: kind for e in used})
            v = judged
        out.append(v)
    for e in mine:
        if e.id not in results:
            given = next((v.status.value for v in verdicts if v.rule_id == e.rule), None)
            why = "the check gives no verdict for it" if given is None else f"its verdict is {given}"
            raise WaiverError(f"waiver {e.id!r} ({e.rule}, {e.target()}) matches nothing in {model}: {why}")
    record = {
        "file": Path(waivers.path).name,
        "sha256": waivers.sha256,
        "date": date.isoformat(),
        "used": [{**e.to_json(), "result": results[e.id]} for e in mine],
    }
    return tuple(out), record


__all__ = ["SCHEMA", "Waiver", "WaiverError", "WaiverFile", "apply_waivers", "check_dates", "read_waivers"]
