"""The checks of ``sonnx evidence verify DIR``: every statement of a bundle re-derived, or refused.

:func:`sonnx.checking.replay.verify_bundle` runs them in order; the replay of the check
itself goes through the check pipeline, which lives above this package.

A bundle may be hostile: every file is read through :mod:`.safe_files` (only
files the manifest lists, inside the bundle, regular, of bounded size; JSON
with bounded depth and no key twice), and is copied once into a private
folder before anything else reads it, so the bytes hashed are the bytes used.

Steps, each listing every difference it finds:

1. **Manifest.** Exactly the keys the writer writes, in its order; the
   options bounded as on the command line (:meth:`CheckOptions.from_recorded`).
2. **Hashes.** Every listed file is copied and re-hashed; a file the manifest
   does not list (other than the signature, ``attestation.intoto.jsonl``), a symbolic
   link or a special file is a difference. **When any hash differs,
   verification stops here**: nothing else is parsed, solved or run.
3. **What cannot be re-derived** is named: the recording build when it is not
   the replaying one, the creation date, the figures of a runtime that is not
   installed here. Each is refused (exit 2) unless the reviewer trusts that
   kind of claim (``--trust build|date|crosscheck``); a trusted one is listed
   as taken on trust, never as confirmed.
4. **Everything else is re-derived.** The check runs again on the bundled
   model with the recorded options, and every generated file, the manifest
   included, is rendered again (:mod:`.render`) and compared byte for byte;
   the set of files must be exactly the rendered set plus the copies.
5. **SMT.** Every obligation file (now known to be the one sonnx generates for
   the model) is re-solved from its text with z3, and with cvc5 when it is
   installed, with the project's limits, never the bundle's.

Exit code: 0 verified; 1 a difference; 2 unreadable, or a claim neither
re-derived nor trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import z3

from ...base.errors import EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATED, InputError, UsageError
from ...base.text import counted
from ...base.verdict import label
from ...smt.smtlib import cvc5_answers, expected_answer
from ...smt.solver import SolverSettings, make_solver
from ..options import check_docs_url
from .attestation import ATTESTATION
from .render import MANIFEST, SCHEMA, SMT_DIR
from .safe_files import (
    MAX_JSON_BYTES,
    BundleFileError,
    member_path,
    open_member,
    parse_json,
    read_member,
    walk_members,
)
from .smt_scripts import ScriptError, rebuild

MAX_LISTED = 20
TRUST = ("build", "date", "crosscheck")
"""The kinds of claim a reviewer may take on trust (``--trust``): none is ever re-derived."""
MANIFEST_KEYS = (
    "schema", "created", "build", "command_line", "options", "z3", "spec_version", "docs_url", "model", "result",
    "files",
)
SOLVER_TIME_LIMIT_MS = 120_000
"""Wall-clock limit of one solver call while verifying (the resource limit is the project's own)."""
SINGULAR = {
    "files hashed": "file hashed",
    "files re-derived byte for byte": "file re-derived byte for byte",
    "SMT obligations re-solved from their files": "SMT obligation re-solved from its file",
}
"""The singular of each count :class:`Verification` keeps (its JSON keys are the plural phrases)."""
_DIGEST = re.compile(r"[0-9a-f]{64}")
_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


class BundleError(InputError):
    """The bundle cannot be read as a bundle (exit 2)."""


@dataclass
class Verification:
    """What ``verify`` found: differences, claims not re-derived (refused or trusted), what it did."""

    differences: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    """Claims neither re-derived nor trusted: exit 2 when there is no difference."""
    trusted: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        if self.differences:
            return EXIT_VIOLATED
        return EXIT_UNUSABLE if self.refused else EXIT_OK

    def to_json(self) -> dict[str, Any]:
        return {
            "verified": self.exit_code == EXIT_OK,
            "exit_code": self.exit_code,
            "differences": list(self.differences),
            "not_rederived": list(self.refused),
            "taken_on_trust": list(self.trusted),
            "counts": dict(self.counts),
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
        }

    def lines(self) -> list[str]:
        out = []
        if self.differences:
            out.append(f"FAILED: {counted(len(self.differences), 'difference')}")
            out.extend(f"  - {d}" for d in self.differences[:MAX_LISTED])
            if len(self.differences) > MAX_LISTED:
                out.append(f"  ... and {len(self.differences) - MAX_LISTED} more")
        elif self.refused:
            out.append(f"NOT VERIFIED: {counted(len(self.refused), 'claim')} could not be re-derived here")
        else:
            done = ", ".join(counted(v, SINGULAR.get(k, k), k) for k, v in self.counts.items())
            trusted = f" but {counted(len(self.trusted), 'claim')} taken on trust" if self.trusted else ""
            out.append(f"verified{trusted}: {done}")
        out.extend(f"  not re-derived: {r}" for r in self.refused)
        out.extend(f"  taken on trust: {t}" for t in self.trusted)
        out.extend(f"note: {n}" for n in self.notes)
        out.append(f"time: {self.seconds:.1f} s")
        return out

    def not_rederived(self, kind: str, claim: str, trust: frozenset[str]) -> None:
        """Record a claim of ``kind`` that this verification cannot re-derive: trusted or refused."""
        if kind in trust:
            self.trusted.append(claim)
        else:
            self.refused.append(f"{claim} (pass --trust {kind} to accept it)")


def read_manifest(root: Path) -> tuple[dict[str, Any], bytes]:
    """The manifest and its bytes, checked for exactly the writer's keys and the types verify relies on."""
    if not root.is_dir():
        raise BundleError(f"{root}: no such bundle directory")
    try:
        raw = read_member(root, MANIFEST, MAX_JSON_BYTES)
        manifest = parse_json(raw, MANIFEST)
    except BundleFileError as exc:
        raise BundleError(f"{root}: not an evidence bundle ({exc.one_line()})") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        raise BundleError(f"{root}: {MANIFEST} is not a {SCHEMA} manifest")
    if tuple(manifest) != MANIFEST_KEYS:
        raise BundleError(f"{root}: {MANIFEST} must have exactly the keys {', '.join(MANIFEST_KEYS)}, in order")
    files, model, created = manifest["files"], manifest["model"], manifest["created"]
    if not isinstance(files, dict) or not all(isinstance(v, str) and _DIGEST.fullmatch(v) for v in files.values()):
        raise BundleError(f"{root}: {MANIFEST} 'files' must map each file to a SHA-256")
    if not isinstance(model, dict) or not isinstance(model.get("file"), str) or model["file"] not in files:
        raise BundleError(f"{root}: {MANIFEST} names no listed model file")
    if created is not None and not (isinstance(created, str) and _DATE.fullmatch(created)):
        raise BundleError(f"{root}: {MANIFEST} 'created' is not a date of the form YYYY-MM-DDTHH:MM:SSZ")
    docs_url = manifest["docs_url"]
    if docs_url is not None:
        try:
            check_docs_url(docs_url if isinstance(docs_url, str) else "")
        except UsageError as exc:
            raise BundleError(f"{root}: {MANIFEST} 'docs_url': {exc.one_line()}") from None
    if not isinstance(manifest["build"], dict) or not isinstance(manifest["options"], dict):
        raise BundleError(f"{root}: {MANIFEST} has no valid 'build' or 'options' object")
    return manifest, raw


def copy_members(root: Path, manifest: dict[str, Any], work: Path, v: Verification) -> None:
    """Copy every listed file into ``work``, hashing the bytes copied; list what differs from the manifest."""
    files: dict[str, str] = manifest["files"]
    for rel, digest in files.items():
        h = hashlib.sha256()
        try:
            member_path(root, rel)
            fd = open_member(root, rel)
        except BundleFileError as exc:
            v.differences.append(exc.one_line())
            continue
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(fd, "rb") as src, open(target, "wb") as dst:
            for block in iter(lambda: src.read(1 << 20), b""):
                h.update(block)
                dst.write(block)
        if h.hexdigest() != digest:
            v.differences.append(f"{rel}: SHA-256 differs from the manifest")
    present: set[str] = set()
    for rel, kind in walk_members(root):
        if kind == "file":
            present.add(rel)
        elif kind != "dir":
            v.differences.append(f"{rel}: a {'symbolic link' if kind == 'link' else 'special file'} in the bundle")
    for rel in sorted(present - set(files) - {MANIFEST, ATTESTATION}):
        v.differences.append(f"{rel}: in the bundle but not listed in the manifest")
    v.counts["files hashed"] = len(files)


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, value in data.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = value
    return out


def compare_build(recorded: dict[str, Any], here: dict[str, Any], trust: frozenset[str], v: Verification) -> None:
    """The recording build against this one: equal, or a claim this verification cannot re-derive.

    A build that differs in any field (the commit, the digest of sonnx's own
    files, a library version, the platform) may give other bytes for the same
    model, and the bundle's statement of which build made it cannot be
    checked here: it is refused unless the reviewer trusts it.
    """
    old, new = _flat(recorded), _flat(here)
    if tuple(old) != tuple(new):
        v.differences.append(f"{MANIFEST}: the 'build' object does not have the fields this sonnx writes")
        return
    changed = [k for k in new if json.dumps(old[k]) != json.dumps(new[k])]  # 0 is not false, 1 is not 1.0
    if changed:
        what = "; ".join(f"{k} {old[k]!r} recorded, {new[k]!r} here" for k in changed)
        v.not_rederived("build", f"the recording build differs from this one: {what}", trust)


def _clip(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return text if len(text) <= 100 else text[:97] + "..."


def _first_difference(have: bytes, want: bytes) -> str:
    """Where two renderings first differ: the line number and both lines (clipped)."""
    a, b = have.split(b"\n"), want.split(b"\n")
    for k in range(max(len(a), len(b))):
        x = a[k] if k < len(a) else b""
        y = b[k] if k < len(b) else b""
        if x != y:
            return f"line {k + 1}: the bundle has {_clip(x)!r}, the re-run gives {_clip(y)!r}"
    return "same lines, other bytes"


VERDICTS = "verdicts.json"
"""The bundle's JSON report: a difference in it is also said verdict by verdict (:func:`verdict_changes`)."""


def _labels(document: Any) -> dict[tuple[str, str], str]:
    """(model path, rule) -> the word the reports show for that verdict, from a JSON report's status and severity.

    The word is computed from ``status`` and ``severity`` (:func:`sonnx.base.verdict.label`), never read from the
    document's own ``label``, which a forged bundle could set to anything.
    """
    out: dict[tuple[str, str], str] = {}
    models = document.get("models") if isinstance(document, dict) else None
    for m in models if isinstance(models, list) else []:
        verdicts = m.get("verdicts") if isinstance(m, dict) else None
        for v in verdicts if isinstance(verdicts, list) else []:
            if isinstance(v, dict) and all(isinstance(v.get(k), str) for k in ("rule", "status", "severity")):
                out[(str(m.get("path")), v["rule"])] = label(v["status"], v["severity"])
    return out


def verdict_changes(have: bytes, want: bytes) -> list[str]:
    """Each verdict whose shown word differs between the bundle's JSON report and the re-run's, in one line each.

    The same words as the text report (WARNING for a violated warning-severity rule), so that a reviewer reads a
    changed verdict as the check would print it. Empty when the bundle's copy is not readable JSON.
    """
    try:
        old = _labels(parse_json(have, VERDICTS))
    except BundleFileError:
        return []
    new = _labels(json.loads(want))
    return [
        f"{VERDICTS}: {rule}: the bundle records {old.get((path, rule), 'no verdict')}, "
        f"the re-run gives {new.get((path, rule), 'no verdict')}"
        for path, rule in dict.fromkeys([*new, *old])
        if old.get((path, rule)) != new.get((path, rule))
    ]


def compare_rendered(
    work: Path, rendered: dict[str, bytes], copies: set[str], listed: set[str], v: Verification
) -> None:
    """Each rendered file against the bundle's copy; the listed set against the rendered set and the copies."""
    for rel in sorted(listed - set(rendered) - copies):
        v.differences.append(f"{rel}: a file no check of this model writes")
    for rel in sorted((set(rendered) | copies) - listed):
        v.differences.append(f"{rel}: missing (the re-run check writes it)")
    for rel, data in rendered.items():
        if rel not in listed:
            continue
        have = (work / rel).read_bytes()
        if have != data:
            where = _first_difference(have, data)
            v.differences.append(f"{rel}: differs from the file the re-run check renders ({where})")
            if rel == VERDICTS:
                v.differences.extend(verdict_changes(have, data))
    v.counts["files re-derived byte for byte"] = sum(1 for rel in rendered if rel in listed)


def _z3_answer(text: str) -> str:
    """z3's answer to an (already rebuilt) script, with the project's seed and resource limit and a time limit."""
    s = make_solver(SolverSettings())
    s.set("timeout", SOLVER_TIME_LIMIT_MS)
    try:
        s.from_string(text)
        return str(s.check())
    except z3.Z3Exception as exc:
        return f"error ({exc})"


def cvc5_answer(text: str) -> str | None:
    """cvc5's answer to an (already rebuilt) SMT-LIB2 script, or None when cvc5 is not installed."""
    try:
        import cvc5  # noqa: F401
    except Exception:
        return None
    try:
        answers = cvc5_answers(text, time_limit_ms=SOLVER_TIME_LIMIT_MS)
        return answers[-1] if answers else "no answer"
    except Exception as exc:  # a parse error is an answer too: it is not the recorded one
        return f"error ({' '.join(str(exc).split())[:200]})"


def resolve_obligations(work: Path, files: list[str], v: Verification) -> None:
    """Re-solve each obligation file from its text: z3, then cvc5 when installed; each must give the header's answer."""
    by_cvc5 = 0
    for rel in files:
        text = (work / rel).read_text(encoding="utf-8")
        try:
            recorded = expected_answer(text)
            text = rebuild(text)
        except (ValueError, ScriptError) as exc:
            v.differences.append(f"{rel}: cannot be re-solved ({exc})")
            continue
        got = _z3_answer(text)
        if got != recorded:
            v.differences.append(f"{rel}: z3 answers {got} from the file, its header records {recorded}")
        other = cvc5_answer(text)
        if other is None:
            continue
        by_cvc5 += 1
        if other == "unknown":
            v.notes.append(f"{rel}: cvc5 answers unknown (neither confirms nor refutes {recorded})")
        elif other != recorded:
            v.differences.append(f"{rel}: cvc5 answers {other}, the bundle records {recorded}")
    v.counts["SMT obligations re-solved from their files"] = len(files)
    if by_cvc5:
        v.counts["with cvc5"] = by_cvc5
    elif files:
        v.notes.append("cvc5 is not installed (pip install 'sonnx[solvers]'): obligations re-solved with z3 only")
    else:
        v.notes.append("the bundle holds no SMT obligation (the check ran without the SMT engine)")


def obligation_paths(rendered: dict[str, bytes]) -> list[str]:
    return sorted(rel for rel in rendered if rel.startswith(f"{SMT_DIR}/") and rel.endswith(".smt2"))

