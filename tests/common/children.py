"""Watching a child process that sonnx started, without reaping it (the code under test reaps it)."""

from __future__ import annotations

import os
import time

PATIENCE = 60.0
"""Seconds a test waits for a child to end before it fails: far above what any child here needs."""


def has_ended(pid: int) -> bool:
    """Whether the child ``pid`` has ended (it stays a zombie for its parent to reap: ``WNOWAIT``)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def wait_until_ended(pid: int) -> bool:
    """Wait until the child ``pid`` has ended by itself (True), or :data:`PATIENCE` has passed (False)."""
    give_up = time.monotonic() + PATIENCE
    while time.monotonic() < give_up:
        if has_ended(pid):
            return True
        time.sleep(0.01)
    return False
