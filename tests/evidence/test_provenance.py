"""The identity of a build: the version from git, the commit, the digest of the package's files, the peers.

A manifest and ``sonnx --version`` must name the exact code that ran. These
tests pin each part of :func:`sonnx.base.build_info.build_identity`: its fields and
their types, the package digest (content, names, what it leaves out, and the
shell recipe its docstring gives), the commit from a git work tree and from
the build, the fallbacks of :mod:`sonnx.base.version`, and what ``--version``
prints.
"""

from __future__ import annotations

import importlib
import io
import json
import platform
import re
import shutil
import subprocess
import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import onnx
import pytest

import sonnx
from sonnx.base import build_info, version
from sonnx.base.build_info import build_identity, live_commit, package_digest, package_files, render_identity
from sonnx.cli import check_main, main
from tests.common.cli import call

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(sonnx.__file__).resolve().parent
HEX64 = re.compile(r"[0-9a-f]{64}")
IN_GIT_CHECKOUT = (ROOT / ".git").exists() and shutil.which("git") is not None
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """A copy of the running package's files, without byte code."""
    target = tmp_path / "sonnx"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_version.py"))
    return target


def test_identity_has_every_field_in_a_fixed_order_with_its_type() -> None:
    identity = build_identity()
    assert list(identity) == [
        "sonnx", "commit", "commit_source", "uncommitted_changes", "package_sha256", "python", "platform",
        "dependencies",
    ]
    assert identity["sonnx"] == sonnx.__version__
    assert identity["commit"] is None or re.fullmatch(r"[0-9a-f]{7,40}", identity["commit"])
    assert identity["commit_source"] in (None, "git work tree", "build")
    assert (identity["commit"] is None) == (identity["commit_source"] is None) == (
        identity["uncommitted_changes"] is None
    )
    assert identity["uncommitted_changes"] in (None, True, False)
    assert HEX64.fullmatch(identity["package_sha256"])
    assert identity["python"] == {
        "implementation": platform.python_implementation(), "version": platform.python_version()
    }
    assert list(identity["platform"]) == ["system", "release", "machine"]
    assert identity["platform"]["system"] == platform.system()
    assert list(identity["dependencies"]) == [
        "onnx", "numpy", "z3-solver", "z3", "onnxruntime", "cvc5", "ml_dtypes"
    ]
    assert all(v is None or isinstance(v, str) for v in identity["dependencies"].values())
    assert identity["dependencies"]["onnx"] == onnx.__version__
    assert json.loads(json.dumps(identity)) == identity


def test_identity_digest_is_that_of_the_running_package() -> None:
    assert build_identity()["package_sha256"] == package_digest(PACKAGE)


def test_identity_is_computed_once_and_every_caller_gets_its_own_copy() -> None:
    first = build_identity()
    first["dependencies"]["onnx"] = "forged"
    first["sonnx"] = "forged"
    again = build_identity()
    assert again["sonnx"] == sonnx.__version__ and again["dependencies"]["onnx"] == onnx.__version__


@pytest.mark.xfail(not IN_GIT_CHECKOUT, reason="the tests run outside a git checkout: no live commit", strict=True)
def test_a_git_checkout_names_its_checked_out_commit() -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    identity = build_identity()
    assert identity["commit"] == head.stdout.strip()
    assert identity["commit_source"] == "git work tree"


def test_one_changed_byte_changes_the_digest(package_copy: Path) -> None:
    before = package_digest(package_copy)
    target = package_copy / "rules" / "registry.py"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 1
    target.write_bytes(bytes(data))
    assert package_digest(package_copy) != before


def test_same_bytes_under_another_name_change_the_digest(package_copy: Path) -> None:
    before = package_digest(package_copy)
    (package_copy / "base" / "text.py").rename(package_copy / "base" / "texts.py")
    assert package_digest(package_copy) != before


def test_an_added_file_changes_the_digest(package_copy: Path) -> None:
    before = package_digest(package_copy)
    (package_copy / "data" / "extra.json").write_text("{}")
    assert package_digest(package_copy) != before


def test_byte_code_and_the_generated_version_module_are_left_out(package_copy: Path) -> None:
    before = package_digest(package_copy)
    (package_copy / "__pycache__").mkdir()
    (package_copy / "__pycache__" / "errors.cpython-311.pyc").write_bytes(b"\x00byte code")
    (package_copy / "rules" / "__pycache__").mkdir()
    (package_copy / "rules" / "__pycache__" / "x.txt").write_text("anything under __pycache__")
    (package_copy / "stray.pyc").write_bytes(b"\x00")
    (package_copy / "base" / "_version.py").write_text("version = '9'\ncommit = 'g0'\n")
    assert package_digest(package_copy) == before
    (package_copy / "_version.py").write_text("# not the generated module: covered\n")
    assert package_digest(package_copy) != before


def test_the_digest_is_the_documented_sha256sum_listing(package_copy: Path) -> None:
    """The recipe of ``package_digest``'s docstring, run by the shell tools, gives the same value."""
    (package_copy / "__pycache__").mkdir()
    (package_copy / "__pycache__" / "a.pyc").write_bytes(b"\x01")
    (package_copy / "base" / "_version.py").write_text("version = '9'\n")
    recipe = (
        "find . -type f ! -path '*/__pycache__/*' ! -name '*.pyc' ! -name '*.pyo' ! -path ./base/_version.py "
        "-printf '%P\\n' | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum"
    )
    done = subprocess.run(["sh", "-c", recipe], cwd=package_copy, capture_output=True, text=True, check=True)
    assert done.stdout.split()[0] == package_digest(package_copy)
    assert "__pycache__/a.pyc" not in package_files(package_copy)


def _repository(tmp_path: Path, package_at: str) -> Path:
    """A git repository holding a small package at ``package_at``, committed; the package directory."""
    repo = tmp_path / "repo"
    package = repo / package_at
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "version.py").write_text("v = 1\n")
    subprocess.run([*GIT, "init", "-q", str(repo)], check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "one"], cwd=repo, check=True)
    return package


def _head(repo: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_live_commit_reads_the_work_tree_and_its_uncommitted_changes(tmp_path: Path) -> None:
    package = _repository(tmp_path, "src/sonnx")
    head = _head(tmp_path / "repo")
    assert live_commit(package) == (head, False)
    (tmp_path / "repo" / "README").write_text("outside the package: not a change of its code\n")
    assert live_commit(package) == (head, False)
    (package / "new.py").write_text("x = 1\n")
    assert live_commit(package) == (head, True)
    (package / "new.py").unlink()
    (package / "version.py").write_text("v = 2\n")
    assert live_commit(package) == (head, True)


def test_live_commit_ignores_a_checkout_that_merely_contains_the_package(tmp_path: Path) -> None:
    """A package installed into a venv inside some repository must not take that repository's commit."""
    package = _repository(tmp_path, ".venv/lib/python3/site-packages/sonnx")
    assert live_commit(package) is None
    assert live_commit(tmp_path) is None


@pytest.fixture
def uncached(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The identity's cache emptied before and after the test (which patches what the identity reads)."""
    build_info._identity.cache_clear()
    yield monkeypatch
    build_info._identity.cache_clear()


def test_without_a_work_tree_the_commit_recorded_at_build_time_is_used(uncached: pytest.MonkeyPatch) -> None:
    monkeypatch = uncached
    monkeypatch.setattr(build_info, "live_commit", lambda package_dir=None: None)
    builds = {
        ("0.1.dev3+g1234567890", "g123456789"): ("123456789", False),
        ("0.1.dev3+g1234567890.d20261127", "g123456789"): ("123456789", True),
        ("1.0+d20261127", "gabcdef0123"): ("abcdef0123", True),
        ("1.0", "gabcdef0123"): ("abcdef0123", False),
        ("0.0", None): None,
    }
    for (ver, commit), expected in builds.items():
        monkeypatch.setattr(build_info, "generated_build", lambda v=ver, c=commit: (v, c))
        assert build_info._recorded_commit() == expected, ver
        build_info._identity.cache_clear()
        identity = build_identity()
        assert identity["commit"] == (expected and expected[0])
        assert identity["commit_source"] == (expected and "build")
        assert identity["uncommitted_changes"] == (expected and expected[1])


def test_the_generated_module_template_is_what_version_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyproject's template, filled as setuptools-scm fills it, gives back the version and the commit."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools_scm"]
    assert config["version_file"] == "src/sonnx/base/_version.py" and config["fallback_version"]
    text = config["version_file_template"].format(
        version="0.1.dev5+g0123456789", version_tuple=(0, 1), scm_version=types.SimpleNamespace(short_node="g012345678")
    )
    module = types.ModuleType("sonnx.base._version")
    exec(compile(text, "_version.py", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, "sonnx.base._version", module)
    assert version.generated_build() == ("0.1.dev5+g0123456789", "g012345678")
    assert version.resolve_version() == "0.1.dev5+g0123456789"


@pytest.mark.xfail(not IN_GIT_CHECKOUT, reason="the tests run outside a git checkout", strict=True)
def test_the_generated_module_is_not_tracked() -> None:
    done = subprocess.run(["git", "check-ignore", "-q", "src/sonnx/base/_version.py"], cwd=ROOT, check=False)
    assert done.returncode == 0


def test_a_generated_module_without_a_version_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("sonnx.base._version")
    module.commit = "g0"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sonnx.base._version", module)
    assert version.generated_build() is None
    monkeypatch.setitem(sys.modules, "sonnx.base._version", None)  # an import of it now fails
    assert version.generated_build() is None


class FakeDistribution:
    """What importlib.metadata answers for an installed sonnx: its version, its files, its direct_url.json."""

    def __init__(self, ver: str, location: Path, direct_url: dict[str, Any] | None) -> None:
        self.version, self.location, self.direct_url = ver, location, direct_url

    def locate_file(self, path: str) -> Path:
        return self.location / path

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.direct_url) if name == "direct_url.json" and self.direct_url else None


def _installed(monkeypatch: pytest.MonkeyPatch, dist: FakeDistribution | None) -> None:
    def distribution(name: str) -> FakeDistribution:
        if dist is None:
            raise version.metadata.PackageNotFoundError(name)
        return dist

    monkeypatch.setattr(version.metadata, "distribution", distribution)


def test_installed_metadata_counts_only_for_this_copy_of_the_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    here = version.PACKAGE_DIR
    project = here.parent.parent
    cases = [
        (FakeDistribution("2.0", here.parent, None), "2.0"),  # a regular install of this very copy
        (FakeDistribution("2.0", tmp_path, None), None),  # an install elsewhere
        (FakeDistribution("2.0", tmp_path, {"url": project.as_uri(), "dir_info": {"editable": True}}), "2.0"),
        (FakeDistribution("2.0", tmp_path, {"url": tmp_path.as_uri(), "dir_info": {"editable": True}}), None),
        (FakeDistribution("2.0", tmp_path, {"url": project.as_uri(), "dir_info": {}}), None),  # not editable
        (FakeDistribution("2.0", tmp_path, {"url": "https://example.com/x", "dir_info": {"editable": True}}), None),
        (None, None),
    ]
    for dist, expected in cases:
        _installed(monkeypatch, dist)
        assert version.installed_version() == expected, dist and dist.direct_url


def test_a_copy_without_any_trace_of_a_version_says_it_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sonnx.base._version", None)
    _installed(monkeypatch, None)
    assert version.resolve_version() == version.UNKNOWN_VERSION == "0+unknown"
    _installed(monkeypatch, FakeDistribution("3.1", version.PACKAGE_DIR.parent, None))
    assert version.resolve_version() == "3.1"


def _version_output(entry: Any) -> str:
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as stop:
        entry(["--version"], stdout=out, stderr=err)
    assert stop.value.code == 0 and err.getvalue() == ""
    return out.getvalue()


@pytest.mark.parametrize("entry", [main, check_main], ids=["sonnx", "sonnx-check"])
def test_version_option_prints_the_whole_identity(entry: Any) -> None:
    text = _version_output(entry)
    identity = build_identity()
    lines = text.splitlines()
    assert lines[0] == f"sonnx {sonnx.__version__}"
    assert text == render_identity(identity)
    assert f"package sha256 {identity['package_sha256']}" in lines
    if identity["commit"] is not None:
        assert lines[1].startswith(f"commit {identity['commit']}")
    assert f"onnx {onnx.__version__}" in lines
    assert any(line.startswith("z3 ") for line in lines)


def test_the_identity_is_computed_only_when_version_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    build_info = importlib.import_module("sonnx.base.build_info")  # where the command line takes it from

    def refuse() -> dict[str, Any]:
        raise AssertionError("build_identity called without --version")

    monkeypatch.setattr(build_info, "build_identity", refuse)
    code, out, err = call(main, "rules")
    assert code == 0 and out, err
    with pytest.raises(AssertionError, match="without --version"):
        call(main, "--version")


def test_render_names_a_missing_commit_and_missing_libraries() -> None:
    identity = build_identity()
    identity.update(commit=None, commit_source=None, uncommitted_changes=None)
    identity["dependencies"]["cvc5"] = None
    lines = render_identity(identity).splitlines()
    assert lines[1].startswith("commit unknown")
    assert "cvc5 not installed" in lines
    identity.update(commit="ab12", commit_source="build", uncommitted_changes=True)
    assert render_identity(identity).splitlines()[1] == "commit ab12 (with uncommitted changes), from the build"


def test_the_console_script_prints_the_identity_and_exits_0() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sonnx", "--version"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"sonnx {sonnx.__version__}"
    assert f"package sha256 {package_digest(PACKAGE)}" in done.stdout
