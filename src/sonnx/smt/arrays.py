"""Array helpers of the encodings: fact arrays as NumPy, ranges of a CSR table, first occurrences, instance text.

At a million operations the certificates and their ground instances were
Python loops over every fact, the largest share of the time all rule proofs
took (figures: benchmarks/README.md, "Figures behind choices in the code").
The producers of :mod:`.certify` and the writers of
the instances now work on whole arrays; these are their shared steps. Nothing
here decides anything: the instances they write are checked by z3.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np

I64 = np.int64


def as_np(a: array | Sequence[int] | np.ndarray) -> np.ndarray:
    """An int64 NumPy copy of a fact array (``array('i')``), a list or an array."""
    if isinstance(a, np.ndarray):
        return a.astype(I64, copy=False)
    if isinstance(a, array):
        return np.frombuffer(a, dtype=np.int32).astype(I64) if len(a) else np.zeros(0, I64)
    return np.asarray(a, dtype=I64).reshape(-1)


def expand(ptr: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position ``ptr[k] .. ptr[k + 1] - 1`` for each ``k`` of ``keys``, in order.

    Returns (the index in ``keys`` each position belongs to, the position):
    the rows of a CSR table (``ptr``) for several keys at once, in the order a
    loop over ``keys`` and then over each row would visit them.
    """
    keys = np.asarray(keys, dtype=I64)
    starts = ptr[keys].astype(I64)
    lens = ptr[keys + 1].astype(I64) - starts
    owner = np.repeat(np.arange(len(keys), dtype=I64), lens)
    shift = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    return owner, np.arange(len(owner), dtype=I64) + shift


def first_rows(*cols: np.ndarray) -> np.ndarray:
    """Indices (ascending) of the first occurrence of each distinct row ``(cols[0][i], cols[1][i], ...)``.

    Keeping these rows in this order is what ``dict.fromkeys`` does to a list
    of the rows' instances: each distinct one once, where it first occurs.
    """
    n = len(cols[0])
    if n == 0:
        return np.zeros(0, I64)
    key = cols[0] if len(cols) == 1 else _packed(cols)
    if key is None:
        order = np.lexsort(cols[::-1])  # stable: equal rows keep their order
        rows = np.stack([c[order] for c in cols])
        new = np.ones(n, bool)
        new[1:] = (rows[:, 1:] != rows[:, :-1]).any(axis=0)
    else:
        order = np.argsort(key, kind="stable")
        k = key[order]
        new = np.ones(n, bool)
        new[1:] = k[1:] != k[:-1]
    return np.sort(order[new])


def _packed(cols: Sequence[np.ndarray]) -> np.ndarray | None:
    """The rows as one int64 each when their value ranges fit in 63 bits together; else None."""
    key = np.zeros(len(cols[0]), I64)
    bits = 0
    for c in cols:
        lo, hi = int(c.min()), int(c.max())
        width = max(1, (hi - lo).bit_length())
        bits += width
        if bits > 63:
            return None
        key = (key << width) | (c.astype(I64) - lo)
    return key


def lines(template: str, *cols: np.ndarray) -> list[str]:
    """``template.format(row...)`` for every row of the columns (the numbers written as Python ints)."""
    return list(map(template.format, *(c.tolist() for c in cols)))


def distinct_lines(template: str, *cols: np.ndarray) -> list[str]:
    """:func:`lines` of the distinct rows only, each where it first occurs."""
    keep = first_rows(*cols)
    return lines(template, *(c[keep] for c in cols))


def distinct_mixed(templates: Sequence[str], kind: np.ndarray, *cols: np.ndarray) -> list[str]:
    """The instances of rows written with several templates (``templates[kind[i]]``), each distinct one once.

    Rows are distinct by (kind, values): two templates never write the same
    text, so this is ``dict.fromkeys`` of the instances, in their first-occurrence order.
    """
    keep = first_rows(kind, *cols)
    kinds = kind[keep]
    kept = [c[keep] for c in cols]
    out = np.empty(len(keep), dtype=object)
    for k, template in enumerate(templates):
        at = np.flatnonzero(kinds == k)
        if at.size:
            out[at] = lines(template, *(c[at] for c in kept))
    return out.tolist()
