"""Bad ``--operator-declarations`` files: each is refused with one line and exit 2, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.common.cli import check, one_line
from tests.common.custom_ops import fused_matmul_model


def _write(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        p = tmp / name
        p.write_bytes(data)
        return p

    return make


def _folder(tmp: Path) -> Path:
    (tmp / "folder.toml").mkdir()
    return tmp / "folder.toml"


CASES = [
    ("binary", _write("d.toml", b"\x00\xff\xfe garbage"), "not valid TOML"),
    ("not utf-8", _write("d.toml", b'version = 1\nname = "\xff"\n'), "not valid TOML"),
    ("too large", _write("d.toml", b"#" * ((1 << 20) + 1)), "more than the"),
    ("deep json", _write("d.json", b"[" * 100 + b"]" * 100), "nested deeper"),
    ("json list", _write("d.json", b"[]"), "expected a table of keys"),
    ("json nan", _write("d.json", b'{"version": NaN, "operator": []}'), "NaN is not JSON"),
    ("version bool", _write("d.json", b'{"version": true, "operator": []}'), "'version' must be 1"),
    ("operator not tables", _write("d.toml", b"version = 1\noperator = [1]\n"), "expected a table of keys"),
    ("empty name", _write("d.toml", b'version = 1\n[[operator]]\ndomain = "x"\nname = ""\ndeterministic = true\n'
                          b"inputs = { min = 1 }\noutputs = { min = 1 }\n"), "the name not empty"),
    ("huge since", _write("d.toml", b'version = 1\n[[operator]]\ndomain = "x"\nname = "y"\nsince = 99999999999\n'
                          b"deterministic = true\ninputs = { min = 1 }\noutputs = { min = 1 }\n"), "'since' must be"),
    ("folder", _folder, "cannot read"),
]


@pytest.mark.parametrize(("case", "make", "why"), CASES, ids=[c[0] for c in CASES])
def test_bad_declarations_file_one_line_exit_2(
    tmp_path: Path, case: str, make: Callable[[Path], Path], why: str
) -> None:
    model = fused_matmul_model(tmp_path / "m.onnx")
    code, out, err = check(str(model), "--operator-declarations", str(make(tmp_path)))
    one_line(code, out, err)
    assert why in err, (case, err)
