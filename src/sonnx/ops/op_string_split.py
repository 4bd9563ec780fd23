"""StringSplit: each string cut at ``delimiter`` into substrings, padded with "" to one length.

Outputs: Y of shape ``x.shape + [m]`` (m the most substrings of any element,
0 for an empty input), and Z, the int64 number of substrings of each element.
With a non-empty delimiter, consecutive delimiters delimit empty strings;
without one (absent or ""), runs of whitespace separate and leading or
trailing whitespace is dropped. ``maxsplit`` (absent: no limit) bounds the
number of cuts; the remainder is the last substring. This is Python's
``str.split(delimiter or None, maxsplit)``.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from .base import Kernel


def string_split(
    x: np.ndarray, *, delimiter: str | None = None, maxsplit: int | None = None, **_attrs: Any
) -> tuple[np.ndarray, np.ndarray]:
    """One version."""
    sep = delimiter or None
    limit = -1 if maxsplit is None else int(maxsplit)
    flat = x.astype(object).reshape(-1)
    # splitting is a per-string computation: frompyfunc applies it over the object array
    pieces = np.frompyfunc(lambda s: s.split(sep, limit), 1, 1)(flat) if flat.size else np.empty(0, dtype=object)
    counts = np.asarray(np.frompyfunc(len, 1, 1)(pieces), dtype=np.int64).reshape(-1)
    width = int(counts.max()) if flat.size else 0
    out = np.full((flat.size, width), "", dtype=object)
    rows = np.repeat(np.arange(flat.size), counts)
    starts = np.cumsum(counts) - counts
    cols = np.arange(int(counts.sum())) - np.repeat(starts, counts)
    values = np.empty(int(counts.sum()), dtype=object)
    values[:] = list(chain.from_iterable(pieces))
    out[rows, cols] = values
    return out.reshape(*x.shape, width), counts.reshape(x.shape)


KERNELS = (Kernel("StringSplit", (20,), string_split),)
