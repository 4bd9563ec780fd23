"""Reports in the formats other tools read: SARIF 2.1.0 (:mod:`.sarif`) and JUnit XML (:mod:`.junit`).

Both are renderings of :class:`~sonnx.checking.report.ModelReport` and say no more than
the report does: a violation is a failure with its witness, an UNKNOWN verdict
is never shown as a pass, and a model that could not be checked is reported
as such. The native, schema-versioned format remains ``--json``
(:func:`sonnx.checking.report.json_report`).
"""

from __future__ import annotations

from .junit import junit_report, write_junit
from .sarif import sarif_report, write_sarif

__all__ = ["junit_report", "sarif_report", "write_junit", "write_sarif"]
