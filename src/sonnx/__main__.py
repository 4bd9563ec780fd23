"""``python -m sonnx`` runs the ``sonnx`` command."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
