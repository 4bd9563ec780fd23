"""The order in which the suite's test files are handed to pytest-xdist's workers.

``make pytest`` runs one worker per core and gives a worker one whole file at a
time (``--dist loadfile``), so that a module's fixtures are built once. By
default xdist starts the files with the most tests first, which leaves the
files of a few long tests (an SMT campaign, the theorem modules run in
processes of their own, the extracted Coq runner) to the end, where one worker
can be left running one of them while the other has nothing to do. The files
of :data:`LONGEST_FIRST` are started first, in that order, and the others follow
by number of tests as before; the Makefile passes ``--no-loadscope-reorder`` so
that xdist keeps this order. The order of the tests inside a file is unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

# The files with the longest total time in a CI run (``pytest --durations``), longest first.
LONGEST_FIRST = (
    "tests/badinput/test_cli_bad_input.py",
    "tests/batch/test_batch.py",
    "tests/smt/test_property_differential.py",
    "tests/spec/test_proofs_isolation.py",
    "tests/model/test_coq_runner.py",
    "tests/partition/test_partition_properties.py",
    "tests/qualify/test_kit.py",
    "tests/rewrite/test_properties.py",
    "tests/fuzz/test_evidence_campaign.py",
    "tests/fuzz/test_file_fuzz.py",
    "tests/model/test_plan_equivalence.py",
)


class Item(Protocol):
    """What the ordering reads of a collected test: its node ID (``path::name``)."""

    nodeid: str


def file_of(item: Item) -> str:
    """The test file of a collected test, as its node ID starts."""
    return item.nodeid.split("::", 1)[0]


def longest_first(items: Sequence[Item]) -> list[Item]:
    """The tests with the files of :data:`LONGEST_FIRST` first, then the others by descending number of tests.

    Each file's tests stay together and in their order; files of as many tests keep their collection order.
    """
    counts = Counter(file_of(item) for item in items)
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(file_of(item), index)
    rank = {name: position for position, name in enumerate(LONGEST_FIRST)}

    def key(indexed: tuple[int, Item]) -> tuple[int, int, int, int]:
        index, item = indexed
        name = file_of(item)
        return rank.get(name, len(rank)), -counts[name], first_seen[name], index

    return [item for _index, item in sorted(enumerate(items), key=key)]
