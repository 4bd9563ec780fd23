"""The kit's data: the TORs come from the rule table, the packaged examples and known problems stay current."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

from sonnx.checking.qualify import requirements as tor
from sonnx.checking.qualify.cases import EXAMPLES_FOLDER, EXAMPLES_PACKAGE, suite
from sonnx.checking.qualify.models import BUILDERS, UNREADABLE, model_bytes
from sonnx.rules.registry import RULES
from tests.common.cli import EXAMPLES, ROOT
from tests.conformance import deviations
from tools import known_problems


def test_one_tor_per_rule_worded_from_the_spec_then_the_tools_own() -> None:
    reqs = tor.requirements()
    assert [r.rule for r in reqs[: len(RULES)]] == [r.id for r in RULES]
    for req, rule in zip(reqs, RULES, strict=False):
        assert req.id == f"TOR-{rule.id}" and req.title == rule.title
        assert " ".join(rule.statement.split()) in req.text and rule.spec in req.source
    ids = [r.id for r in reqs]
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"TOR-[A-Z0-9-]+", i) for i in ids)
    assert tor.UNKNOWN_NEVER_PASSES in ids and all(r.rule is None for r in reqs[len(RULES):])


def test_the_packaged_examples_are_the_shipped_ones() -> None:
    folder = resources.files(EXAMPLES_PACKAGE).joinpath(EXAMPLES_FOLDER)
    expected = json.loads((EXAMPLES / "expected.json").read_text(encoding="utf-8"))
    assert json.loads(folder.joinpath("expected.json").read_text("utf-8")) == expected
    names = {row["model"] for row in expected["cases"]}
    packaged = {p.name for p in folder.iterdir() if p.name.endswith(".onnx")}
    assert packaged == names
    for name in names:
        assert folder.joinpath(name).read_bytes() == (EXAMPLES / name).read_bytes(), name


def test_the_packaged_known_problems_are_current() -> None:
    text = (ROOT / known_problems.PACKAGED).read_text(encoding="utf-8")
    assert text == known_problems.packaged(), "run python -m tools.known_problems"
    ids = {p["id"] for p in json.loads(text)["problems"]}
    assert {f"KP-DEVIATION-{k}" for k in deviations.DEVIATIONS} <= ids
    assert {f"KP-REFUSAL-{k}" for k in deviations.REFUSALS} <= ids
    for limit in known_problems.LIMITATIONS:
        assert (ROOT / limit["source"].split()[0]).is_file(), limit["source"]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_planted_models_are_reproducible_bytes(name: str) -> None:
    assert model_bytes(name) == model_bytes(name)


def test_every_planted_model_and_unreadable_file_is_used_by_a_case() -> None:
    used = {c.model.removeprefix("planted:") for c in suite("full") if c.model.startswith("planted:")}
    assert used == set(BUILDERS) | set(UNREADABLE)
    ids = [c.id for c in suite("full")]
    assert len(ids) == len(set(ids))


def test_a_case_file_names_its_model_by_digest_and_is_given_as_a_path(tmp_path: Path) -> None:
    from sonnx.checking.qualify.cases import PLANTED
    from sonnx.checking.qualify.runner import write_files, write_model

    case = replace(PLANTED[0], files={"list.txt": "model {model_sha256}\n"}, id="QP-T")
    model = write_model(case, tmp_path)
    paths = write_files(case, model)
    assert paths == {"list.txt": str(tmp_path / "QP-T.list.txt")}
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    assert Path(paths["list.txt"]).read_text() == f"model {digest}\n"


def test_a_row_may_expect_a_status_the_check_does_not_give_and_then_fails(tmp_path: Path) -> None:
    from sonnx.checking.qualify.cases import PLANTED, Expected
    from sonnx.checking.qualify.runner import FAILED, run_case

    base = next(c for c in PLANTED if c.id == "QP-PLANT-UNUSED-INPUT")
    case = replace(base, expect=Expected(0, others={"WAIVED": ("GRAPH-C2",)}))
    result = run_case(case, tmp_path / "models")
    assert result.status == FAILED
    assert "GRAPH-C2: VIOLATED (error), expected WAIVED (error)" in result.differences
    assert case.to_json()["expected"]["WAIVED"] == ["GRAPH-C2"]


def test_a_crash_of_the_check_is_a_failed_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sonnx.checking.qualify import runner
    from sonnx.checking.qualify.cases import PLANTED

    def crash(*_args: object, **_kw: object) -> None:
        raise RuntimeError("planted crash")

    monkeypatch.setattr(runner, "check_models", crash)
    result = runner.run_case(PLANTED[0], tmp_path / "models")
    assert result.status == runner.FAILED
    assert result.differences == ("internal error: RuntimeError: planted crash",)
