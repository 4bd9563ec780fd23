"""The command line: ``sonnx-check`` and ``sonnx``. It parses arguments and prints; the work is below it.

:mod:`.main` holds the entry points and the subcommand table; each subcommand
is a module of its own (:mod:`.check`, :mod:`.batch`, :mod:`.run`, :mod:`.crosscheck`,
:mod:`.evidence`, :mod:`.rules`, :mod:`.partition`, :mod:`.rewrite`,
:mod:`.equiv`); :mod:`.common` holds the options they share.
"""

from __future__ import annotations

from .main import check_main, main

__all__ = ["check_main", "main"]
