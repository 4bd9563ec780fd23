"""The version of sonnx, in a module of its own so that any module can read it without importing the package.

``sonnx/__init__.py`` re-exports it as ``sonnx.__version__``; a module that
imported the package itself for it would reach, through the package's public
names, the layers above its own (ARCHITECTURE.md).
"""

from __future__ import annotations

__version__ = "0.1.0"
