"""``sonnx.base.allocator.release_freed_heap``: glibc's ``malloc_trim`` where there is one, nothing elsewhere."""

from __future__ import annotations

import ctypes
import sys

import pytest

from sonnx.base import allocator


def test_on_linux_the_freed_heap_is_trimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    trims: list[int] = []

    class Libc:
        def __init__(self) -> None:
            self.malloc_trim = self

        def __call__(self, pad: int) -> int:
            trims.append(pad)
            return 1

    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc())
    assert allocator.release_freed_heap() is True
    assert trims == [0]


def test_the_real_trim_runs_and_changes_no_value() -> None:
    kept = [bytes([k % 251]) * 4096 for k in range(2000)]
    freed = [bytearray(1000) for _ in range(20000)]
    del freed
    done = allocator.release_freed_heap()
    assert done is sys.platform.startswith("linux")
    assert all(b == bytes([k % 251]) * 4096 for k, b in enumerate(kept))


def test_elsewhere_nothing_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: object) -> None:
        raise AssertionError("no C library may be opened here")

    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(ctypes, "CDLL", refuse)
    assert allocator.release_freed_heap() is False


def test_a_c_library_without_malloc_trim_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")

    class Musl:
        def __getattr__(self, name: str) -> object:
            raise AttributeError(name)

    monkeypatch.setattr(ctypes, "CDLL", lambda name: Musl())
    assert allocator.release_freed_heap() is False
