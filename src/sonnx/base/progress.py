"""Progress lines on stderr for long work.

A safety engineer checking a million-node model should see what the tool is
doing. Lines go to stderr so that stdout stays the report (and valid JSON with
``--json``). Each line carries the time elapsed since the tool started.

Every layer that does long work takes its progress callback as a :data:`Say`
and falls back to :func:`quiet` when the caller gives none, so the type and
the silent default are written once, here.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from .text import printable

Say = Callable[[str], None]
"""A progress callback: called with one line of text saying what the work is
doing now (a :class:`Progress` on the command line, any function in the API)."""


def quiet(_message: str) -> None:
    """The progress callback that says nothing: the default when a caller
    asks for no progress lines."""


class Progress:
    """Prints ``prog: [  1.2 s] message`` lines to a stream when enabled."""

    def __init__(self, prog: str, enabled: bool, stream: TextIO | None = None) -> None:
        self.prog = prog
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self._start = time.perf_counter()

    def __call__(self, message: str) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self._start
        self.stream.write(f"{self.prog}: [{elapsed:7.1f} s] {printable(message)}\n")
        self.stream.flush()
