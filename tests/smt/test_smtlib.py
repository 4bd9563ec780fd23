"""The exported file of one obligation: its header, its script and its name on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from sonnx.smt.smtlib import Obligation, expected_answer, write_obligations


def _ob(name: str = "r.ob", answer: str = "", notes: list[str] | None = None) -> Obligation:
    ob = Obligation("GRAPH-X", name, "QF_UF", ["(declare-fun p () Bool)", "(assert p)"], "sat", "search", "p holds")
    ob.answer = answer
    ob.notes = notes or []
    return ob


def test_the_file_is_the_header_the_logic_the_script_and_check_sat() -> None:
    text = _ob(answer="sat", notes=["solved in 0.1 s"]).render()
    assert text == (
        "; sonnx proof obligation r.ob\n"
        "; rule: GRAPH-X\n"
        "; mode: search\n"
        "; meaning: p holds\n"
        "; the property holds when the answer is: sat\n"
        "; expected answer: sat\n"
        "; solved in 0.1 s\n"
        "(set-logic QF_UF)\n"
        "(declare-fun p () Bool)\n"
        "(assert p)\n"
        "(check-sat)\n"
        "(exit)\n"
    )
    assert expected_answer(text) == "sat"


def test_an_obligation_never_solved_says_so_in_its_header() -> None:
    text = _ob().render()
    assert "; expected answer: not solved\n" in text
    with pytest.raises(ValueError, match="no expected answer"):
        expected_answer("(check-sat)\n")


def test_the_script_is_the_body_alone_and_the_body_is_kept_once() -> None:
    ob = _ob()
    assert ob.script() == "(declare-fun p () Bool)\n(assert p)\n" and ob.body == []
    empty = Obligation("GRAPH-X", "e", "QF_UF", [], "sat", "search", "nothing")
    assert empty.script() == "" and empty.render().endswith("(set-logic QF_UF)\n(check-sat)\n(exit)\n")


def test_files_are_named_by_the_model_and_the_obligation(tmp_path: Path) -> None:
    obs = [_ob("c1.distinct.part0", "sat"), _ob("odd name/with:chars", "unsat")]
    paths = write_obligations(obs, tmp_path / "out", "/some/dir/my model.onnx")
    assert [p.name for p in paths] == ["my_model.c1.distinct.part0.smt2", "my_model.odd_name_with_chars.smt2"]
    assert [p.read_text(encoding="utf-8") for p in paths] == [ob.render() for ob in obs]
    for stem, name in (("", "model.c1.distinct.part0.smt2"), ("a b", "a_b.c1.distinct.part0.smt2")):
        assert [p.name for p in write_obligations(obs[:1], tmp_path, "x.onnx", stem=stem)] == [name]
