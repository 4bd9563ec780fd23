"""RegexFullMatch: true where the whole string matches ``pattern``.

ONNX names RE2 syntax; sonnx compiles the pattern with Python's ``re``, which
reads RE2's common syntax the same way (classes, repetition, alternation,
anchors, ``\\b``, ``\\w``, named groups ``(?P<name>...)``). A pattern Python
cannot compile is refused. [Non-normative: Python also accepts constructs RE2
rejects, such as look-around and back-references; those are not refused.]
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .base import Kernel


def regex_full_match(x: np.ndarray, *, pattern: str = "", **_attrs: Any) -> np.ndarray:
    """One version."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"RegexFullMatch cannot compile pattern {pattern!r}: {exc}") from None
    # a regular-expression match is a per-string computation: frompyfunc applies it over the object array
    matches = np.frompyfunc(lambda s: compiled.fullmatch(s) is not None, 1, 1)
    return np.asarray(matches(x.astype(object)), dtype=np.bool_).reshape(x.shape)


KERNELS = (Kernel("RegexFullMatch", (20,), regex_full_match),)
