"""Machine-checked theorems about the SONNX graph semantics (see ``registry.py`` and README.md)."""
