"""SMT-LIB export: standalone files, re-solved by a second solver (cvc5) with the same answers."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

from sonnx.cli import check_main
from sonnx.smt import expected_answer

cvc5 = pytest.importorskip("cvc5")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def cvc5_answer(text: str) -> str:
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("produce-models", "false")
    sm = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, sm)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "obligation")
    answers: List[str] = []
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            break
        out = cmd.invoke(solver, sm).strip()
        if out:
            answers.append(out)
    assert len(answers) == 1, answers
    return answers[0]


def _export(tmp_path: Path, *models: Path, extra: tuple[str, ...] = ()) -> List[Path]:
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
