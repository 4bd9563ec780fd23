"""Package data: files generated from the source tree (see tools/traceability.py)."""
