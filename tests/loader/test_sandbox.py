"""The child process that runs onnx's native code: results come back, deaths and limits are named."""

from __future__ import annotations

import os
import signal
import time

import onnx
import pytest

from sonnx.loader.sandbox import Failure, contained
from tests.common.native import self_calling_default


def _suicide(number: int) -> None:
    os.kill(os.getpid(), number)


def _grow() -> int:
    return len(bytearray(1024**3))  # one GiB: the machine has it, the child's limit does not


def test_the_result_of_the_call_comes_back() -> None:
    assert contained(sorted, [3, 1, 2]) == [1, 2, 3]
    assert contained(bytes, 3 << 20) == bytes(3 << 20)  # more than one pipe buffer


@pytest.mark.parametrize("number", [signal.SIGSEGV, signal.SIGABRT, signal.SIGKILL])
def test_a_child_killed_by_a_signal_is_a_failure_naming_it(number: int) -> None:
    out = contained(_suicide, number)
    assert isinstance(out, Failure) and out.kind == "signal"
    assert signal.Signals(number).name in out.reason


def test_the_memory_limit_stops_the_child() -> None:
    out = contained(_grow, memory_budget=256 << 20)
    assert isinstance(out, Failure) and out.kind == "memory" and "limit: 0.25 GiB" in out.reason, out


def test_the_time_limit_stops_the_child() -> None:
    start = time.monotonic()
    out = contained(time.sleep, 30, time_limit=0.5)
    assert isinstance(out, Failure) and out.kind == "time" and "0.5 s" in out.reason
    assert time.monotonic() - start < 10


def test_an_exception_of_the_call_is_one_line() -> None:
    out = contained(int, "not\na number")
    assert isinstance(out, Failure) and out.kind == "raised"
    assert out.reason.startswith("raised ValueError:") and "\n" not in out.reason


def test_a_child_that_exits_without_a_result_is_a_failure() -> None:
    out = contained(os._exit, 7)
    assert isinstance(out, Failure) and out.kind == "exit" and "7" in out.reason


def test_onnx_shape_inference_crashing_on_the_model_is_contained() -> None:
    proto = self_calling_default()
    out = contained(onnx.shape_inference.infer_shapes, proto)
    assert isinstance(out, Failure) and out.kind == "signal" and "SIGSEGV" in out.reason
    assert contained(len, proto.SerializeToString()) == proto.ByteSize()  # this process is still fine
