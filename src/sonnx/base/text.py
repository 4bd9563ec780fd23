"""Text a model controls, made safe to print on a terminal.

Operation, tensor and graph names come from the model file. A name holding
an ANSI escape sequence can clear the screen or move the cursor, and a name
holding a newline can print a line of its own, such as a fake ``result:
PROVED`` under a report whose exit code is 1. Two guards:

* :func:`printable` escapes, in one field, every character that is not
  printable text: C0 and C1 controls (newlines included), DEL, and the
  format, line and paragraph separators of Unicode (bidirectional overrides);
  the text reports pass every model-controlled field through it;
* :class:`SafeStream` wraps the command line's stdout and stderr and escapes
  the same characters except newline and tab in everything written, so that
  no output path can pass an escape sequence to the terminal. JSON output is
  unchanged by it: ``json.dumps`` never writes those characters raw.

A progress line shown in place on a terminal (:mod:`sonnx.base.progress`)
ends with no newline; :data:`LIVE_LINE` records how to clear it, and a
:class:`SafeStream` clears it before writing anything else, so that no
report or error line starts after stale progress text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import TextIO, cast

_FORMAT = "\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff"
"""Unicode format and separator characters that reorder or break lines (bidirectional overrides among them),
and lone surrogates (the undecodable bytes of a file name), which a UTF-8 terminal cannot print."""
_UNSAFE_IN_FIELD = re.compile(f"[\x00-\x1f\x7f-\x9f{_FORMAT}]")
_UNSAFE_IN_STREAM = re.compile(f"[\x00-\x08\x0b-\x1f\x80-\x9f{_FORMAT}]")
_SGR_CODE = re.compile(r"[0-9]{1,3}(?:;[0-9]{1,3})*")


def _escape(m: re.Match[str]) -> str:
    c = m.group(0)
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control, separator and format character written as an escape (``\\x1b``)."""
    out = _UNSAFE_IN_FIELD.sub(_escape, text)
    if any(unicodedata.category(c) == "Cf" for c in out if ord(c) > 0x7F):  # other format characters
        out = "".join(_escape_char(c) if unicodedata.category(c) == "Cf" else c for c in out)
    return out


def _escape_char(c: str) -> str:
    code = ord(c)
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


class LiveLine:
    """The progress line shown in place on a terminal, if one is: how to clear it before other text is written."""

    def __init__(self) -> None:
        self._clear: Callable[[], None] | None = None

    def shown(self, clear: Callable[[], None]) -> None:
        """A line is now shown in place; ``clear`` removes it (and may be called once)."""
        self._clear = clear

    def shown_by(self, clear: Callable[[], None]) -> bool:
        """Whether the line shown now is the one that ``clear`` removes (its owner may then overwrite it)."""
        return self._clear is not None and self._clear == clear

    def clear(self) -> None:
        """Remove the line shown in place, if any (nothing when none is)."""
        clear, self._clear = self._clear, None
        if clear is not None:
            clear()


LIVE_LINE = LiveLine()
"""The one line shown in place on this process's terminal (a process has one terminal, whatever its streams)."""


class SafeStream:
    """A text stream that escapes terminal control characters other than newline and tab.

    Before it writes text, it clears the progress line shown in place (:data:`LIVE_LINE`), if any.
    """

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        if text:
            LIVE_LINE.clear()
        self.inner.write(_UNSAFE_IN_STREAM.sub(_escape, text))
        return len(text)

    def write_styled(self, pieces: Iterable[tuple[str, str]]) -> None:
        """Write ``(text, sgr)`` pieces: each text escaped as :meth:`write` escapes it, wrapped in the Select
        Graphic Rendition code ``sgr`` when that is not empty. Only the caller's fixed codes reach the terminal
        (digits and semicolons): no text written can carry one."""
        LIVE_LINE.clear()
        for text, sgr in pieces:
            body = _UNSAFE_IN_STREAM.sub(_escape, text)
            if not sgr:
                self.inner.write(body)
            elif _SGR_CODE.fullmatch(sgr):
                self.inner.write(f"\x1b[{sgr}m{body}\x1b[0m")
            else:
                raise ValueError(f"not a Select Graphic Rendition code: {sgr!r}")

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.inner, "isatty", lambda: False)())

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


def safe_stream(inner: TextIO) -> TextIO:
    """``inner`` wrapped in a :class:`SafeStream` (typed as the text stream it stands for)."""
    return cast(TextIO, SafeStream(inner))


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` followed by ``noun``, in the plural unless ``n`` is 1: ``1 operation``, ``0 operations``.

    Every count the command line prints goes through it, so that no line reads "1 operations". ``plural``
    is the plural form when it is not ``noun`` + "s" (``1 input set``/``2 input sets`` need none).
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
