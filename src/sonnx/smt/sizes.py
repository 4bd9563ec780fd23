"""Model sizes at which the SMT engine changes how it works, in a module that imports nothing.

The command line prints them in its help, so reading them must not import
the solver pool (and with it :mod:`multiprocessing`) on every start.
"""

from __future__ import annotations

POOL_MIN_OPERATIONS = 50_000
"""Operations (all graphs together) from which :func:`.pool.open_solving` starts worker processes for ``jobs > 1``."""
