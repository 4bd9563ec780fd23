"""StringNormalizer: a [C] or [1, C] string tensor without its stop words, then optionally upper- or lower-cased.

Elements equal to a word of ``stopwords`` are removed (compared after Unicode
case folding unless ``is_case_sensitive``); ``case_change_action`` LOWER or
UPPER then changes the case of what remains (NONE keeps it). When nothing
remains the result is one empty string, of shape [1] or [1, 1]. Case mapping
is Python's locale-independent Unicode mapping; the ``locale`` attribute is
accepted and not used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel

_CASE = {"LOWER": str.lower, "UPPER": str.upper}


def string_normalizer(
    x: np.ndarray,
    *,
    case_change_action: str = "NONE",
    is_case_sensitive: int = 0,
    stopwords: Sequence[str] = (),
    **_attrs: Any,
) -> np.ndarray:
    """One version."""
    if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[0] != 1):
        raise ValueError(f"StringNormalizer takes a [C] or [1, C] tensor, got {list(x.shape)}")
    if case_change_action not in ("NONE", "LOWER", "UPPER"):
        raise ValueError(f"case_change_action must be NONE, LOWER or UPPER, got {case_change_action!r}")
    row = x.astype(object).reshape(-1)
    if stopwords:
        if is_case_sensitive:
            words, stop = row, np.array(list(stopwords), dtype=object)
        else:
            fold = np.frompyfunc(str.casefold, 1, 1)
            words, stop = fold(row), fold(np.array(list(stopwords), dtype=object))
        row = row[~np.isin(words, stop)]
    if case_change_action in _CASE and row.size:
        # case mapping is a per-string computation: frompyfunc applies it over the object array
        row = np.asarray(np.frompyfunc(_CASE[case_change_action], 1, 1)(row), dtype=object)
    if not row.size:
        row = np.array([""], dtype=object)
    return row.reshape((*x.shape[:-1], row.size))


KERNELS = (Kernel("StringNormalizer", (10,), string_normalizer),)
