"""TfIdfVectorizer: counts of the pool's n-grams in each row of a [C] or [N, C] tensor, optionally weighted.

The pool lists n-grams of increasing length n = 1, 2, ...: those of length n
occupy ``pool[ngram_counts[n-1] : ngram_counts[n]]`` (to the end for the
longest), n tokens each, and pool n-grams are numbered in pool order. An
n-gram of the input is n tokens at positions i, i+d, ..., i+(n-1)d of a row,
for a gap d = 1 ... ``max_skip_count`` + 1 (d = 1 only for n = 1); every n in
[``min_gram_length``, ``max_gram_length``] is counted. The count of pool
n-gram k goes to output column ``ngram_indexes[k]``; the output has
``max(ngram_indexes) + 1`` columns and is float32. ``mode`` TF gives counts,
IDF ``weights[k]`` where the count is positive, TFIDF ``count * weights[k]``
(weights default to 1). Tokens are ``pool_int64s`` for an integer input,
``pool_strings`` for a string input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def _token_ids(x: np.ndarray, pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Input and pool tokens as int64 ids (strings via the sorted pool vocabulary; -1 for an unknown string)."""
    if pool.dtype != object:
        return x.astype(np.int64), pool.astype(np.int64)
    vocab = np.unique(pool)
    at = np.clip(np.searchsorted(vocab, x), 0, max(vocab.size - 1, 0))
    known = vocab[at] == x if vocab.size else np.zeros(x.shape, dtype=bool)
    return np.where(known, at, -1).astype(np.int64), np.searchsorted(vocab, pool).astype(np.int64)


def tf_idf_vectorizer(
    x: np.ndarray,
    *,
    mode: str,
    min_gram_length: int,
    max_gram_length: int,
    max_skip_count: int,
    ngram_counts: Sequence[int],
    ngram_indexes: Sequence[int],
    pool_int64s: Sequence[int] | None = None,
    pool_strings: Sequence[str] | None = None,
    weights: Sequence[float] | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """One version."""
    if (pool_int64s is None) == (pool_strings is None):
        raise ValueError("exactly one of pool_int64s and pool_strings must be given")
    if mode not in ("TF", "IDF", "TFIDF"):
        raise ValueError(f"mode must be TF, IDF or TFIDF, got {mode!r}")
    if x.ndim not in (1, 2):
        raise ValueError(f"TfIdfVectorizer takes a [C] or [N, C] tensor, got {list(x.shape)}")
    if not 1 <= min_gram_length <= max_gram_length:
        raise ValueError(f"gram lengths must satisfy 1 <= {min_gram_length} <= {max_gram_length}")
    is_string = pool_strings is not None
    if is_string != (x.dtype == object):
        raise ValueError(f"a {'string' if is_string else 'integer'} pool needs a matching input, got {x.dtype}")
    pool = np.empty(len(pool_strings), dtype=object) if pool_strings is not None else np.asarray(pool_int64s, np.int64)
    if pool_strings is not None:
        pool[:] = list(pool_strings)
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    tokens, pool_ids = _token_ids(rows, pool)
    starts = [int(s) for s in ngram_counts] + [pool.size]
    indexes = np.asarray(ngram_indexes, dtype=np.int64)
    width = int(indexes.max()) + 1 if indexes.size else 0
    n_rows, n_cols = tokens.shape
    counts = np.zeros(n_rows * indexes.size, dtype=np.int64)
    first_gram = 0  # pool number of the first n-gram of the current length
    for n in range(1, len(ngram_counts) + 1):  # one pass per n-gram length of the pool
        segment = pool_ids[starts[n - 1] : starts[n]]
        if segment.size % n:
            raise ValueError(f"the pool's {n}-grams take {segment.size} entries, not a multiple of {n}")
        grams = segment.reshape(-1, n)
        if min_gram_length <= n <= max_gram_length and grams.size:
            for gap in range(1, (max_skip_count + 2) if n > 1 else 2):  # every allowed gap between tokens
                span = (n - 1) * gap
                if span >= n_cols:
                    break
                windows = np.stack([tokens[:, k * gap : n_cols - span + k * gap] for k in range(n)], axis=-1)
                found = np.unique(np.concatenate([grams, windows.reshape(-1, n)]), axis=0, return_inverse=True)[1]
                found = found.reshape(-1)
                owner = np.full(int(found.max()) + 1, -1, dtype=np.int64)
                owner[found[: len(grams)]] = np.arange(len(grams))
                hit = owner[found[len(grams) :]].reshape(n_rows, -1)
                row_of = np.broadcast_to(np.arange(n_rows)[:, None], hit.shape)
                keep = hit >= 0
                np.add.at(counts, row_of[keep] * indexes.size + first_gram + hit[keep], 1)
        first_gram += len(grams)
    if first_gram != indexes.size:
        raise ValueError(f"the pool holds {first_gram} n-grams, ngram_indexes has {indexes.size} entries")
    per_gram = counts.reshape(n_rows, indexes.size).astype(np.float32)
    w = np.ones(indexes.size, dtype=np.float32) if weights is None else np.asarray(weights, dtype=np.float32)
    if mode == "IDF":
        per_gram = (per_gram > 0).astype(np.float32) * w
    elif mode == "TFIDF":
        per_gram = per_gram * w
    out = np.zeros((width, n_rows), dtype=np.float32)
    np.add.at(out, indexes, per_gram.T)
    out = out.T
    return out.reshape(-1) if x.ndim == 1 else out


KERNELS = (Kernel("TfIdfVectorizer", (9,), tf_idf_vectorizer),)
