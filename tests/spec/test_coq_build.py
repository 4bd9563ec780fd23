"""The Coq checker of ``make proofs`` refuses every way a theorem can rest on something unproved.

``tools/coq_check.py`` is what makes the Coq theorems of ``proofs/coq/`` evidence
(GRAPH-ACYCLIC and the semantics of spec/graph.rst section 3): each test plants
one defect in a tiny development in ``tmp_path`` (an ``Admitted``, an
``admit``, an ``Axiom``, a global ``Variable``, a theorem that uses a standard
library axiom, a theorem or file left out of the lists) and checks that the
checker names it. The tests that compile need ``coqc``; without it they are a
strict xfail with the reason (CI installs Debian's coq, so there they run).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tools import coq_check
from tools.coq_check import CoqCheckFailed, check, scan

NEEDS_COQC = pytest.mark.xfail(
    shutil.which("coqc") is None,
    reason="coqc not found: install Debian's coq (apt-get install coq); CI installs it",
    strict=True,
    raises=coq_check.CoqCheckUnusable,
)

GOOD = """(* A proof that 'Admitted' in a comment does not fail: "admit" in a string neither. *)
Section S.
Variable n : nat.
Hypothesis positive : 0 < n.
Theorem good : 0 < n.
Proof. exact positive. Qed.
End S.
"""


def _project(tmp_path: Path, files: dict[str, str], table: str) -> Path:
    """A development in tmp_path/coq: the files in the given order, _CoqProject and theorems.txt."""
    project = tmp_path / "coq"
    project.mkdir()
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")
    (project / "_CoqProject").write_text("-Q . SONNX\n" + "".join(f"{n}\n" for n in files), encoding="utf-8")
    (project / "theorems.txt").write_text(table, encoding="utf-8")
    return project


def _run(tmp_path: Path, project: Path) -> str:
    return check(project, tmp_path / "build", tmp_path / "listing.txt", say=False)


@NEEDS_COQC
def test_the_shipped_development_passes_with_every_theorem_closed(tmp_path: Path) -> None:
    # The record the Coq step of make test leaves for these very inputs is read when present (it writes none).
    summary = check(
        coq_check.PROJECT, tmp_path / "build", tmp_path / "listing.txt", say=False, verified=coq_check.VERIFIED,
        remember=False,
    )
    assert summary.startswith("Coq check PASSED")
    listing = (tmp_path / "listing.txt").read_text(encoding="utf-8")
    assert "SONNX.Acyclic.acyclic_iff_strict_rank  (Acyclic.v; supports GRAPH-ACYCLIC)" in listing
    assert listing.count("Closed under the global context") == listing.count("; supports ")
    assert not list(coq_check.PROJECT.glob("*.vo")), "build outputs must stay out of proofs/coq"


@NEEDS_COQC
def test_a_clean_development_with_section_hypotheses_passes(tmp_path: Path) -> None:
    project = _project(tmp_path, {"Good.v": GOOD}, "good Good.v GRAPH-ACYCLIC\n")
    assert _run(tmp_path, project).startswith("Coq check PASSED")
    assert "SONNX.Good.good  (Good.v; supports GRAPH-ACYCLIC)\n    Closed" in (tmp_path / "listing.txt").read_text()


@pytest.mark.parametrize(
    ("text", "line", "word"),
    [
        ("Theorem t : 1 = 2.\nProof.\nAdmitted.\n", 3, "Admitted"),
        ("Theorem t : 1 = 2.\nProof.\n  admit.\nQed.\n", 3, "admit"),
        ("Axiom ax : False.\nTheorem t : False.\nProof. exact ax. Qed.\n", 1, "Axiom"),
        ("Parameter p : False.\nTheorem t : False.\nProof. exact p. Qed.\n", 1, "Parameter"),
        ("Conjecture c : False.\n", 1, "Conjecture"),
        ("\n\nAdmit   Obligations.\n", 3, "Admit Obligations"),
        ("Unset Guard Checking.\n", 1, "Unset Guard Checking"),
    ],
)
@NEEDS_COQC
def test_an_unproved_step_is_refused_with_its_file_and_line(tmp_path: Path, text: str, line: int, word: str) -> None:
    project = _project(tmp_path, {"Good.v": GOOD, "Bad.v": text}, "good Good.v R\nt Bad.v R\n")
    with pytest.raises(CoqCheckFailed, match=rf"^proofs/coq/Bad\.v:{line}: '{word}' "):
        _run(tmp_path, project)


@NEEDS_COQC
def test_a_section_assumption_outside_a_section_is_refused(tmp_path: Path) -> None:
    text = "Section S.\nVariable a : nat.\nEnd S.\nHypothesis h : False.\n"
    project = _project(tmp_path, {"Bad.v": text}, "")
    with pytest.raises(CoqCheckFailed, match=r"^proofs/coq/Bad\.v:4: 'Hypothesis' outside a Section"):
        _run(tmp_path, project)


@NEEDS_COQC
def test_a_theorem_resting_on_a_library_axiom_is_refused(tmp_path: Path) -> None:
    text = (
        "From Coq Require Import Classical.\n\nTheorem em : forall P : Prop, P \\/ ~ P.\nProof. exact classic. Qed.\n"
    )
    project = _project(tmp_path, {"Em.v": text}, "em Em.v R\n")
    with pytest.raises(
        CoqCheckFailed, match=r"^proofs/coq/Em\.v:3: em rests on Classical_Prop\.classic, which theorems.txt"
    ):
        _run(tmp_path, project)


@NEEDS_COQC
def test_an_assumption_the_table_allows_is_accepted_and_listed(tmp_path: Path) -> None:
    text = "From Coq Require Import Classical.\nTheorem em : forall P : Prop, P \\/ ~ P.\nProof. exact classic. Qed.\n"
    project = _project(tmp_path, {"Em.v": text}, "em Em.v R Classical_Prop.classic\n")
    assert _run(tmp_path, project).startswith("Coq check PASSED")
    assert "    Classical_Prop.classic : forall P : Prop, P \\/ ~ P" in (tmp_path / "listing.txt").read_text()


@NEEDS_COQC
def test_a_theorem_missing_from_the_table_is_refused(tmp_path: Path) -> None:
    project = _project(tmp_path, {"Good.v": GOOD}, "")
    with pytest.raises(CoqCheckFailed, match=r"^proofs/coq/Good\.v:5: Theorem good is not in theorems.txt"):
        _run(tmp_path, project)


@NEEDS_COQC
def test_a_table_row_naming_no_theorem_is_refused_with_its_row(tmp_path: Path) -> None:
    project = _project(tmp_path, {"Good.v": GOOD}, "# rows\n\ngood Good.v R\ngone Good.v R\n")
    with pytest.raises(CoqCheckFailed, match=r"^proofs/coq/theorems\.txt:4: coqc: Error: .*gone"):
        _run(tmp_path, project)


@NEEDS_COQC
def test_a_file_missing_from_the_project_is_refused(tmp_path: Path) -> None:
    project = _project(tmp_path, {"Good.v": GOOD}, "good Good.v R\n")
    (project / "Extra.v").write_text("Theorem x : True. Proof. Admitted.\n", encoding="utf-8")
    with pytest.raises(CoqCheckFailed, match=r"Extra\.v is in the folder but not listed"):
        _run(tmp_path, project)


@NEEDS_COQC
def test_a_proof_coq_rejects_is_refused_with_coqs_line(tmp_path: Path) -> None:
    text = "Theorem t : 1 = 1.\nProof.\n  exact I.\nQed.\n"
    project = _project(tmp_path, {"Bad.v": text}, "t Bad.v R\n")
    with pytest.raises(CoqCheckFailed, match=r"^proofs/coq/Bad\.v:3: coqc: Error"):
        _run(tmp_path, project)


def test_comments_strings_and_section_hypotheses_are_not_flagged(tmp_path: Path) -> None:
    path = tmp_path / "Good.v"
    path.write_text(GOOD + '(* nested (* Axiom *) Admitted *)\nDefinition s := "Axiom ""admit"" ".\n')
    scan(path, "Good.v")


def test_without_coqc_make_test_reports_not_run_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(coq_check, "_install_coq", lambda: False)
    monkeypatch.setattr(coq_check, "STATUS", tmp_path / "status.txt")
    monkeypatch.delenv("CI", raising=False)
    assert coq_check.main(["--if-available"]) == 0
    assert f"*** {coq_check.NOT_RUN} ***" in capsys.readouterr().out
    assert (tmp_path / "status.txt").read_text().startswith("NOT RUN")
    monkeypatch.setenv("CI", "true")
    assert coq_check.main(["--if-available"]) == 2
    assert coq_check.main([]) == 2


def test_every_assumption_print_assumptions_lists_is_read_whatever_its_layout() -> None:
    text = (
        "Axioms:\nclassic : forall P : Prop, P \\/ ~ P\nAcyclic.acyclic_longest_below\n"
        "  : forall (es : list (nat * nat)) (n : nat),\n    Acyclic.within es n -> True\n"
        "Section Variables:\nn : nat"
    )
    assert coq_check._assumed(text) == ["classic", "Acyclic.acyclic_longest_below", "n"]
    assert coq_check._assumed(coq_check.CLOSED) == []
    assert coq_check._assumed("Fixpoint f relies on an unsafe hypothesis.") == [
        "Fixpoint f relies on an unsafe hypothesis."
    ]
