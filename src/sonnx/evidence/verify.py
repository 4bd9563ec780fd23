"""The checks of ``sonnx evidence verify DIR``: what re-establishes an evidence bundle from its own content.

:func:`sonnx.replay.verify_bundle` runs them in order; step 3 hands the
recorded options to the check pipeline, which lives above this package.

A bundle may be hostile: every file is read through :mod:`.safe_files` (only
files the manifest lists, inside the bundle, regular, of bounded size), and
every SMT-LIB script is rebuilt from an allow-list of commands before a
solver sees it (:mod:`.smt_scripts`), with the project's solver limits.

Steps, each listing every difference it finds:

1. **Hashes.** Every file the manifest lists is re-hashed; the model's digest
   is compared too; a file in the bundle that the manifest does not list, a
   symbolic link or a special file is a difference. **When any hash
   differs, verification stops here**: nothing else is parsed, solved or run.
2. **SMT.** Every obligation file is rebuilt from the allow-list and re-solved
   with z3 (and with cvc5 when it is installed), with the project's seed,
   resource limit and a time limit; the answer must equal the answer recorded
   in ``smt/answers.json`` and in the file's own header. A cvc5 ``unknown`` is
   noted, not counted as a difference (it neither confirms nor refutes).
3. **Verdicts.** The rules are run again, with the recorded options, on the
   bundled copy of the model: every verdict of the rule table (with its
   witness) and every SMT finding must equal the recorded one, and the
   regenerated obligations must equal the bundled files byte for byte. With
   ``--orders`` recorded, the order-independence check is re-run with the
   recorded seed and must give the same verdict.
4. **Execution.** The bundled model is run again on the NumPy executor with
   the recorded seed or inputs file; every input and output digest (dtype,
   shape, SHA-256) must equal the recorded one.
5. **Cross-checks.** The recorded cross-check verdicts must match
   ``crosscheck.json``; the seeded inputs are drawn again and their digests
   must match the recorded ones (the runtimes themselves are not re-run:
   their versions may have changed since).

Exit code: 0 verified; 1 a difference (the first ones are listed); 2 the
bundle is unreadable (no manifest, malformed JSON, unknown schema).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import z3

from ..differential.verdicts import STATUS_OF_OUTCOME, VERDICT_PREFIX
from ..errors import EXIT_OK, EXIT_VIOLATED, InputError
from ..inputs import load_inputs
from ..model.graph import Model
from ..ops.values import value_digest
from ..report import ModelReport
from ..smt.smtlib import cvc5_answers, expected_answer
from ..smt.solver import SolverSettings, make_solver
from .attestation import ATTESTATION
from .bundle import MANIFEST, SCHEMA, SMT_DIR, obligation_files
from .execution import compare_runs, run_record
from .safe_files import (
    MAX_SMT_BYTES,
    BundleFileError,
    hash_member,
    member_path,
    read_json_member,
    read_member,
    walk_members,
)
from .smt_scripts import ScriptError, rebuild

MAX_LISTED = 20


class BundleError(InputError):
    """The bundle cannot be read as a bundle (exit 2)."""


@dataclass
class Verification:
    """What ``verify`` found."""

    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT_VIOLATED if self.differences else EXIT_OK

    def to_json(self) -> dict[str, Any]:
        return {
            "verified": not self.differences,
            "exit_code": self.exit_code,
            "differences": list(self.differences),
            "counts": dict(self.counts),
            "notes": list(self.notes),
        }

    def lines(self) -> list[str]:
        out = []
        if self.differences:
            out.append(f"FAILED: {len(self.differences)} difference(s)")
            out.extend(f"  - {d}" for d in self.differences[:MAX_LISTED])
            if len(self.differences) > MAX_LISTED:
                out.append(f"  ... and {len(self.differences) - MAX_LISTED} more")
        else:
            done = ", ".join(f"{v} {k}" for k, v in self.counts.items())
            out.append(f"verified: {done}")
        out.extend(f"note: {n}" for n in self.notes)
        return out


SOLVER_TIME_LIMIT_MS = 120_000
"""Wall-clock limit of one solver call while verifying (the resource limit is the project's own)."""


def _read_json(root: Path, rel: str, manifest: dict[str, Any] | None = None) -> Any:
    """A JSON file of the bundle; with ``manifest``, only one the manifest lists (it was hashed)."""
    if manifest is not None and rel not in manifest["files"]:
        raise BundleError(f"{rel}: not listed in the manifest")
    try:
        return read_json_member(root, rel)
    except BundleFileError as exc:
        raise BundleError(f"{root}: {exc.one_line()}") from None


def listed(manifest: dict[str, Any], rel: str, what: str) -> str:
    """``rel`` when the manifest lists it (so its bytes were hashed), else :class:`BundleError`."""
    if not isinstance(rel, str) or rel not in manifest["files"]:
        raise BundleError(f"{what} {rel!r} is not a file the manifest lists")
    return rel


def inputs_file(root: Path, manifest: dict[str, Any]) -> str | None:
    """The bundled inputs file named by the recorded options, checked to be a listed bundle file."""
    name = manifest["options"].get("inputs")
    if name is None:
        return None
    rel = listed(manifest, f"inputs/{name}", "the recorded inputs file")
    return str(member_path(root, rel))


def read_manifest(root: Path) -> dict[str, Any]:
    """The manifest, checked for the fields ``verify`` relies on (else :class:`BundleError`)."""
    if not root.is_dir():
        raise BundleError(f"{root}: no such bundle directory")
    try:
        manifest = read_json_member(root, MANIFEST)
    except BundleFileError as exc:
        raise BundleError(f"{root}: not an evidence bundle ({exc.one_line()})") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        raise BundleError(f"{root}: {MANIFEST} is not a {SCHEMA} manifest")
    for key in ("files", "model", "options"):
        if not isinstance(manifest.get(key), dict):
            raise BundleError(f"{root}: {MANIFEST} has no valid {key!r} field")
    return manifest


def check_hashes(root: Path, manifest: dict[str, Any], v: Verification) -> None:
    files: dict[str, Any] = manifest["files"]
    for rel, digest in files.items():
        h = hashlib.sha256()
        try:
            hash_member(root, rel, h)
        except BundleFileError as exc:
            v.differences.append(exc.one_line())
            continue
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
    model = manifest["model"]
    if files.get(model.get("file")) != model.get("sha256"):
        v.differences.append("the model's SHA-256 in the manifest differs from its entry in the file list")
    for e in model.get("external_data", []):
        if files.get(e.get("file")) != e.get("sha256"):
            v.differences.append(f"external data {e.get('location')!r}: SHA-256 differs from the file list")
    v.counts["files hashed"] = len(files)


def _z3_answer(text: str) -> str:
    """z3's answer to an (already rebuilt) script, with the project's seed and resource limit and a time limit."""
    s = make_solver(SolverSettings())
    s.set("timeout", SOLVER_TIME_LIMIT_MS)
    try:
        s.from_string(text)  # rebuilt from the allow-list: no command z3 would skip is left
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


def check_smt(root: Path, manifest: dict[str, Any], v: Verification) -> None:
    data = _read_json(root, f"{SMT_DIR}/answers.json", manifest)
    entries = data.get("obligations", []) if isinstance(data, dict) else []
    listed = {e.get("file") for e in entries}
    on_disk = {rel for rel in manifest["files"] if rel.startswith(f"{SMT_DIR}/") and rel.endswith(".smt2")}
    for rel in sorted(on_disk - listed):
        v.differences.append(f"{rel}: an SMT file not listed in {SMT_DIR}/answers.json")
    by_cvc5 = 0
    for e in entries:
        rel, recorded = e.get("file", ""), e.get("answer")
        if not isinstance(rel, str) or not rel.startswith(f"{SMT_DIR}/") or rel not in manifest["files"]:
            v.differences.append(f"{SMT_DIR}/answers.json names {rel!r}, not an SMT file the manifest lists")
            continue
        try:
            text = read_member(root, rel, MAX_SMT_BYTES).decode("utf-8")
        except (BundleFileError, UnicodeDecodeError) as exc:
            v.differences.append(f"{rel}: SMT file unreadable ({exc})")
            continue
        try:
            header = expected_answer(text)
        except ValueError:
            header = None
        if header != recorded:
            v.differences.append(f"{rel}: header says {header}, answers.json says {recorded}")
        try:
            text = rebuild(text)
        except ScriptError as exc:
            v.differences.append(f"{rel}: refused before solving: {exc.one_line()}")
            continue
        got = _z3_answer(text)
        if got != recorded:
            v.differences.append(f"{rel}: z3 now answers {got}, the bundle records {recorded}")
        other = cvc5_answer(text)
        if other is None:
            continue
        by_cvc5 += 1
        if other == "unknown":
            v.notes.append(f"{rel}: cvc5 answers unknown (neither confirms nor refutes {recorded})")
        elif other != recorded:
            v.differences.append(f"{rel}: cvc5 answers {other}, the bundle records {recorded}")
    v.counts["SMT obligations re-solved with z3"] = len(entries)
    if by_cvc5:
        v.counts["with cvc5"] = by_cvc5
    elif entries:
        v.notes.append("cvc5 is not installed: obligations re-solved with z3 only")
    else:
        v.notes.append("the bundle holds no SMT obligation (the check ran without the SMT engine)")


def recorded_model_entry(root: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    data = _read_json(root, "verdicts.json", manifest)
    try:
        entry = data["models"][0]
    except (KeyError, IndexError, TypeError):
        raise BundleError(f"{root}: verdicts.json holds no model entry") from None
    if not isinstance(entry, dict):
        raise BundleError(f"{root}: verdicts.json holds no model entry")
    return entry


def _compare_lists(what: str, recorded: list[Any], fresh: list[Any], v: Verification) -> None:
    rec = {x.get("rule"): x for x in recorded if isinstance(x, dict)}
    new = {x.get("rule"): x for x in fresh}
    for rule in sorted(set(rec) | set(new), key=str):
        if rule not in new:
            v.differences.append(f"{what} {rule}: recorded but not produced by the re-run")
        elif rule not in rec:
            v.differences.append(f"{what} {rule}: produced by the re-run but not recorded")
        elif rec[rule] != new[rule]:
            v.differences.append(
                f"{what} {rule}: recorded {rec[rule].get('status')}, re-run gives {new[rule].get('status')}"
                + ("" if rec[rule].get("status") != new[rule].get("status") else " (witness or details differ)")
            )


def compare_report(
    root: Path, manifest: dict[str, Any], entry: dict[str, Any], report: ModelReport, v: Verification
) -> None:
    """Compare a re-run of the check with what the bundle recorded: verdicts, SMT findings, obligation files.

    The cross-check verdicts are left out here (the runtimes are not re-run;
    :func:`check_crosscheck` compares them with ``crosscheck.json``).
    """
    recorded = [x for x in entry.get("verdicts", []) if not str(x.get("rule", "")).startswith(VERDICT_PREFIX)]
    fresh = [x.to_json() for x in report.verdicts]
    _compare_lists("verdict", recorded, fresh, v)
    rec_findings = (entry.get("smt") or {}).get("findings", [])
    _compare_lists("SMT finding", rec_findings, [x.to_json() for x in report.findings], v)
    for rel, ob in obligation_files(report.obligations):
        try:
            same = rel in manifest["files"] and read_member(root, rel, MAX_SMT_BYTES).decode("utf-8") == ob.render()
        except (BundleFileError, UnicodeDecodeError):
            same = False
        if not same:
            v.differences.append(f"{rel}: differs from the obligation the SMT engine generates for the model")
    v.counts["verdicts re-derived"] = len(fresh) + len(report.findings)


def check_execution(root: Path, manifest: dict[str, Any], model: Model, v: Verification) -> None:
    """Replay the recorded executor run on the bundled model and compare the digests."""
    recorded = _read_json(root, "execution.json", manifest).get("run")
    if recorded is None:
        v.differences.append("execution.json: no executor run recorded")
        return
    fresh = run_record(model, inputs_file(root, manifest), int(manifest["options"].get("seed", 0)))
    v.differences.extend(compare_runs(recorded, fresh))
    if recorded.get("ran"):
        v.counts["executor outputs replayed"] = len(recorded.get("outputs") or {})


def check_crosscheck(
    root: Path, manifest: dict[str, Any], entry: dict[str, Any], model: Model, v: Verification
) -> None:
    """The recorded cross-check verdicts agree with crosscheck.json; the seeded inputs are the recorded ones."""
    data = _read_json(root, "crosscheck.json", manifest)
    cc = data.get("report") if isinstance(data, dict) else None
    recorded = {
        x.get("rule"): x for x in entry.get("verdicts", []) if str(x.get("rule", "")).startswith(VERDICT_PREFIX)
    }
    if cc is None:
        if recorded:
            v.differences.append("cross-check verdicts are recorded but crosscheck.json holds no report")
        return
    for r in cc.get("oracles", []):
        rule = f"{VERDICT_PREFIX}-{str(r.get('oracle', '')).upper()}"
        want = STATUS_OF_OUTCOME.get(r.get("outcome"))
        got = recorded.pop(rule, {}).get("status")
        if got != want:
            v.differences.append(f"{rule}: verdict {got} does not match the cross-check outcome {r.get('outcome')}")
    for rule in sorted(recorded):
        if rule != VERDICT_PREFIX:
            v.differences.append(f"{rule}: a cross-check verdict with no oracle in crosscheck.json")
    if not cc.get("inputs") and (cc.get("subject") or {}).get("status") == "failed":
        return  # no inputs could be drawn at the time; nothing to re-draw
    try:
        feeds = load_inputs(model, inputs_file(root, manifest), [], int(cc.get("seed", 0)))
    except Exception as exc:
        v.differences.append(f"the cross-check inputs cannot be drawn again: {exc}")
        return
    digests = {n: value_digest(a) for n, a in sorted(feeds.items())}
    if digests != cc.get("inputs"):
        v.differences.append("the inputs drawn again from the recorded seed differ from the recorded digests")
    v.counts["cross-check input digests re-drawn"] = len(digests)
