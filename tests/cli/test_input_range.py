"""--input-range: the declared ranges the error-condition rules assume, refused when malformed, recorded and
replayed by ``sonnx evidence verify``; a bundle written before the option existed still verifies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.checking.option_values import parse_input_range
from sonnx.checking.options import RECORDED_KEYS, CheckOptions
from tests.common.bundles import copy_of, edit_json, rehash_all, verify, write
from tests.common.cli import check, one_line

pytestmark = pytest.mark.rule("OP-ERROR-LOG")


@pytest.fixture(scope="module")
def log_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("logm")
    g = helper.make_graph([helper.make_node("Log", ["x"], ["y"], name="the_log")], "main",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    onnx.save(m, d / "log.onnx")
    return d / "log.onnx"


STRICT = ("--profile", "sonnx-strict", "--required-metadata", "", "--engine", "direct")


@pytest.mark.parametrize("value", ["x", "x=1", "x=a..2", "x=2..1", "=0..1", "x=0..inf", "x=nan..1"])
def test_a_malformed_range_is_one_line_and_exit_2(log_model: Path, value: str) -> None:
    code, out, err = check(*STRICT, "--input-range", value, str(log_model))
    one_line(code, out, err)
    assert "--input-range" in err


def test_a_range_for_an_input_the_model_lacks_is_refused(log_model: Path) -> None:
    code, out, err = check(*STRICT, "--input-range", "z=0..1", str(log_model))
    one_line(code, out, err)
    assert "'z'" in err


def test_a_range_outside_the_strict_profile_or_given_twice_is_refused(log_model: Path) -> None:
    one_line(*check("--input-range", "x=1..2", str(log_model)))
    one_line(*check(*STRICT, "--input-range", "x=1..2", "--input-range", "x=1..3", str(log_model)))


def test_the_verdict_follows_the_range_and_the_exit_code_with_it(log_model: Path) -> None:
    code, out, _ = check(*STRICT, "--json", str(log_model))
    verdicts = {v["rule"]: v for v in json.loads(out)["models"][0]["verdicts"]}
    assert code == 1 and verdicts["OP-ERROR-LOG"]["status"] == "VIOLATED"
    assert verdicts["OP-ERROR-LOG"]["witness"]["operations"][0]["name"] == "the_log"
    code, out, _ = check(*STRICT, "--json", "--input-range", "x=0.5..2", str(log_model))
    verdicts = {v["rule"]: v for v in json.loads(out)["models"][0]["verdicts"]}
    assert code == 0 and verdicts["OP-ERROR-LOG"]["status"] == "PROVED"
    assert verdicts["OP-ERROR-LOG"]["details"]["assumed_input_ranges"]["x"]["from"] == "--input-range"


def test_the_ranges_are_recorded_and_replayed_and_an_edit_is_caught(log_model: Path, tmp_path: Path) -> None:
    dest = tmp_path / "bundle"
    assert write(dest, log_model, *STRICT, "--input-range", "x=0.5..2") == 0
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["input_ranges"] == [["x", 0.5, 2]]
    assert "--input-range" in manifest["command_line"] and "x=0.5..2" in manifest["command_line"]
    code, out = verify(dest)
    assert code == 0 and out.startswith("verified"), out
    forged = copy_of(dest, tmp_path)
    edit_json(forged / "manifest.json", lambda m: m["options"].update(input_ranges=[["x", -1, 2]]))
    rehash_all(forged)
    code, out = verify(forged)
    assert code == 1, out


def test_a_bundle_recorded_without_the_key_replays_as_no_range() -> None:
    recorded = CheckOptions(profile="sonnx-strict").recorded()
    assert tuple(recorded) == RECORDED_KEYS  # the key is written only when ranges are declared
    assert CheckOptions.from_recorded(recorded, None).input_ranges is None


def test_integer_bounds_stay_exact() -> None:
    assert parse_input_range("ids=0..9007199254740993") == ("ids", 0, 9007199254740993)
    assert np.isclose(parse_input_range(" x = -1.5..1e3")[1], -1.5)


def test_the_python_api_takes_the_ranges_as_strings_or_triples(log_model: Path) -> None:
    from sonnx.api import check as api_check

    for ranges in (["x=0.5..2"], [("x", 0.5, 2)]):
        report = api_check(str(log_model), profile="sonnx-strict", engine="direct", required_metadata="",
                           input_ranges=ranges)
        (v,) = [v for v in report.verdicts if v.rule_id == "OP-ERROR-LOG"]
        assert v.status.value == "PROVED"
