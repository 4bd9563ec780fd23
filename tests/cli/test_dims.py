"""``sonnx-check --dims``: the domains OP-SHAPES proves over, refused in one line when unusable, kept in bundles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sonnx.base.errors import UsageError
from sonnx.checking.options import RECORDED_KEYS, CheckOptions
from sonnx.cli import check_main, main
from sonnx.rules import PROFILE_STRICT
from sonnx.rules.shapes_terms import parse_dims
from tests.common.bundles import edit_json, rehash_all, verify, write
from tests.common.cli import call, one_line
from tests.common.shapekit import conv_net

pytestmark = pytest.mark.rule("OP-SHAPES")

STRICT = ("--profile", "sonnx-strict", "--required-metadata", "")


def _op_shapes(out: str) -> dict[str, object]:
    (v,) = [v for v in json.loads(out)["models"][0]["verdicts"] if v["rule"] == "OP-SHAPES"]
    return dict(v)


def test_the_declared_range_decides_the_verdict(tmp_path: Path) -> None:
    conv_net(tmp_path)
    model = str(tmp_path / "m.onnx")
    code, out, _ = call(check_main, *STRICT, "--format", "json", "--dims", "N=1..64", "--dims", "H=3..512", model)
    assert _op_shapes(out)["status"] == "PROVED"
    code, out, _ = call(check_main, *STRICT, "--format", "json", "--dims", "N=1..64", model)
    got = _op_shapes(out)
    assert got["status"] == "VIOLATED" and code == 1
    assert "H=1" in str(got["witness"])


@pytest.mark.parametrize(
    ("argument", "words"),
    [
        ("N=0..3", "at least 1"),
        ("N=5..2", "the range is empty"),
        ("N", "expected NAME=LO..HI"),
        ("N=1..x", "expected NAME=LO..HI"),
        ("", "expected NAME=LO..HI"),
        ("N=1..3,N=2", "given twice"),
        ("Q=1..3", "no symbolic input dimension 'Q'"),
        ("N=1..99999999999999999999", "above 2**62"),
    ],
)
def test_an_unusable_dims_value_is_refused_in_one_line(tmp_path: Path, argument: str, words: str) -> None:
    conv_net(tmp_path)
    code, out, err = call(check_main, *STRICT, "--dims", argument, str(tmp_path / "m.onnx"))
    one_line(code, out, err)
    assert words in err


def test_dims_needs_the_strict_profile(tmp_path: Path) -> None:
    conv_net(tmp_path)
    code, out, err = call(check_main, "--dims", "N=1..3", str(tmp_path / "m.onnx"))
    one_line(code, out, err)
    assert "sonnx-strict" in err


def test_the_syntax_reads_ranges_and_single_values() -> None:
    assert parse_dims(["N=1..64, H = 8", "x[0]=2..3"]) == (("N", 1, 64), ("H", 8, 8), ("x[0]", 2, 3))


def test_the_options_record_dims_only_when_given_and_read_an_old_record() -> None:
    old = CheckOptions(profile=PROFILE_STRICT).recorded()
    assert tuple(old) == RECORDED_KEYS
    assert CheckOptions.from_recorded(old, None).dims == ()
    given = CheckOptions(profile=PROFILE_STRICT, dims=(("N", 1, 64),))
    rec = given.recorded()
    assert rec["dims"] == [["N", 1, 64]]
    assert CheckOptions.from_recorded(rec, None) == given
    assert "--dims" in given.command_line("m.onnx") and "N=1..64" in given.command_line("m.onnx")
    for bad in ([], [["N", 0, 3]], [["N", 1]], "N=1..3", [[1, 1, 2]]):
        with pytest.raises(UsageError):
            CheckOptions.from_recorded({**rec, "dims": bad}, None)
    with pytest.raises(UsageError, match="exactly the keys"):
        CheckOptions.from_recorded({"dims": [["N", 1, 2]], **old}, None)


def test_a_bundle_replays_the_check_with_its_dims(tmp_path: Path) -> None:
    conv_net(tmp_path)
    model = tmp_path / "m.onnx"
    bundle = tmp_path / "bundle"
    assert write(bundle, model, *STRICT, "--dims", "N=1..64,H=3..512") in (0, 1)
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["dims"] == [["N", 1, 64], ["H", 3, 512]]
    assert verify(bundle)[0] in (0, 1)
    # the replay uses the recorded domains: widened, OP-SHAPES turns VIOLATED and the bundle no longer verifies
    edit_json(bundle / "manifest.json", lambda m: m["options"]["dims"][1].__setitem__(1, 1))
    rehash_all(bundle)
    code, out = verify(bundle)
    assert code == 1 and "verdicts.json: differs" in out and '"status": "VIOLATED"' in out


def test_rules_shows_the_spec_text_of_op_shapes() -> None:
    code, out, _ = call(main, "rules", "OP-SHAPES")
    assert code == 0 and "spec/operators.rst, section 3.1" in out and "admissible" in out


def test_the_api_takes_dims_as_text_or_triples(tmp_path: Path) -> None:
    from sonnx.api import check_options

    assert check_options(profile="sonnx-strict", dims="N=1..64,H=8").dims == (("N", 1, 64), ("H", 8, 8))
    assert check_options(profile="sonnx-strict", dims=[["N", 2, 3]]).dims == (("N", 2, 3),)
    with pytest.raises(UsageError, match="the range is empty"):
        check_options(profile="sonnx-strict", dims="N=3..2")
