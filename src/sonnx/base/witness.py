"""How a rule's witness names what it found: bounded lists of offenders, operation references, one-line summaries.

Every witness lists at most :data:`LIMIT` offenders and always gives their
total count, so a model with a million violations gives a witness of bounded
size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Labelled(Protocol):
    """Anything a witness can name: an operation has a ``label`` (``Relu:n3``)."""

    @property
    def label(self) -> str: ...


LIMIT = 100
"""Most offenders a witness lists; the total count is always given."""


def op_ref(path: str, j: int, op: Labelled) -> dict[str, Any]:
    """How a witness names an operation: its scope path, its index in ``graph.operations``, its label."""
    return {"scope": path, "index": j, "operation": op.label}


def show_op_ref(ref: dict[str, Any]) -> str:
    """An :func:`op_ref` record as a one-line summary shows it: ``label (#index in scope)``."""
    return f"{ref['operation']} (#{ref['index']} in {ref['scope']})"


def first(items: Sequence[T], limit: int = LIMIT) -> list[T]:
    """The first ``limit`` items (witness lists are bounded; the count is given beside them)."""
    return list(items[:limit])


def brief(items: Sequence[str], shown: int = 5, total: int | None = None) -> str:
    """A few items for a one-line summary: ``a, b, c (and 7 more)``; ``total`` counts items not passed."""
    head = ", ".join(items[:shown])
    rest = (len(items) if total is None else total) - min(shown, len(items))
    return f"{head} (and {rest} more)" if rest > 0 else head


class Offenders:
    """Counts every offender of a rule but keeps only the first :data:`LIMIT` for the witness."""

    def __init__(self) -> None:
        self.count = 0
        self.listed: list[dict[str, Any]] = []

    @property
    def room(self) -> int:
        return LIMIT - len(self.listed)

    def add(self, total: int, details: Iterable[dict[str, Any]]) -> None:
        """Count ``total`` more offenders; ``details`` (consumed lazily, at once) describes them in order."""
        self.count += total
        if total and self.room > 0:
            self.listed.extend(islice(details, self.room))
