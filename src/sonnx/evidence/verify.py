"""``sonnx evidence verify DIR``: re-establish an evidence bundle from its own content.

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
from typing import Any, Callable

from ..errors import EXIT_OK, EXIT_VIOLATED, InputError
from ..ops.values import value_digest
from .bundle import MANIFEST, SCHEMA, SMT_DIR
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


def _listed(manifest: dict[str, Any], rel: str, what: str) -> str:
    """``rel`` when the manifest lists it (so its bytes were hashed), else :class:`BundleError`."""
    if not isinstance(rel, str) or rel not in manifest["files"]:
        raise BundleError(f"{what} {rel!r} is not a file the manifest lists")
    return rel


def _inputs_file(root: Path, manifest: dict[str, Any]) -> str | None:
    """The bundled inputs file named by the recorded options, checked to be a listed bundle file."""
    name = manifest["options"].get("inputs")
    if name is None:
        return None
    rel = _listed(manifest, f"inputs/{name}", "the recorded inputs file")
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
    for rel in sorted(present - set(files) - {MANIFEST}):
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
    import z3

    from ..smt.solver import SolverSettings

    settings = SolverSettings()
    ctx = z3.Context()
    s = z3.SimpleSolver(ctx=ctx)
    s.set("random_seed", settings.seed)
    s.set("rlimit", settings.rlimit)
    s.set("timeout", SOLVER_TIME_LIMIT_MS)
    try:
        s.from_string(text)
        return str(s.check())
    except z3.Z3Exception as exc:
        return f"error ({exc})"


def cvc5_answer(text: str) -> str | None:
    """cvc5's answer to an (already rebuilt) SMT-LIB2 script, or None when cvc5 is not installed."""
    from ..smt.smtlib import cvc5_answers

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
    from ..smt.smtlib import expected_answer

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


def _recorded_model_entry(root: Path, manifest: dict[str, Any]) -> dict[str, Any]:
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


def check_verdicts(root: Path, manifest: dict[str, Any], v: Verification, say: Callable[[str], None]) -> None:
    """Re-run the rules (and the order check) on the bundled model copy and compare with verdicts.json."""
    from ..check import check_file
    from ..errors import UsageError
    from ..rules import CheckConfig
    from .bundle import _obligation_files

    opts = manifest["options"]
    entry = _recorded_model_entry(root, manifest)
    model_file = member_path(root, _listed(manifest, str(manifest["model"].get("file", "")), "the model file"))
    allowed = None
    if opts.get("operators"):
        allowed = frozenset((d, n) for item in opts["operators"] for d, _, n in [item.rpartition(":")])
    try:
        config = CheckConfig(profile=opts["profile"], allowed_operators=allowed, engine=opts["engine"])
    except (KeyError, TypeError, ValueError, UsageError) as exc:
        raise BundleError(f"{root}: the recorded options cannot be replayed ({exc})") from None
    say(f"re-running the rules on {model_file}")
    report = check_file(str(model_file), config, read_weights=not opts.get("structure_only", False))
    if report.error is not None:
        if entry.get("error") is None:
            v.differences.append(f"the bundled model no longer loads: {report.error.one_line()}")
        return
    if opts.get("orders"):
        from ..inputs import load_inputs
        from ..orders import check_orders

        feeds = load_inputs(report.model, _inputs_file(root, manifest), [], opts.get("seed", 0))  # type: ignore[arg-type]
        report.verdicts.append(check_orders(report.model, int(opts["orders"]), int(opts.get("seed", 0)), feeds))  # type: ignore[arg-type]
    recorded = [x for x in entry.get("verdicts", []) if not str(x.get("rule", "")).startswith("EXEC-CROSSCHECK")]
    fresh = [x.to_json() for x in report.verdicts]
    _compare_lists("verdict", recorded, fresh, v)
    rec_findings = (entry.get("smt") or {}).get("findings", [])
    _compare_lists("SMT finding", rec_findings, [x.to_json() for x in report.findings], v)
    for rel, ob in _obligation_files(report.obligations):
        try:
            same = rel in manifest["files"] and read_member(root, rel, MAX_SMT_BYTES).decode("utf-8") == ob.render()
        except (BundleFileError, UnicodeDecodeError):
            same = False
        if not same:
            v.differences.append(f"{rel}: differs from the obligation the SMT engine generates for the model")
    v.counts["verdicts re-derived"] = len(fresh) + len(report.findings)
    check_execution(root, manifest, report.model, v)
    check_crosscheck(root, manifest, entry, report.model, v)


def check_execution(root: Path, manifest: dict[str, Any], model: Any, v: Verification) -> None:
    """Replay the recorded executor run on the bundled model and compare the digests."""
    from .execution import compare_runs, run_record

    recorded = _read_json(root, "execution.json", manifest).get("run")
    if recorded is None:
        v.differences.append("execution.json: no executor run recorded")
        return
    fresh = run_record(model, _inputs_file(root, manifest), int(manifest["options"].get("seed", 0)))
    v.differences.extend(compare_runs(recorded, fresh))
    if recorded.get("ran"):
        v.counts["executor outputs replayed"] = len(recorded.get("outputs") or {})


def check_crosscheck(root: Path, manifest: dict[str, Any], entry: dict[str, Any], model: Any, v: Verification) -> None:
    """The recorded cross-check verdicts agree with crosscheck.json; the seeded inputs are the recorded ones."""
    from ..cli_crosscheck import VERDICT_PREFIX
    from ..inputs import load_inputs

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
        want = {"AGREE": "TESTED", "DIFFER": "VIOLATED", "KNOWN-DEVIATION": "VIOLATED", "UNKNOWN": "UNKNOWN"}.get(
            r.get("outcome")
        )
        got = recorded.pop(rule, {}).get("status")
        if got != want:
            v.differences.append(f"{rule}: verdict {got} does not match the cross-check outcome {r.get('outcome')}")
    for rule in sorted(recorded):
        if rule != VERDICT_PREFIX:
            v.differences.append(f"{rule}: a cross-check verdict with no oracle in crosscheck.json")
    if not cc.get("inputs") and (cc.get("subject") or {}).get("status") == "failed":
        return  # no inputs could be drawn at the time; nothing to re-draw
    try:
        feeds = load_inputs(model, _inputs_file(root, manifest), [], int(cc.get("seed", 0)))
    except Exception as exc:
        v.differences.append(f"the cross-check inputs cannot be drawn again: {exc}")
        return
    digests = {n: value_digest(a) for n, a in sorted(feeds.items())}
    if digests != cc.get("inputs"):
        v.differences.append("the inputs drawn again from the recorded seed differ from the recorded digests")
    v.counts["cross-check input digests re-drawn"] = len(digests)


def verify_bundle(directory: str, progress: Callable[[str], None] | None = None) -> Verification:
    """Verify the bundle at ``directory`` (see the module docstring)."""
    say = progress or (lambda _m: None)
    root = Path(directory)
    manifest = read_manifest(root)
    v = Verification()
    say("re-hashing the bundle's files")
    check_hashes(root, manifest, v)
    if v.differences:
        v.notes.append("stopped after the hash check: no other file was parsed, solved or run")
        return v
    steps: list[tuple[str, Callable[[], None]]] = [
        ("re-solving the SMT obligations", lambda: check_smt(root, manifest, v)),
        ("re-deriving the verdicts", lambda: check_verdicts(root, manifest, v, say)),
    ]
    for what, step in steps:
        say(what)
        try:
            step()
        except BundleError as exc:  # a damaged file inside a readable bundle is a difference, not exit 2
            v.differences.append(f"{what}: {exc.one_line()}")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            v.differences.append(f"{what}: malformed content ({type(exc).__name__}: {exc})")
    result = manifest.get("result") or {}
    recorded = f"the bundle records the check's result {result.get('outcome')} (exit {result.get('exit_code')})"
    if v.differences:
        v.notes.append(f"{recorded}; the differences above mean the bundle does not establish it")
    else:
        v.notes.append(f"{recorded}; verifying the bundle confirms that result, it does not change it")
    return v
