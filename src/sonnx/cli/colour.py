"""Colour for the status words of text reports, on a terminal only, as the user asks.

``--color auto`` (the default) colours when standard output is a terminal, ``NO_COLOR`` is not set to a
non-empty value (https://no-color.org) and ``TERM`` is not ``dumb``; ``always`` and ``never`` decide
whatever the environment says (an option given on the command line overrides the environment). Only the status
words get a colour, through :meth:`sonnx.base.text.SafeStream.write_styled`: the report's text is escaped as
always, so no colour or other escape sequence can come from a name in the model.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from typing import TextIO

CHOICES = ("auto", "always", "never")

SGR: dict[str, str] = {
    "PROVED": "32",
    "VIOLATED": "1;31",
    "ERROR": "1;31",
    "WARNING": "33",
    "UNKNOWN": "1;35",
    "TESTED": "36",
    "WAIVED": "34",
    "NOT CHECKED": "2",
    "PARTIAL": "1;35",
}
"""Select Graphic Rendition codes per status word: green established, red violated or unusable, yellow a
warning, magenta not established (a verdict, or a run with rules left out), cyan tested on samples, blue
accepted by a waiver, dim not checked."""

WORDS = "|".join(sorted(SGR, key=len, reverse=True))
REPORT = re.compile(rf"^(?:  |result: )({WORDS})(?= |$)", re.M)
"""Where a check's text report puts a status word: a verdict line, or the ``result:`` line."""


def add_color(p: argparse.ArgumentParser) -> None:
    """``--color auto|always|never``."""
    p.add_argument(
        "--color", choices=CHOICES, default="auto",
        help="colour the status words: auto (default: on a terminal, unless NO_COLOR is set), always or never",
    )


def wanted(choice: str, stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether text written to ``stream`` is coloured under ``--color choice``."""
    if choice != "auto":
        return choice == "always"
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR", "") != "" or env.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def pieces(text: str, where: re.Pattern[str] = REPORT) -> list[tuple[str, str]]:
    """``text`` cut into ``(text, sgr)`` pieces: group 1 of each match of ``where`` with its word's colour."""
    out: list[tuple[str, str]] = []
    at = 0
    for m in where.finditer(text):
        out += [(text[at:m.start(1)], ""), (m.group(1), SGR[m.group(1)])]
        at = m.end(1)
    return [*out, (text[at:], "")]


def write_report(stream: TextIO, text: str, colour: bool, where: re.Pattern[str] = REPORT) -> None:
    """Write a text report, its status words coloured when ``colour`` and the stream can (a terminal-safe one)."""
    styled = getattr(stream, "write_styled", None)
    if colour and styled is not None:
        styled(pieces(text, where))
    else:
        stream.write(text)


def batch_column(width: int) -> re.Pattern[str]:
    """Where ``sonnx batch``'s summary puts the result word: after the model column, ``width`` wide."""
    return re.compile(rf"^(?:.{{{width}}}  )({WORDS})(?= )", re.M)
