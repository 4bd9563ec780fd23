"""onnx's own backend test suites run against :mod:`sonnx.execution.backend`.

``onnx.backend.test.BackendTest`` is how runtimes report conformance: it
drives a backend through ``prepare`` and ``run`` over the node cases and the
simple, PyTorch-converted, PyTorch-operator and light-model suites of the
installed onnx, and compares outputs with each case's tolerances. Every case
passes, or is listed in :mod:`tests.conformance.deviations`: a deviation is a
strict expected failure (a case that starts passing fails until its entry is
removed), a refusal must fail with the stated message.

The tests of other devices are removed (sonnx has one device, CPU), not skipped one by one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import onnx.backend.test
import pytest

from sonnx.base.errors import SonnxError
from sonnx.execution.backend import SonnxBackend
from tests.conformance.deviations import DEVIATIONS, REFUSALS

SUFFIX = "_cpu"


def _expected_failure(test: Callable[[Any], None], reason: str) -> Callable[[Any], None]:
    @functools.wraps(test)
    def run(self: Any) -> None:
        try:
            test(self)
        except Exception:
            pytest.xfail(reason)
        raise AssertionError(f"listed as a deviation but passes: remove its entry ({reason})")

    return run


def _refused(test: Callable[[Any], None], message: str, reason: str) -> Callable[[Any], None]:
    @functools.wraps(test)
    def run(self: Any) -> None:
        try:
            test(self)
        except SonnxError as exc:
            if not re.search(message, str(exc)):
                raise AssertionError(f"refused with {str(exc)!r}, expected a message matching {message!r}") from exc
            pytest.xfail(f"refused: {reason}")
        raise AssertionError(f"listed as a refusal but runs: remove its entry ({reason})")

    return run


def build() -> dict[str, type]:
    """onnx's test classes for sonnx, CPU tests only, with the deviations and refusals applied.

    (``BackendTest.test_cases`` builds new classes at each access: they are taken once.)
    """
    classes = onnx.backend.test.BackendTest(SonnxBackend, __name__).test_cases
    for cls in classes.values():
        for attr in [a for a in vars(cls) if a.startswith("test_")]:
            if not attr.endswith(SUFFIX):
                delattr(cls, attr)  # another device
                continue
            case = attr.removesuffix(SUFFIX)
            if case in DEVIATIONS:
                setattr(cls, attr, _expected_failure(getattr(cls, attr), DEVIATIONS[case]))
            elif case in REFUSALS:
                setattr(cls, attr, _refused(getattr(cls, attr), *REFUSALS[case]))
    return classes


SUITES = build()

globals().update(SUITES)


def case_names() -> set[str]:
    """Every case of the suites above, without the device suffix."""
    return {a.removesuffix(SUFFIX) for cls in SUITES.values() for a in vars(cls) if a.startswith("test_")}


def test_the_tables_name_real_cases() -> None:
    names = case_names()
    assert len(names) > 1900
    assert not set(DEVIATIONS) - names, sorted(set(DEVIATIONS) - names)
    assert not set(REFUSALS) - names, sorted(set(REFUSALS) - names)
    assert not set(DEVIATIONS) & set(REFUSALS)
