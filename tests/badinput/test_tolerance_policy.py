"""``--tolerance``: a policy sonnx does not have, or one combined with options it excludes, is a one-line refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.common.cli import EXAMPLES, check, one_line, sonnx

MODEL = str(EXAMPLES / "strict_dense.onnx")


@pytest.mark.parametrize("argv", [
    ["--cross-check", "onnxruntime", "--tolerance", "loose"],
    ["--cross-check", "onnxruntime", "--tolerance", ""],
    ["--cross-check", "onnxruntime", "--tolerance", "sonnx-wg", "--ulp", "3"],
    ["--cross-check", "onnxruntime", "--tolerance", "sonnx-wg", "--atol", "1e-3"],
    ["--tolerance", "sonnx-wg"],
], ids=["unknown", "empty", "with-ulp", "with-atol", "without-cross-check"])
def test_sonnx_check_refuses(argv: list[str]) -> None:
    code, out, err = check(MODEL, *argv)
    one_line(code, out, err)
    assert "--tolerance" in err


def test_crosscheck_and_equiv_refuse(tmp_path: Path) -> None:
    one_line(*sonnx("crosscheck", MODEL, "--tolerance", "wg"))
    code, out, err = sonnx("equiv", MODEL, MODEL, "--tolerance", "sonnx-wg")
    one_line(code, out, err)
    assert "applies to the cross-check" in err
