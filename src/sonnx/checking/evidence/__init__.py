"""Evidence bundles: everything a check established, kept so that a reviewer can re-verify it later.

:mod:`.bundle` writes a bundle (``sonnx-check --evidence DIR``), :mod:`.html`
renders its human-readable page, :mod:`.verify` re-establishes it
(``sonnx evidence verify DIR``).
"""

from __future__ import annotations
