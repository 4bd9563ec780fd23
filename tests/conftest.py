"""Test-suite wide settings: Hypothesis profiles.

``ci`` (the default) keeps the property tests within the CI budget; ``fuzz``
is the long campaign behind ``make fuzz``. Select with HYPOTHESIS_PROFILE.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
