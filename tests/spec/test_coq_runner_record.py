"""The extracted runner is built from a Coq check's record only for the very same inputs.

``tools/coq_record.py`` keeps, beside the ``Print Assumptions`` output of a
passing check, the OCaml its compile extracted; ``tools/coq_runner.py`` then
compiles that OCaml with ``ocamlfind`` instead of compiling the Coq files again
(the differential test of ``tests/model/test_coq_runner.py`` does). These tests
plant each way the reuse could hide a change: a record of other inputs, one
without the extraction or with part of it, and a project that changed since;
and they check that a check's record holds exactly what coqc extracted. The
last test compiles and needs ``coqc`` (a strict xfail without it); the others put a fake coqc
(which only prints its version) first on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tools import coq_check, coq_record, coq_runner

NEEDS_COQC = pytest.mark.xfail(
    shutil.which("coqc") is None,
    reason="coqc not found: install Debian's coq (apt-get install coq); CI installs it",
    strict=True,
    raises=coq_check.CoqCheckUnusable,
)

EXTRACTED = ("sonnx_nested.ml", "sonnx_nested.mli", "sonnx_runner.ml", "sonnx_runner.mli")


def _copy_project(tmp_path: Path) -> Path:
    """A copy of the shipped development, so that a test may edit it."""
    project = tmp_path / "coq"
    shutil.copytree(coq_check.PROJECT, project)
    return project


def _forge(verified: Path, project: Path, extracted: dict[str, str]) -> Path:
    """A well-formed record of ``project``'s current inputs holding ``extracted`` (no compile behind it)."""
    _root, files = coq_check.read_project(project)
    entries = coq_check.read_table(project, files)
    record = verified / f"{coq_check.inputs_digest(project, files)}.json"
    coq_record.remember(record, {e.qualified: coq_check.CLOSED for e in entries}, extracted)
    return record


@pytest.fixture
def fake_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A coqc that only prints a version (the digest reads it) and an ocamlfind, first on PATH."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("coqc", "ocamlfind"):
        (folder / tool).write_text("#!/bin/sh\necho 'The Coq Proof Assistant, version 8.16.1'\n", encoding="utf-8")
        (folder / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ.get('PATH', '')}")


def _recorded(tag: str) -> dict[str, str]:
    return {name: f"(* {tag} {name} *)\n" for name in EXTRACTED}


@pytest.mark.usefixtures("fake_tools")
def test_a_record_of_the_same_inputs_gives_its_extraction_and_no_other_does(tmp_path: Path) -> None:
    project = _copy_project(tmp_path)
    verified = tmp_path / "records"
    assert coq_runner.recorded_extraction(verified, project) is None
    record = _forge(verified, project, _recorded("kept"))
    assert coq_runner.recorded_extraction(verified, project) == _recorded("kept")
    # the same record under another project's inputs: an edited proof changes the digest
    with (project / "Semantics.v").open("a", encoding="utf-8") as out:
        out.write("\n")
    assert coq_runner.recorded_extraction(verified, project) is None
    assert record.is_file()


@pytest.mark.usefixtures("fake_tools")
@pytest.mark.parametrize("kept", [{}, {name: "x" for name in EXTRACTED[:3]}], ids=["none", "partial"])
def test_a_record_without_the_whole_extraction_is_not_used(tmp_path: Path, kept: dict[str, str]) -> None:
    project = _copy_project(tmp_path)
    verified = tmp_path / "records"
    record = _forge(verified, project, kept)
    assert coq_runner.recorded_extraction(verified, project) is None
    data = json.loads(record.read_text(encoding="utf-8"))
    data["extracted"] = {**_recorded("kept"), EXTRACTED[0]: 1}
    record.write_text(json.dumps(data), encoding="utf-8")
    assert coq_runner.recorded_extraction(verified, project) is None


@pytest.mark.usefixtures("fake_tools")
def test_the_build_compiles_the_recorded_extraction_without_coqc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _copy_project(tmp_path)
    _forge(tmp_path / "records", project, _recorded("forged"))
    steps: list[list[str]] = []

    def step(command: list[str], cwd: Path, what: str) -> None:
        steps.append(list(command))
        raise coq_runner.RunnerBuildFailed(f"{what}: stopped by the test")

    monkeypatch.setattr(coq_runner, "_step", step)
    with pytest.raises(coq_runner.RunnerBuildFailed, match="ocamlfind ocamlopt: stopped"):
        coq_runner.build(tmp_path / "build", project, verified=tmp_path / "records")
    assert [command[0] for command in steps] == ["ocamlfind"]
    assert (tmp_path / "build" / "sonnx_runner.ml").read_text(encoding="utf-8") == "(* forged sonnx_runner.ml *)\n"
    # Without the records folder, or with a record of other inputs, the Coq files are compiled.
    for verified in (None, tmp_path / "elsewhere"):
        steps.clear()
        with pytest.raises(coq_runner.RunnerBuildFailed, match=r"coqc Semantics\.v: stopped"):
            coq_runner.build(tmp_path / "build", project, verified=verified)
        assert steps == [["coqc", "-Q", ".", "SONNX", "Semantics.v"]]


GOOD = "Definition double (n : nat) : nat := n + n.\nTheorem good : double 1 = 2.\nProof. reflexivity. Qed.\n"
EXTRACT = 'From Coq Require Extraction.\nRequire Import SONNX.Good.\nExtraction "double.ml" double.\n'


@NEEDS_COQC
def test_a_passing_check_records_exactly_what_coqc_extracted(tmp_path: Path) -> None:
    project = tmp_path / "coq"
    project.mkdir()
    (project / "Good.v").write_text(GOOD, encoding="utf-8")
    (project / "Extract.v").write_text(EXTRACT, encoding="utf-8")
    (project / "_CoqProject").write_text("-Q . SONNX\nGood.v\nExtract.v\n", encoding="utf-8")
    (project / "theorems.txt").write_text("good Good.v GRAPH-ACYCLIC\n", encoding="utf-8")
    verified = tmp_path / "records"
    coq_check.check(project, tmp_path / "build", None, say=False, verified=verified)
    [record] = verified.glob("*.json")
    written = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "build").glob("double.ml*")}
    assert sorted(written) == ["double.ml", "double.mli"] and "double" in written["double.ml"]
    kept = coq_record.recall_extracted(record, ["SONNX.Good.good"], ["double.ml", "double.mli"])
    assert kept == written
    assert coq_record.recall_extracted(record, ["SONNX.Good.good"], ["double.ml", "other.ml"]) is None
    assert coq_record.recall_extracted(record, ["SONNX.Good.other"], ["double.ml"]) is None
