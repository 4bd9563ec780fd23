"""DictVectorizer (ai.onnx.ml): a map as a [1, V] tensor indexed by a vocabulary.

The vocabulary (``string_vocabulary`` or ``int64_vocabulary``, exactly one)
gives each key its position: ``Y[0, i]`` is the map's value for
``vocabulary[i]``, zero (the empty string for text values) when the map lacks
that key. Keys outside the vocabulary are ignored. [Non-normative:
onnxruntime ignores them too; the operator's text asks that every key be in
the vocabulary.]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._ml import lookup, map_values, texts
from .base import Kernel


def dict_vectorizer(
    x: dict[Any, Any],
    *,
    string_vocabulary: Sequence[str] | None = None,
    int64_vocabulary: Sequence[int] | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Version 1 (the only one)."""
    if not isinstance(x, dict):
        raise ValueError(f"the input must be a map, not {type(x).__name__}")
    has_strings = string_vocabulary is not None and len(string_vocabulary) > 0
    has_ints = int64_vocabulary is not None and len(int64_vocabulary) > 0
    if has_strings == has_ints:
        raise ValueError("exactly one of string_vocabulary and int64_vocabulary must be given")
    raw_keys = list(x.keys())
    values = map_values(list(x.values()))
    default: Any = "" if values.dtype == object else 0
    if has_strings:
        assert string_vocabulary is not None
        vocabulary = texts(list(string_vocabulary))
        keys = texts(raw_keys)
        if any(not isinstance(k, str) for k in keys):
            raise ValueError("a string vocabulary needs a map with string keys")
    else:
        assert int64_vocabulary is not None
        vocabulary = np.asarray(int64_vocabulary, dtype=np.int64)
        if any(isinstance(k, (str, bytes)) for k in raw_keys):
            raise ValueError("an int64 vocabulary needs a map with int64 keys")
        keys = np.asarray(raw_keys, dtype=np.int64).reshape(-1)
    return lookup(keys, values, vocabulary, default).reshape(1, -1)


KERNELS = (Kernel("DictVectorizer", (1,), dict_vectorizer, domain="ai.onnx.ml"),)
