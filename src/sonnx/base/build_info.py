"""Which build of sonnx is running: version, commit, a digest of its own files, Python, platform, peers.

A verdict filed in a certification record must name the code that produced
it. A version number alone cannot: it changes only at a release, and an
edited copy keeps it. :func:`build_identity` therefore records, besides the
version (:mod:`sonnx.base.version`, derived from git by setuptools-scm):

- the commit: asked of git when the package runs from a git work tree (the
  module written at build time goes stale in an editable install as soon as
  a new commit is made), with whether the package's own files differ from
  that commit; else the commit written at build time; else none;
- :func:`package_digest` of the package directory, which changes with any
  edit of any file of the package, committed or not;
- the Python version and implementation, the platform, and the exact
  installed versions of the libraries whose behaviour the verdicts depend on
  (onnx, numpy, z3 and its native library, onnxruntime, cvc5, ml_dtypes).

Distribution versions are read from their metadata, without importing them:
importing onnxruntime loads its native library, a cost paid at every start
(benchmarks/README.md, "Figures behind choices in the code"), and a version
must be readable even for a library that fails to import. The result is JSON-ready with a fixed key order, so
that a manifest can embed it as it is.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from .version import GENERATED_PATH, PACKAGE_DIR, __version__, generated_build

PEER_DISTRIBUTIONS = ("onnx", "numpy", "z3-solver", "onnxruntime", "cvc5", "ml_dtypes")
"""The libraries named in a build identity, by distribution name (None when one is not installed)."""

GIT_TIMEOUT = 5.0
"""Seconds a git query may take before the commit is read from the build instead."""

EXCLUDED_DIRS = frozenset({"__pycache__"})
EXCLUDED_SUFFIXES = (".pyc", ".pyo")
EXCLUDED_FILES = frozenset({GENERATED_PATH})
"""Left out of the package digest: byte code (written by the interpreter, not shipped) and the generated version
module (it differs between a wheel and an editable install of the same code; the identity names the commit)."""


def package_files(directory: Path) -> list[str]:
    """The relative POSIX paths of the files :func:`package_digest` covers, sorted by code point."""
    found: list[str] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if d not in EXCLUDED_DIRS]
        for name in files:
            relative = (Path(root) / name).relative_to(directory).as_posix()
            if name.endswith(EXCLUDED_SUFFIXES) or relative in EXCLUDED_FILES:
                continue
            found.append(relative)
    return sorted(found)


def package_digest(directory: Path | str = PACKAGE_DIR) -> str:
    """The SHA-256 (hex) of the files of a package directory, their names and their contents.

    The combination is the digest of a ``sha256sum`` listing: one line
    ``<SHA-256 of the file, hex>  <relative POSIX path>`` per file of
    :func:`package_files`, in that order, each ending in a newline. From the
    package directory, with GNU tools, the same value is::

        find . -type f ! -path '*/__pycache__/*' ! -name '*.pyc' ! -name '*.pyo' ! -path ./base/_version.py \\
            -printf '%P\\n' | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum
    """
    base = Path(directory)
    listing = hashlib.sha256()
    for relative in package_files(base):
        content = hashlib.sha256((base / relative).read_bytes()).hexdigest()
        listing.update(f"{content}  {relative}\n".encode())
    return listing.hexdigest()


def _git(args: list[str], cwd: Path) -> str | None:
    """The output of one git command run in ``cwd``, or None if git is missing, fails or takes too long."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def live_commit(package_dir: Path = PACKAGE_DIR) -> tuple[str, bool] | None:
    """The commit checked out in the git work tree the package runs from, and whether its files differ from it.

    Only a work tree whose ``src/sonnx`` is ``package_dir`` counts: a package
    installed into a virtual environment that happens to lie inside some git
    checkout must not take that checkout's commit.
    """
    top = _git(["rev-parse", "--show-toplevel"], package_dir)
    if not top or (Path(top) / "src" / package_dir.name).resolve() != package_dir.resolve():
        return None
    head = _git(["rev-parse", "--verify", "--quiet", "HEAD"], package_dir)
    status = _git(["status", "--porcelain", "--untracked-files=all", "--", "."], package_dir)
    if not head or status is None:
        return None
    return head, status != ""


def _recorded_commit() -> tuple[str, bool] | None:
    """The commit written at build time (setuptools-scm's ``g`` prefix removed) and whether the tree was dirty.

    With setuptools-scm's default local scheme a dirty tree's version ends in a
    date segment (``+g1a2b3c4.d20260101``, ``+d20260101`` on a tag).
    """
    generated = generated_build()
    if generated is None:
        return None
    version, commit = generated
    if commit is None:
        return None
    local = version.partition("+")[2]
    dirty = any(part[:1] == "d" and part[1:].isdigit() for part in local.split(".") if part)
    return commit.removeprefix("g"), dirty


def _distribution_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _z3_library_version() -> str | None:
    """The version the native z3 library reports (can differ from the wheel's when z3 is built separately)."""
    try:
        import z3
    except ImportError:
        return None
    return str(z3.get_full_version())


def peer_versions() -> dict[str, str | None]:
    """The installed version of each library of :data:`PEER_DISTRIBUTIONS`, and z3's native library."""
    found: dict[str, str | None] = {}
    for name in PEER_DISTRIBUTIONS:
        found[name] = _distribution_version(name)
        if name == "z3-solver":
            found["z3"] = _z3_library_version()
    return found


@functools.cache
def _identity() -> dict[str, Any]:
    live = live_commit()
    recorded = None if live is not None else _recorded_commit()
    commit, dirty = live or recorded or (None, None)
    source = "git work tree" if live is not None else "build" if recorded is not None else None
    return {
        "sonnx": __version__,
        "commit": commit,
        "commit_source": source,
        "uncommitted_changes": dirty,
        "package_sha256": package_digest(PACKAGE_DIR),
        "python": {"implementation": platform.python_implementation(), "version": platform.python_version()},
        "platform": {"system": platform.system(), "release": platform.release(), "machine": platform.machine()},
        "dependencies": peer_versions(),
    }


def build_identity() -> dict[str, Any]:
    """The identity of the running build (computed once per process; each caller gets its own copy).

    Keys, in this order: ``sonnx`` (version), ``commit`` (hex, or None),
    ``commit_source`` (``"git work tree"``, ``"build"`` or None),
    ``uncommitted_changes`` (bool, or None without a commit),
    ``package_sha256`` (:func:`package_digest`), ``python``
    (``implementation``, ``version``), ``platform`` (``system``, ``release``,
    ``machine``) and ``dependencies`` (distribution name to version or None,
    plus ``z3``: the native library's version).
    """
    return copy.deepcopy(_identity())


def render_identity(identity: dict[str, Any]) -> str:
    """The identity as the lines ``sonnx --version`` prints; the first is ``sonnx <version>``."""
    commit = identity["commit"]
    if commit is None:
        commit_line = "commit unknown (no git work tree, and the build recorded none)"
    else:
        changes = " (with uncommitted changes)" if identity["uncommitted_changes"] else ""
        commit_line = f"commit {commit}{changes}, from the {identity['commit_source']}"
    python, system = identity["python"], identity["platform"]
    lines = [
        f"sonnx {identity['sonnx']}",
        commit_line,
        f"package sha256 {identity['package_sha256']}",
        f"python {python['version']} ({python['implementation']})",
        f"platform {system['system']} {system['release']} {system['machine']}",
    ]
    lines += [f"{name} {version or 'not installed'}" for name, version in identity["dependencies"].items()]
    return "\n".join(lines) + "\n"
