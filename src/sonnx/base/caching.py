"""Small helpers for building large indices: a cache keyed per check, and the garbage collector paused."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large indices (it would rescan the model)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def cached(cache: dict[object, object], key: object, build: Callable[[], T]) -> T:
    """``cache[key]``, computed by ``build`` on first use."""
    if key in cache:
        return cache[key]  # type: ignore[return-value]
    value = build()
    cache[key] = value
    return value
