"""``python -m sonnx`` runs the ``sonnx`` command."""

from __future__ import annotations

from .cli.main import console_main

console_main()
