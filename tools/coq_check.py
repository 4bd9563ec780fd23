"""Check the Coq development of ``proofs/coq/``: no admitted step, no declared axiom, assumptions listed.

The spec's claims about the graph semantics (GRAPH-ACYCLIC and the rules of
spec/graph.rst section 3) cite Coq theorems. A theorem is evidence only if
Coq checked it and it rests on nothing unproved, so this checker:

1. reads ``_CoqProject`` (``-Q . SONNX`` and the files in dependency order)
   and refuses a ``.v`` file of the folder that it does not list;
2. scans every listed file, comments and strings removed, and refuses
   ``Admitted``, ``admit``, ``Admit Obligations``, ``Axiom``, ``Parameter``, ``Conjecture``, an
   option that switches a kernel check off, a plugin, and a section
   assumption (``Variable``, ``Hypothesis``, ``Context``) outside a
   ``Section`` (there it would be a global axiom);
3. compiles the files with ``coqc`` in a copy under ``build/coq`` (git-ignored),
   so no build output lands in the source tree;
4. runs ``Print Assumptions`` for every theorem of ``theorems.txt`` (name,
   file, the spec rule it supports, optionally the assumptions the docs
   allow) and refuses any that is not "Closed under the global context" and
   lists an assumption not allowed; every ``Theorem`` of the files must be
   in the table, so a main theorem cannot escape the listing;
5. writes the listing of each theorem and its assumptions to
   ``docs/_generated/coq_assumptions.txt`` for the docs.

``python -m tools.coq_check`` (``make proofs``) exits 0 when all holds, 1 with
one line naming the file and line of the first failure, 2 when the check
cannot run (no ``coqc``, a malformed table). ``--if-available`` is what
``make test`` uses: without ``coqc`` it installs Debian's ``coq`` when run as
root, and otherwise prints one loud NOT RUN line, records it for the final
summary and exits 0, except under ``CI=true`` where the check must run.
A passing check leaves a record of its inputs' digest in ``build/coq-verified``
(``tools/coq_record.py``), so the same inputs are not compiled again in this
tree; ``--fresh`` compiles every file regardless.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tools import coq_record

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "proofs" / "coq"
BUILD = ROOT / "build" / "coq"
LISTING = ROOT / "docs" / "_generated" / "coq_assumptions.txt"
STATUS = ROOT / "build" / "coq-status.txt"
# Records of passing checks, by the digest of their inputs (check's ``verified``).
VERIFIED = ROOT / "build" / "coq-verified"
CLOSED = "Closed under the global context"
NOT_RUN = "Coq check NOT RUN: coqc not found; install Debian's coq (apt-get install coq) and run make proofs"

# Commands that make a theorem rest on something unproved wherever they appear.
_FORBIDDEN = (
    r"Admitted|admit|Admit\s+Obligations|Axioms?|Parameters?|Conjectures?"
    r"|Unset\s+(?:Guard|Positivity|Universe)\s+Checking|bypass_check|Declare\s+ML\s+Module"
)
# Section assumptions: discharged as a premise at ``End``, a global axiom outside a section.
_SECTION_ONLY = r"Variables?|Hypothes[ie]s|Context"
_TOKEN = re.compile(
    rf"\b(?P<bad>{_FORBIDDEN})\b"
    rf"|\b(?P<local>{_SECTION_ONLY})\b"
    r"|\bSection\s+(?P<open>[A-Za-z_][\w']*)\s*\."
    r"|\bEnd\s+(?P<close>[A-Za-z_][\w']*)\s*\."
)
_THEOREM = re.compile(r"^\s*Theorem\s+([A-Za-z_][\w']*)", re.MULTILINE)
_COQC_ERROR = re.compile(r'File "[^"]*", line (\d+)')


class CoqCheckFailed(Exception):
    """A definite failure of the development: one line, naming the file and line."""


class CoqCheckUnusable(Exception):
    """The check cannot run: no coqc, or a malformed project or theorem table."""


@dataclass(frozen=True)
class Entry:
    """One row of theorems.txt: a theorem, its file, the spec rule it supports, its allowed assumptions."""

    name: str
    file: str
    rule: str
    allowed: tuple[str, ...]
    line: int

    @property
    def qualified(self) -> str:
        """The theorem's full name, under the logical root SONNX and its file's module."""
        return f"SONNX.{Path(self.file).stem}.{self.name}"


def strip_comments(text: str) -> str:
    """The text with Coq comments (nested) and strings blanked out, newlines kept so line numbers hold."""
    out: list[str] = []
    depth = 0
    in_string = False
    i = 0
    while i < len(text):
        pair = text[i : i + 2]
        ch = text[i]
        if in_string:
            if pair == '""':
                out.append("  ")
                i += 2
                continue
            in_string = ch != '"'
            out.append("\n" if ch == "\n" else " ")
        elif pair == "(*":
            depth += 1
            out.append("  ")
            i += 2
            continue
        elif depth and pair == "*)":
            depth -= 1
            out.append("  ")
            i += 2
            continue
        elif depth:
            out.append("\n" if ch == "\n" else " ")
        elif ch == '"':
            in_string = True
            out.append(" ")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def scan(path: Path, shown: str) -> None:
    """Refuse an unproved step or a global assumption in one file (step 2 of the module docstring)."""
    code = strip_comments(path.read_text(encoding="utf-8"))
    sections: list[str] = []
    for match in _TOKEN.finditer(code):
        line = code.count("\n", 0, match.start()) + 1
        if match.group("bad"):
            word = " ".join(match.group("bad").split())
            raise CoqCheckFailed(f"{shown}:{line}: '{word}' leaves a step unproved or assumes it")
        if match.group("local") and not sections:
            word = match.group("local")
            raise CoqCheckFailed(f"{shown}:{line}: '{word}' outside a Section declares a global axiom")
        if match.group("open"):
            sections.append(match.group("open"))
        if match.group("close") and sections and sections[-1] == match.group("close"):
            sections.pop()


def read_project(project: Path) -> tuple[str, list[str]]:
    """The logical root and the file list of ``_CoqProject``; every .v file of the folder must be listed."""
    path = project / "_CoqProject"
    if not path.is_file():
        raise CoqCheckUnusable(f"{path}: no _CoqProject")
    root = ""
    files: list[str] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "-Q" and len(words) == 3 and words[1] == ".":
            root = words[2]
        elif len(words) == 1 and words[0].endswith(".v") and "/" not in words[0]:
            files.append(words[0])
        else:
            raise CoqCheckUnusable(f"{path}:{number}: expected '-Q . NAME' or a file name, got {raw.strip()!r}")
    if root != "SONNX":
        raise CoqCheckUnusable(f"{path}: the logical root must be given as '-Q . SONNX'")
    unlisted = sorted({p.name for p in project.glob("*.v")} - set(files))
    if unlisted:
        raise CoqCheckFailed(f"{path}:1: {unlisted[0]} is in the folder but not listed, so it would go unchecked")
    return root, files


def read_table(project: Path, files: Sequence[str]) -> list[Entry]:
    """The theorem table; each row names a listed file, and every ``Theorem`` of those files has a row."""
    path = project / "theorems.txt"
    if not path.is_file():
        raise CoqCheckUnusable(f"{path}: no theorem table")
    entries: list[Entry] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) not in (3, 4) or words[1] not in files:
            raise CoqCheckUnusable(f"{path}:{number}: expected 'theorem file.v RULE [allowed,...]' for a listed file")
        allowed = tuple(words[3].split(",")) if len(words) == 4 else ()
        entries.append(Entry(words[0], words[1], words[2], allowed, number))
    listed = {(e.file, e.name) for e in entries}
    for file in files:
        code = strip_comments((project / file).read_text(encoding="utf-8"))
        for match in _THEOREM.finditer(code):
            if (file, match.group(1)) not in listed:
                line = code.count("\n", 0, match.start()) + 1
                raise CoqCheckFailed(
                    f"proofs/coq/{file}:{line}: Theorem {match.group(1)} is not in theorems.txt, "
                    "so its assumptions would not be printed"
                )
    return entries


def _coqc(args: Sequence[str], cwd: Path, shown: str) -> float:
    """Run coqc; a failure becomes one line naming the file and the line of Coq's error."""
    start = time.perf_counter()
    done = subprocess.run(["coqc", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        output = done.stdout + done.stderr
        where = _COQC_ERROR.search(output)
        line = where.group(1) if where else "1"
        error = " ".join(output[output.find("Error") :].split()) if "Error" in output else " ".join(output.split())
        raise CoqCheckFailed(f"{shown}:{line}: coqc: {error[:300]}")
    return time.perf_counter() - start


def assumptions(entries: Sequence[Entry], files: Sequence[str], build: Path) -> dict[str, str]:
    """``Print Assumptions`` of every theorem, each redirected to a file of its own in the build folder."""
    script = [f"Require SONNX.{Path(f).stem}." for f in files]
    for index, entry in enumerate(entries):
        script.append(f'Redirect "assumptions_{index}" Print Assumptions {entry.qualified}.')
    (build / "PrintAssumptions.v").write_text("\n".join(script) + "\n", encoding="utf-8")
    try:
        _coqc(["-Q", ".", "SONNX", "PrintAssumptions.v"], build, "PrintAssumptions.v")
    except CoqCheckFailed as failure:
        # Line k of the script is the table's entry k - len(files) - 1: name its row of theorems.txt.
        script_line, _, message = str(failure).removeprefix("PrintAssumptions.v:").partition(": ")
        index = int(script_line) - len(files) - 1
        row = entries[index].line if 0 <= index < len(entries) else 1
        raise CoqCheckFailed(f"proofs/coq/theorems.txt:{row}: {message}") from None
    return {
        entry.qualified: (build / f"assumptions_{index}.out").read_text(encoding="utf-8").strip()
        for index, entry in enumerate(entries)
    }


def _assumed(text: str) -> list[str]:
    """The names Print Assumptions lists, none when closed.

    Each assumption starts at column 0 with its name, its type after `` :`` on
    the same line or, for a long name, on the indented lines below; a line at
    column 0 ending in ``:`` heads a group (``Axioms:``). Any other text at
    column 0 counts as an assumption, so an unexpected report is refused.
    """
    if text == CLOSED:
        return []
    names = [
        line.split(" :", 1)[0].strip()
        for line in text.splitlines()
        if line.strip() and not line[0].isspace() and not line.rstrip().endswith(":")
    ]
    return names or [text.splitlines()[0] if text else "(no output)"]


def check(
    project: Path, build: Path, listing: Path | None, say: bool = True, verified: Path | None = None,
    remember: bool = True,
) -> str:
    """Run steps 1 to 5 of the module docstring; the summary line, or an exception naming the failure.

    With ``verified`` (a folder of records), step 3 is skipped when a record of an earlier check of the
    very same inputs is there (:func:`inputs_digest`: the listed files, the table, the checker and coqc);
    steps 1, 2 and 4 are always done, on the recorded ``Print Assumptions`` output. A passing check
    that compiled writes its record there when ``remember`` is true.
    """
    start = time.perf_counter()
    if shutil.which("coqc") is None:
        raise CoqCheckUnusable("coqc not found; install Debian's coq (apt-get install coq)")
    _root, files = read_project(project)
    for file in files:
        scan(project / file, f"proofs/coq/{file}")
    entries = read_table(project, files)
    _progress(say, f"scanned {len(files)} files: no Admitted, admit or axiom; {len(entries)} theorems in the table")
    record = verified / f"{inputs_digest(project, files)}.json" if verified is not None else None
    printed = coq_record.recall(record, [e.qualified for e in entries]) if record is not None else None
    compiled = printed is None
    extracted: dict[str, str] = {}
    if printed is None:
        printed, extracted = _compile(project, files, entries, build, say)
    lines = ["Coq theorems of proofs/coq/ and their assumptions (Print Assumptions, Coq's own output)", ""]
    for entry in entries:
        text = printed[entry.qualified]
        lines += [f"{entry.qualified}  ({entry.file}; supports {entry.rule})", *("    " + t for t in text.splitlines())]
        extra = [name for name in _assumed(text) if name not in entry.allowed]
        if extra:
            line = _line_of(project / entry.file, entry.name)
            raise CoqCheckFailed(
                f"proofs/coq/{entry.file}:{line}: {entry.name} rests on {', '.join(extra)}, "
                "which theorems.txt does not allow"
            )
    if compiled and record is not None and remember:
        coq_record.remember(record, printed, extracted)
    if listing is not None:
        listing.parent.mkdir(parents=True, exist_ok=True)
        listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
    total = time.perf_counter() - start
    earlier = "" if compiled or record is None else record.stem[:12]
    how = f", compiled by an earlier check of the same inputs ({earlier})" if earlier else ""
    return (
        f"Coq check PASSED: {len(files)} files, {len(entries)} theorems with their assumptions listed{how}, "
        f"{total:.1f} s"
    )


def _compile(
    project: Path, files: Sequence[str], entries: Sequence[Entry], build: Path, say: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """Step 3 and the printing of step 4: every file compiled in a fresh ``build``, then Print Assumptions.

    Also the OCaml the compile extracted (every ``.ml`` and ``.mli`` file it wrote), by file name.
    """
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    for file in files:
        shutil.copyfile(project / file, build / file)
        seconds = _coqc(["-Q", ".", "SONNX", file], build, f"proofs/coq/{file}")
        _progress(say, f"coqc {file}: {seconds:.1f} s")
    started = time.perf_counter()
    printed = assumptions(entries, files, build)
    _progress(say, f"Print Assumptions of {len(entries)} theorems: {time.perf_counter() - started:.1f} s")
    extracted = {p.name: p.read_text(encoding="utf-8") for p in sorted(build.iterdir()) if p.suffix in (".ml", ".mli")}
    return printed, extracted


def inputs_digest(project: Path, files: Sequence[str]) -> str:
    """The SHA-256 of everything a check's outcome depends on.

    The coqc found on PATH and its version line (which names the Coq release and the OCaml it was
    built with, hence its standard library), this checker's source, ``_CoqProject``, ``theorems.txt`` and
    every listed file, each with its name and length so that no two different inputs concatenate alike.
    """
    coqc = shutil.which("coqc") or ""
    version = subprocess.run([coqc, "--version"], capture_output=True, text=True, check=False).stdout
    parts = [("coqc", f"{coqc}\n{version}".encode()), ("checker", Path(__file__).read_bytes())]
    parts += [(name, (project / name).read_bytes()) for name in ("_CoqProject", "theorems.txt", *files)]
    return coq_record.digest(parts)


def _line_of(path: Path, name: str) -> int:
    """The line on which ``name`` is stated as a theorem or lemma in ``path`` (1 when not found)."""
    code = strip_comments(path.read_text(encoding="utf-8"))
    found = re.search(rf"\b(?:Theorem|Lemma|Corollary|Proposition|Fact|Remark)\s+{re.escape(name)}\b", code)
    return code.count("\n", 0, found.start()) + 1 if found else 1


def _progress(say: bool, text: str) -> None:
    if say:
        print(f"coq: {text}", flush=True)


def _install_coq() -> bool:
    """Install Debian's coq with apt when running as root with apt-get; whether coqc is there afterwards."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return False
    print("coq: coqc not found; installing Debian's coq with apt-get", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "coq"]):
        if subprocess.run(command, env=env, check=False).returncode != 0:
            return False
    return shutil.which("coqc") is not None


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m tools.coq_check [--if-available] [--project DIR] [--build DIR] [--listing FILE]``."""
    parser = argparse.ArgumentParser(prog="python -m tools.coq_check", description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=PROJECT)
    parser.add_argument("--build", type=Path, default=BUILD)
    parser.add_argument("--listing", type=Path, default=LISTING)
    parser.add_argument("--if-available", action="store_true", help="make test: report NOT RUN without coqc")
    parser.add_argument("--fresh", action="store_true", help="compile even with a record of the same inputs")
    args = parser.parse_args(argv)
    if shutil.which("coqc") is None and not _install_coq():
        if args.if_available:
            print(f"*** {NOT_RUN} ***", flush=True)
            _record("NOT RUN (coqc not found; apt-get install coq, then make proofs)")
            return 2 if os.environ.get("CI") == "true" else 0
        print(f"coq: {NOT_RUN}", file=sys.stderr)
        return 2
    try:
        summary = check(args.project, args.build, args.listing, verified=None if args.fresh else VERIFIED)
    except CoqCheckFailed as failure:
        print(f"coq: FAILED: {failure}", file=sys.stderr)
        _record("FAILED")
        return 1
    except CoqCheckUnusable as problem:
        print(f"coq: cannot check: {problem}", file=sys.stderr)
        _record("FAILED (cannot check)")
        return 2
    print(f"coq: {summary}", flush=True)
    _record("PASSED")
    return 0


def _record(status: str) -> None:
    """Remember the outcome for the summary line of ``make test``."""
    STATUS.parent.mkdir(parents=True, exist_ok=True)
    STATUS.write_text(status + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
