"""Progress lines on stderr for long work.

A safety engineer checking a million-node model should see what the tool is
doing. Lines go to stderr so that stdout stays the report (and valid JSON with
``--json``). Each line carries the time elapsed since the tool started.

Every layer that does long work takes its progress callback as a :data:`Say`
and falls back to :func:`quiet` when the caller gives none, so the type and
the silent default are written once, here.

On a terminal, :class:`Progress` shows one line and rewrites it in place
(carriage return, the text, clear to the end of the line), cut to the
terminal's width so that it never wraps; the line is cleared before any other
text is written to the command line's streams (:data:`sonnx.base.text.LIVE_LINE`)
and when the work ends. Elsewhere (a pipe, a file, ``TERM=dumb``) it writes one
line per message, as a log. Work made of many like steps (schedules, oracles,
SMT obligations, models of a batch) says them through :class:`Steps`: the
count done of the total and an estimate of the time left, at most one message
per :attr:`Progress.interval`, so that a log is not flooded.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from .text import LIVE_LINE, SafeStream, printable

Say = Callable[[str], None]
"""A progress callback: called with one line of text saying what the work is
doing now (a :class:`Progress` on the command line, any function in the API)."""


def quiet(_message: str) -> None:
    """The progress callback that says nothing: the default when a caller
    asks for no progress lines."""


CARRIAGE_RETURN = "\r"
CLEAR_TO_END = "\x1b[K"
"""The two terminal controls the line in place is made of (ECMA-48 CR and EL 0); nothing else is written raw."""

LIVE_INTERVAL = 0.1
"""Seconds between two counted messages on a terminal, where each replaces the last."""
LOG_INTERVAL = 5.0
"""Seconds between two counted messages when each is a line of its own (a pipe or a file)."""
CALLBACK_INTERVAL = 1.0
"""Seconds between two counted messages given to a callback that is not a :class:`Progress` (the API's)."""


def in_place(stream: TextIO) -> bool:
    """Whether lines on ``stream`` can be rewritten in place: a terminal that understands the clearing control."""
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
    return tty and os.environ.get("TERM", "") != "dumb"


DEFAULT_WIDTH = 80
"""Columns assumed when the terminal does not say (a pseudo-terminal of zero size, no file descriptor)."""


def _width(stream: TextIO) -> int:
    """The terminal's width in columns: ``COLUMNS`` when set, else the terminal's own, else :data:`DEFAULT_WIDTH`."""
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return DEFAULT_WIDTH
    return columns if columns > 0 else DEFAULT_WIDTH


class Progress:
    """Prints ``prog: [  1.2 s] message`` to a stream when enabled: in place on a terminal, else one per line."""

    def __init__(self, prog: str, enabled: bool, stream: TextIO | None = None) -> None:
        self.prog = prog
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.live = enabled and in_place(self.stream)
        self.interval = LIVE_INTERVAL if self.live else LOG_INTERVAL
        # The controls go to the stream under the escaping wrapper; the text itself is escaped by printable().
        self._raw = self.stream.inner if isinstance(self.stream, SafeStream) else self.stream
        self._start = time.perf_counter()

    def __call__(self, message: str) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self._start
        text = f"{self.prog}: [{elapsed:7.1f} s] {printable(message)}"
        if self.live:
            if not LIVE_LINE.shown_by(self.clear):
                LIVE_LINE.clear()  # another Progress's line; this one's own is overwritten below
            self._raw.write(CARRIAGE_RETURN + text[: max(1, _width(self._raw) - 1)] + CLEAR_TO_END)
            LIVE_LINE.shown(self.clear)
        else:
            self._raw.write(text + "\n")
        self._raw.flush()

    def clear(self) -> None:
        """Remove this line from the terminal (a no-op when it is not shown in place)."""
        if self.live:
            try:
                self._raw.write(CARRIAGE_RETURN + CLEAR_TO_END)
                self._raw.flush()
            except (OSError, ValueError):  # the terminal went away: there is no line left to clear
                pass


def interval_of(say: Say) -> float:
    """The least time between two counted messages to ``say`` (see :class:`Steps`)."""
    return say.interval if isinstance(say, Progress) else CALLBACK_INTERVAL


def time_left(seconds: float) -> str:
    """An estimate of ``seconds`` as a person says it: ``under 1 s``, ``about 42 s``, ``about 3 min 05 s``,
    ``about 2 h 07 min`` (rounded up)."""
    if seconds < 1:
        return "under 1 s"
    whole = math.ceil(seconds)
    if whole < 60:
        return f"about {whole} s"
    if whole < 3600:
        return f"about {whole // 60} min {whole % 60:02d} s"
    return f"about {whole // 3600} h {whole % 3600 // 60:02d} min"


class Steps:
    """Counts the steps of one piece of work done so far out of ``total`` and says them with the time left.

    The estimate assumes the steps left take as long on average as those
    done: ``elapsed / done * (total - done)``; work whose steps differ too
    much in cost for that to mean anything (the SMT proofs of different rules)
    passes ``estimate=False``. A step is said when it is the first or the
    last, or when :func:`interval_of` the callback has passed since the last
    one said; the others are counted silently.
    """

    def __init__(
        self,
        say: Say,
        what: str,
        total: int,
        estimate: bool = True,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.say = say
        self.what = what
        self.estimate = estimate
        self.total = max(0, total)
        self.done = 0
        self._clock = clock
        self._start = clock()
        self._said: float | None = None
        self._interval = interval_of(say)

    def advance(self, steps: int = 1, detail: str = "") -> None:
        """Count ``steps`` more done (0: only news of the step under way); ``detail`` ends the message."""
        self.done = min(self.total, self.done + steps) if self.total else self.done + steps
        now = self._clock()
        last = self.done >= self.total
        if self._said is not None and not last and now - self._said < self._interval:
            return
        self._said = now
        self.say(self.message(now, detail))

    def message(self, now: float, detail: str = "") -> str:
        """``what done/total (p%)``, then the time left (:func:`time_left`) while steps remain, then ``: detail``."""
        text = f"{self.what} {self.done}/{self.total}"
        if self.total:
            text += f" ({100 * self.done // self.total}%)"
        if self.estimate and 0 < self.done < self.total:
            per_step = (now - self._start) / self.done
            text += f", {time_left(per_step * (self.total - self.done))} left"
        return text + (f": {detail}" if detail else "")
