"""Test-suite wide settings: Hypothesis profiles, and the JSON report's schema checked on every report.

``ci`` (the default) keeps the property tests within the CI budget; ``fuzz``
is the long campaign behind ``make fuzz``. Select with HYPOTHESIS_PROFILE.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

settings.register_profile(
    "ci", max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("fuzz", max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
if os.environ.get("HYPOTHESIS_MAX_EXAMPLES"):
    # a campaign in chunks (make fuzz-smt-chunk N=...): the fuzz profile with another example count
    settings.register_profile(
        "chunk",
        parent=settings.get_profile("fuzz"),
        max_examples=int(os.environ["HYPOTHESIS_MAX_EXAMPLES"]),
    )
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session", autouse=True)
def _every_json_report_meets_its_schema() -> Iterator[None]:
    """Every JSON report the tool builds during the run is checked against ``sonnx/data/report.schema.json``."""
    from tests.common.report_schema import watch_json_reports

    with watch_json_reports():
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the files of the longest tests first (``tests/common/schedule.py``)."""
    from tests.common.schedule import longest_first

    items[:] = longest_first(items)
