"""The written form of a declared element range, ``<lo>..<hi>`` (spec/operators.rst, section 5.1).

A range is declared for a graph input on the command line (``--input-range
x=-1..1``) or in the model's metadata (``sonnx.input_range.x`` = ``-1..1``).
The interval analysis (:mod:`.intervals_graph`) reads the metadata form and
the options record (:mod:`sonnx.checking.option_values`) the command-line
form; both read it here, so that the two spellings cannot drift apart, and so
that reading an option does not import the analysis, which only the strict
profile runs.
"""

from __future__ import annotations

import math


class RangeSyntaxError(ValueError):
    """A declared range is not ``<lo>..<hi>`` with two finite numbers, lo at most hi."""


def _number(text: str) -> int | float:
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        pass
    try:
        v = float(t)
    except ValueError:
        raise RangeSyntaxError(f"{text!r} is not a number") from None
    if not math.isfinite(v):
        raise RangeSyntaxError(f"{text!r} is not a finite number")
    return v


def parse_range(text: str) -> tuple[int | float, int | float]:
    """``"<lo>..<hi>"`` as two finite numbers (integers stay exact); lo must not exceed hi."""
    lo_text, sep, hi_text = text.partition("..")
    if not sep:
        raise RangeSyntaxError(f"{text!r} is not <lo>..<hi>")
    lo, hi = _number(lo_text), _number(hi_text)
    if lo > hi:
        raise RangeSyntaxError(f"{text!r} is empty (its lower bound exceeds its upper bound)")
    return lo, hi
