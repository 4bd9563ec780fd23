"""The version of sonnx, in a module of its own so that any module can read it without importing the package.

``sonnx/__init__.py`` re-exports it as ``sonnx.__version__``; a module that
imported the package itself for it would reach, through the package's public
names, the layers above its own (ARCHITECTURE.md).

The version is not written by hand: setuptools-scm derives it from git when
sonnx is built or installed (``pyproject.toml``, ``[tool.setuptools_scm]``)
and writes it, with the commit, into the generated module ``sonnx.base._version``.
This module reads, in order:

1. that generated module, when it is there (any build or install from git);
2. the metadata of the installed distribution, but only when that
   distribution is this very copy of the package: a checkout put on
   ``PYTHONPATH`` beside an installed sonnx must not borrow its version;
3. otherwise :data:`UNKNOWN_VERSION`, which says plainly that the version is
   not known (never a plausible number).
"""

from __future__ import annotations

import importlib
import json
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

UNKNOWN_VERSION = "0+unknown"
"""The version of a copy of sonnx that carries no trace of one (neither the generated module nor metadata)."""

DISTRIBUTION = "sonnx"
GENERATED_MODULE = "_version"
"""The module setuptools-scm writes next to this one (git-ignored)."""

PACKAGE_DIR = Path(__file__).resolve().parent.parent
"""The directory of the running sonnx package (this module is in its ``base`` folder)."""

OWN_PATH = Path(__file__).resolve().relative_to(PACKAGE_DIR).as_posix()
"""This module's path inside the package, which a regular install lists among its files."""

GENERATED_PATH = f"{Path(OWN_PATH).parent.as_posix()}/{GENERATED_MODULE}.py"
"""The generated module's path inside the package."""


def generated_build() -> tuple[str, str | None] | None:
    """The version and the short commit id (``g`` and hex digits) written at build time, or None without them."""
    try:
        module = importlib.import_module(f"{__package__}.{GENERATED_MODULE}")
    except ImportError:
        return None
    version = getattr(module, "version", None)
    commit = getattr(module, "commit", None)
    if not isinstance(version, str) or not version:
        return None
    return version, commit if isinstance(commit, str) and commit else None


def _owns_this_package(dist: metadata.Distribution, package_dir: Path) -> bool:
    """Whether ``dist`` is the installation of the package found in ``package_dir``.

    A regular install lists this module among its files; an editable install
    records the project directory it points at (PEP 610, ``direct_url.json``),
    whose ``src/sonnx`` must be ``package_dir``.
    """
    try:
        if Path(str(dist.locate_file(f"{DISTRIBUTION}/{OWN_PATH}"))).resolve() == package_dir / OWN_PATH:
            return True
        direct = dist.read_text("direct_url.json")
        if not direct:
            return False
        record = json.loads(direct)
        url = urlparse(record.get("url", ""))
        if url.scheme != "file" or not record.get("dir_info", {}).get("editable"):
            return False
        return (Path(unquote(url.path)) / "src" / DISTRIBUTION).resolve() == package_dir
    except (OSError, ValueError, AttributeError, TypeError):
        return False


def installed_version(package_dir: Path = PACKAGE_DIR) -> str | None:
    """The version in the installed distribution's metadata, if that distribution is the package in ``package_dir``."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    version = dist.version
    if not isinstance(version, str) or not version or not _owns_this_package(dist, package_dir):
        return None
    return version


def resolve_version() -> str:
    """The version of the running sonnx: the generated module, else owned metadata, else :data:`UNKNOWN_VERSION`."""
    generated = generated_build()
    if generated is not None:
        return generated[0]
    return installed_version() or UNKNOWN_VERSION


__version__ = resolve_version()
