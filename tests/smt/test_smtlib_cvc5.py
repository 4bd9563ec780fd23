"""SMT-LIB export: standalone files, re-solved by a second solver (cvc5) with the same answers."""

from __future__ import annotations

from pathlib import Path

from sonnx.cli import check_main
from sonnx.smt import expected_answer
from sonnx.smt.smtlib import cvc5_answers

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def cvc5_answer(text: str) -> str:
    """cvc5 (a dev dependency, so always installed in CI) must print exactly one answer."""
    answers = cvc5_answers(text)
    assert len(answers) == 1, answers
    return answers[0]


def _export(tmp_path: Path, *models: Path, extra: tuple[str, ...] = ()) -> list[Path]:
    out = tmp_path / "smt"
    code = check_main(["--quiet", "--smt-dir", str(out), *extra, *map(str, models)])
    assert code in (0, 1, 2)
    return sorted(out.glob("*.smt2"))


def test_exported_obligations_give_the_same_answers_in_cvc5(tmp_path: Path) -> None:
    files = _export(tmp_path, *sorted(EXAMPLES.glob("*.onnx")))
    assert len(files) >= 8 * 10
    answers = set()
    for f in files:
        text = f.read_text()
        assert text.startswith("; sonnx proof obligation")
        want = expected_answer(text)
        assert want in ("sat", "unsat"), f
        assert cvc5_answer(text) == want, f
        answers.add(want)
    assert answers == {"sat", "unsat"}  # both kinds of answer are exercised


def test_certificate_mode_exports_check_in_cvc5_too(tmp_path: Path) -> None:
    from sonnx.loader import load_model
    from sonnx.smt import run_smt, write_obligations

    for name in ("seed001_example.onnx", "acyclic_cycle.onnx", "c3_incomplete.onnx", "unsorted_acyclic.onnx"):
        run = run_smt(load_model(str(EXAMPLES / name)), mode="certificate")
        for f in write_obligations(run.obligations, tmp_path / "cert", name):
            text = f.read_text()
            assert cvc5_answer(text) == expected_answer(text), f


def test_smt_dir_requires_an_smt_engine(tmp_path: Path) -> None:
    code = check_main(["--quiet", "--engine", "direct", "--smt-dir", str(tmp_path), str(EXAMPLES / "cnn_block.onnx")])
    assert code == 2
