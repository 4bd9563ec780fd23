"""A Coq check reuses an earlier one only for the very same inputs, and never takes a pass on trust.

``tools/coq_record.py`` keeps the ``Print Assumptions`` output of a passing
check under the digest of its inputs, so the Coq step of ``make test``, the
test of the shipped development and the docs build compile the development
once per tree. These tests plant each way a record could hide a change: an
edited proof, another coqc, a record that is malformed, names another digest
or lists other theorems, and a recorded assumption the table does not allow.
The tests that compile need ``coqc`` (a strict xfail without it, as in
``test_coq_build.py``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools import coq_check, coq_record
from tools.coq_check import CoqCheckFailed, check

NEEDS_COQC = pytest.mark.xfail(
    shutil.which("coqc") is None,
    reason="coqc not found: install Debian's coq (apt-get install coq); CI installs it",
    strict=True,
    raises=coq_check.CoqCheckUnusable,
)

GOOD = (
    "Section S.\nVariable n : nat.\nHypothesis positive : 0 < n.\nTheorem good : 0 < n.\n"
    "Proof. exact positive. Qed.\nEnd S.\n"
)
THEOREM = "SONNX.Good.good"


def _project(tmp_path: Path, text: str = GOOD) -> Path:
    project = tmp_path / "coq"
    project.mkdir(exist_ok=True)
    (project / "Good.v").write_text(text, encoding="utf-8")
    (project / "_CoqProject").write_text("-Q . SONNX\nGood.v\n", encoding="utf-8")
    (project / "theorems.txt").write_text("good Good.v GRAPH-ACYCLIC\n", encoding="utf-8")
    return project


def _check(tmp_path: Path, project: Path) -> str:
    return check(project, tmp_path / "build", tmp_path / "listing.txt", say=False, verified=tmp_path / "records")


def _no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> float:
        raise AssertionError("coqc ran although a record of the same inputs was there")

    monkeypatch.setattr(coq_check, "_coqc", refuse)


@NEEDS_COQC
def test_a_second_check_of_the_same_inputs_compiles_nothing_and_lists_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    first = _check(tmp_path, project)
    assert first.startswith("Coq check PASSED") and "earlier check" not in first
    listing = (tmp_path / "listing.txt").read_text(encoding="utf-8")
    assert len(list((tmp_path / "records").glob("*.json"))) == 1
    (tmp_path / "listing.txt").unlink()
    _no_compiling(monkeypatch)
    second = _check(tmp_path, project)
    assert second.startswith("Coq check PASSED: 1 files, 1 theorems") and "compiled by an earlier check" in second
    assert (tmp_path / "listing.txt").read_text(encoding="utf-8") == listing


@NEEDS_COQC
def test_a_proof_edited_after_a_passing_check_is_compiled_again_and_refused(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _check(tmp_path, project)
    _project(tmp_path, GOOD.replace("exact positive.", "exact I."))
    with pytest.raises(CoqCheckFailed, match=r"^proofs/coq/Good\.v:5: coqc: Error"):
        _check(tmp_path, project)


@NEEDS_COQC
def test_a_recorded_assumption_the_table_does_not_allow_is_refused(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _check(tmp_path, project)
    [record] = (tmp_path / "records").glob("*.json")
    data = json.loads(record.read_text(encoding="utf-8"))
    data["printed"][THEOREM] = "Axioms:\nclassic : forall P : Prop, P \\/ ~ P"
    record.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CoqCheckFailed, match=r"good rests on classic, which theorems.txt does not allow"):
        _check(tmp_path, project)


@NEEDS_COQC
def test_without_a_records_folder_nothing_is_reused_or_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path)
    _check(tmp_path, project)
    ran: list[object] = []
    compile_one = coq_check._coqc
    monkeypatch.setattr(coq_check, "_coqc", lambda *args: ran.append(args) or compile_one(*args))
    check(project, tmp_path / "build", tmp_path / "listing.txt", say=False)
    assert ran, "a check without records must compile"
    summary = check(project, tmp_path / "fresh", None, say=False, verified=tmp_path / "other", remember=False)
    assert "earlier check" not in summary and not (tmp_path / "other").exists()


def test_the_digest_changes_with_the_coqc_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path)
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    fake = folder / "coqc"
    digests = []
    for version in ("8.16.1", "8.17.0", "8.16.1"):
        fake.write_text(f"#!/bin/sh\necho 'The Coq Proof Assistant, version {version}'\n", encoding="utf-8")
        fake.chmod(0o755)
        digests.append(coq_check.inputs_digest(project, ["Good.v"]))
    assert digests[0] != digests[1] and digests[0] == digests[2]


@pytest.mark.parametrize("part", ["_CoqProject", "theorems.txt", "Good.v"])
def test_the_digest_changes_with_every_input_file(tmp_path: Path, part: str) -> None:
    project = _project(tmp_path)
    before = coq_check.inputs_digest(project, ["Good.v"])
    with (project / part).open("a", encoding="utf-8") as out:
        out.write("\n")
    assert coq_check.inputs_digest(project, ["Good.v"]) != before


def test_the_digest_frames_each_part_so_moved_bytes_differ() -> None:
    assert coq_record.digest([("a", b"xy"), ("b", b"z")]) != coq_record.digest([("a", b"x"), ("b", b"yz")])


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps({"format": coq_record.FORMAT, "digest": "another", "printed": {THEOREM: "Closed"}}),
        json.dumps({"format": 0, "digest": "{stem}", "printed": {THEOREM: "Closed"}}),
        json.dumps({"format": coq_record.FORMAT, "digest": "{stem}", "printed": {}}),
        json.dumps({"format": coq_record.FORMAT, "digest": "{stem}", "printed": {THEOREM: "x", "SONNX.A.b": "x"}}),
        json.dumps({"format": coq_record.FORMAT, "digest": "{stem}", "printed": {THEOREM: 1}}),
        json.dumps([1, 2]),
    ],
    ids=["malformed", "other-digest", "other-format", "no-theorem", "extra-theorem", "not-text", "not-an-object"],
)
def test_an_unusable_record_is_not_read(tmp_path: Path, content: str) -> None:
    record = tmp_path / "abc123.json"
    record.write_text(content.replace("{stem}", record.stem), encoding="utf-8")
    assert coq_record.recall(record, [THEOREM]) is None


def test_a_written_record_is_read_back_whole(tmp_path: Path) -> None:
    record = tmp_path / "records" / "abc123.json"
    coq_record.remember(record, {THEOREM: "Closed under the global context"})
    assert coq_record.recall(record, [THEOREM]) == {THEOREM: "Closed under the global context"}
    assert coq_record.recall(tmp_path / "records" / "absent.json", [THEOREM]) is None
    assert [p.name for p in record.parent.iterdir()] == ["abc123.json"]
