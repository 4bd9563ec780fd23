"""The rule ID and title of EXEC-ORDERS, in a module that imports nothing.

Every text report words the title of each verdict a check can give, EXEC-ORDERS
included, whether or not the run executed the model; the names live here, apart
from :mod:`.orders`, which runs the check, so that reading them does not import
the executor's kernels.
"""

from __future__ import annotations

ID = "EXEC-ORDERS"
"""The verdict of ``--orders`` (spec/graph.rst, EXEC-ORDERS)."""
TITLE = "Execution order does not change the results"
"""Its title in every report."""
