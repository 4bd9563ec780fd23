"""The child process that runs onnx's native code: results come back, deaths and limits are named."""

from __future__ import annotations

import os
import signal
import time

import onnx
import pytest

from sonnx.loader.sandbox import Failure, contained, start
from tests.common.children import wait_until_ended
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


def test_a_started_call_is_joined_later_and_joining_again_gives_the_same_result() -> None:
    started = start(sorted, [3, 1, 2])
    assert started.running and started.pid > 0
    assert started.join() == [1, 2, 3]
    assert not started.running and started.join() == [1, 2, 3]


def test_a_child_with_a_large_result_ends_without_waiting_for_the_parent() -> None:
    started = start(bytes, 3 << 20)  # more than a pipe holds: the child must not wait for the parent to read
    assert wait_until_ended(started.pid)
    assert started.join() == bytes(3 << 20)


def test_a_child_keeps_its_time_limit_while_the_parent_is_busy() -> None:
    started = start(time.sleep, 60, time_limit=0.5)
    assert wait_until_ended(started.pid)  # nobody waits for it: its own clock stops it
    out = started.join()
    assert isinstance(out, Failure) and out.kind == "time" and "0.5 s" in out.reason


def test_a_result_given_in_time_is_kept_when_the_parent_joins_after_the_limit() -> None:
    started = start(sorted, [2, 1], time_limit=0.5)
    assert wait_until_ended(started.pid)
    time.sleep(0.6)  # the parent joins after the child's time limit has passed
    assert started.join() == [1, 2]


def test_a_cancelled_child_is_stopped_and_reaped() -> None:
    started = start(time.sleep, 60)
    pid = started.pid
    started.cancel()
    assert not started.running
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie is left behind
    out = started.join()
    assert isinstance(out, Failure) and out.kind == "exit"
    started.cancel()  # a second cancel does nothing
