"""Build the reference runner extracted from the Coq semantics (``proofs/coq/Extract.v``).

The differential test ``tests/model/test_coq_runner.py`` compares
:mod:`sonnx.model.semantics` (``run`` and ``fire``) with this runner, so the
Python model is tied to the definitions the Coq theorems are about (spec
section 3; GRAPH-C1's order independence and GRAPH-ACYCLIC's termination
are proved of exactly the extracted ``run_fuel``). The build:

1. copies the Coq files the extraction needs into ``build/coq-runner``
   (git-ignored) and compiles them with ``coqc``; compiling ``Extract.v``
   writes the extracted OCaml (``sonnx_runner.ml``/``.mli``) there, never
   into the source tree, and ``ExtractNested.v`` the runner of graphs with
   nested graphs (``sonnx_nested.ml``, ``run_ng`` of ``Nested.v``);
2. compiles them with the driver ``proofs/coq/runner/main.ml`` (and
   ``nested_driver.ml``, which reads the nested blocks) using
   ``ocamlfind ocamlopt`` into the executable ``build/coq-runner/runner``.

Step 1 is skipped when a folder of Coq check records is given and holds the
record of a passing check of the very same inputs (``tools/coq_record.py``:
the digest covers every file of ``_CoqProject``, the theorem table, the checker
and the coqc in use): that check compiled ``Extract.v`` and ``ExtractNested.v``
among the other files and kept the OCaml they wrote, which is then compiled as
in step 2. The differential test does so, after the Coq step of ``make test``
compiled the development; a tree without such a record (a clean clone before
its Coq step) compiles as above.

``python -m tools.coq_runner`` (``make proofs``) exits 0 and prints the build
time, 1 with one line when a step fails, 2 when ``coqc`` or ``ocamlfind`` is
missing; it always compiles.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tools import coq_check, coq_record

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "proofs" / "coq"
BUILD = ROOT / "build" / "coq-runner"
# The files Extract.v requires, in dependency order, then Extract.v itself.
SOURCES = ("Semantics.v", "Termination.v", "OrderIndependence.v", "Errors.v", "ErrorTrace.v", "Extract.v")
# The nested runner (ExtractNested.v, extracting run_ng of Nested.v) and what it requires beyond SOURCES.
NESTED_SOURCES = ("Nested.v", "ExtractNested.v")
DRIVER = PROJECT / "runner" / "main.ml"
# The driver of nested blocks, compiled before main.ml, which hands them over.
NESTED_DRIVER = PROJECT / "runner" / "nested_driver.ml"
EXTRACTED = "sonnx_runner"
EXTRACTED_NESTED = "sonnx_nested"
TOOLS = ("coqc", "ocamlfind")


class RunnerBuildFailed(Exception):
    """A step of the build failed: one line naming the step."""


class RunnerUnavailable(Exception):
    """A tool the build needs is missing."""


def missing_tools() -> list[str]:
    """The tools of the build that are not on PATH."""
    return [t for t in TOOLS if shutil.which(t) is None]


def _step(command: Sequence[str], cwd: Path, what: str) -> None:
    done = subprocess.run(list(command), cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        error = " ".join((done.stderr or done.stdout).split())
        raise RunnerBuildFailed(f"{what}: {error[:300]}")


def recorded_extraction(verified: Path, project: Path = PROJECT) -> dict[str, str] | None:
    """The extracted OCaml files kept by a passing Coq check of exactly ``project``'s inputs, or None.

    The record is looked up under the digest :func:`tools.coq_check.inputs_digest` gives now, so an
    edited Coq file, theorem table, checker or coqc finds none; a malformed project finds none either.
    """
    try:
        _root, files = coq_check.read_project(project)
        entries = coq_check.read_table(project, files)
    except (coq_check.CoqCheckFailed, coq_check.CoqCheckUnusable):
        return None
    if not set(SOURCES + NESTED_SOURCES) <= set(files):
        return None
    record = verified / f"{coq_check.inputs_digest(project, files)}.json"
    names = [f"{module}.{ext}" for module in (EXTRACTED, EXTRACTED_NESTED) for ext in ("mli", "ml")]
    return coq_record.recall_extracted(record, [e.qualified for e in entries], names)


def build(build_dir: Path = BUILD, project: Path = PROJECT, verified: Path | None = None) -> Path:
    """Extract and compile the runner in ``build_dir``; the path of the executable.

    With ``verified`` (a folder of Coq check records), the extraction a record of the same inputs holds
    is used instead of compiling the Coq files (see the module docstring).
    """
    absent = missing_tools()
    if absent:
        raise RunnerUnavailable(f"{', '.join(absent)} not found; install Debian's coq (apt-get install coq)")
    shutil.rmtree(build_dir, ignore_errors=True)
    build_dir.mkdir(parents=True)
    recorded = recorded_extraction(verified, project) if verified is not None else None
    if recorded is not None:
        for name, text in recorded.items():
            (build_dir / name).write_text(text, encoding="utf-8")
    else:
        for name in (*SOURCES, *NESTED_SOURCES):
            shutil.copyfile(project / name, build_dir / name)
            _step(["coqc", "-Q", ".", "SONNX", name], build_dir, f"coqc {name}")
    for module, source in ((EXTRACTED, "Extract.v"), (EXTRACTED_NESTED, "ExtractNested.v")):
        if not (build_dir / f"{module}.ml").is_file():
            raise RunnerBuildFailed(f"coqc {source} wrote no {module}.ml")
    for driver in (NESTED_DRIVER, DRIVER):
        shutil.copyfile(driver, build_dir / driver.name)
    modules = [f"{m}.{ext}" for m in (EXTRACTED, EXTRACTED_NESTED) for ext in ("mli", "ml")]
    command = ["ocamlfind", "ocamlopt", *modules, NESTED_DRIVER.name, DRIVER.name, "-o", "runner"]
    _step(command, build_dir, "ocamlfind ocamlopt")
    return build_dir / "runner"


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m tools.coq_runner [--build DIR]``."""
    parser = argparse.ArgumentParser(prog="python -m tools.coq_runner", description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=BUILD)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        runner = build(args.build)
    except RunnerUnavailable as problem:
        print(f"coq runner: cannot build: {problem}", file=sys.stderr)
        return 2
    except RunnerBuildFailed as failure:
        print(f"coq runner: FAILED: {failure}", file=sys.stderr)
        return 1
    print(
        f"coq runner: built {runner.relative_to(ROOT) if runner.is_relative_to(ROOT) else runner} "
        f"in {time.perf_counter() - start:.1f} s",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
