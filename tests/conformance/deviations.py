"""Backend node test cases that sonnx knowingly does not reproduce, each with its reason.

Data, not code: the conformance test marks each listed case as a strict xfail,
so a case that starts passing fails the suite until it is removed from here.
"""

from __future__ import annotations

DEVIATIONS: dict[str, str] = {}
