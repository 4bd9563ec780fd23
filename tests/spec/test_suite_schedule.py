"""The suite hands its longest files to the workers first (``tests/common/schedule.py``), losing no test."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.common.schedule import LONGEST_FIRST, longest_first

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Collected:
    nodeid: str


def test_every_listed_file_is_a_test_file_of_the_suite_named_once() -> None:
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    for name in LONGEST_FIRST:
        assert re.fullmatch(r"tests/[a-z_]+/test_[a-z0-9_]+\.py", name) and (ROOT / name).is_file(), name


def test_listed_files_come_first_in_their_order_then_the_others_by_size() -> None:
    first, second = LONGEST_FIRST[1], LONGEST_FIRST[0]
    items = [
        Collected("tests/a/test_small.py::t1"),
        Collected("tests/a/test_big.py::t1"),
        Collected(f"{first}::t1"),
        Collected("tests/a/test_big.py::t2[x]"),
        Collected("tests/a/test_big.py::t2[y]"),
        Collected(f"{second}::t1"),
        Collected("tests/a/test_other.py::t1"),
        Collected(f"{first}::t0"),
        Collected("tests/a/test_small.py::t2"),
        Collected("tests/a/test_other.py::t2"),
    ]
    ordered = [item.nodeid for item in longest_first(items)]
    assert ordered == [
        f"{second}::t1",
        f"{first}::t1",
        f"{first}::t0",
        "tests/a/test_big.py::t1",
        "tests/a/test_big.py::t2[x]",
        "tests/a/test_big.py::t2[y]",
        "tests/a/test_small.py::t1",
        "tests/a/test_small.py::t2",
        "tests/a/test_other.py::t1",
        "tests/a/test_other.py::t2",
    ]


def test_the_suite_as_collected_starts_with_the_listed_files(request: pytest.FixtureRequest) -> None:
    session = request.session
    files: list[str] = []
    for item in session.items:
        name = item.nodeid.split("::", 1)[0]
        if not files or files[-1] != name:
            files.append(name)
    assert len(files) == len(set(files)), "a file's tests must stay together"
    collected = [name for name in LONGEST_FIRST if name in files]
    assert files[: len(collected)] == collected
