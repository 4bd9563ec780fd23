"""The SONNX graph rules: one module per rule, one table, one loop (see :mod:`.registry`)."""

from __future__ import annotations

from .base import PROFILE_SONNX, PROFILE_STRICT, PROFILES, CheckConfig, CheckContext, Rule
from .registry import RULES, rule_by_id, rules_for, run_rules

__all__ = [
    "PROFILES",
    "PROFILE_SONNX",
    "PROFILE_STRICT",
    "RULES",
    "CheckConfig",
    "CheckContext",
    "Rule",
    "rule_by_id",
    "rules_for",
    "run_rules",
]
