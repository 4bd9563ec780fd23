"""Package data: files generated from the source tree (``traceability.json``, see tools/traceability.py) and
hand-written data read by the rules and the docs (``strict_operators.json``, ``wg_traceability.json``)."""
