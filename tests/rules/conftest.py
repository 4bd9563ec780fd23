"""Hypothesis profiles for the rule tests: ``ci`` (default, ~200 examples) and ``fuzz``.

Select with the ``HYPOTHESIS_PROFILE`` environment variable. The suite-wide
``tests/conftest.py`` may register the same names; this file only registers
them when they are missing, so both agree.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.errors import InvalidArgument


def _ensure(name: str, **kwargs: object) -> None:
    try:
        settings.get_profile(name)
    except InvalidArgument:
        settings.register_profile(name, **kwargs)  # type: ignore[arg-type]


_ensure("ci", max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
_ensure("fuzz", max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
