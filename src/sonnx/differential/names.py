"""The names of the oracles, in report order: what ``--cross-check`` accepts and what the verdicts are named after.

Every report words the titles of the cross-check verdicts, and every options
record checks the names it is given; neither runs an oracle. The names live
here, apart from :mod:`.oracles`, which runs them, so that neither imports the
runtimes' code.
"""

from __future__ import annotations

ORACLES = ("reference", "onnxruntime")
"""Oracle names accepted by ``--cross-check``, in report order."""
