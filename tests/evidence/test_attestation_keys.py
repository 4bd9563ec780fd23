"""``--sign KEY`` and ``evidence verify --key PUB``: key files that cannot be used, and sonnx without cryptography.

Every unusable key is one line on stderr and exit 2, before the check runs and
without leaving a bundle; the keys are made here with ``cryptography``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from sonnx.base.errors import UsageError
from sonnx.checking import pipeline
from sonnx.checking.evidence import attestation as att
from sonnx.checking.evidence import bundle as bundle_mod
from sonnx.checking.evidence import signing_keys
from sonnx.checking.options import CheckOptions
from sonnx.cli import check_main, main
from tests.common.bundles import EX, write
from tests.common.cli import ROOT, call, one_line

MODEL = EX / "r1_dead_chain.onnx"
PKCS8 = serialization.PrivateFormat.PKCS8
SPKI = serialization.PublicFormat.SubjectPublicKeyInfo
PEM = serialization.Encoding.PEM


@pytest.fixture(scope="module")
def ed_key() -> ed25519.Ed25519PrivateKey:
    return ed25519.Ed25519PrivateKey.generate()


@pytest.fixture
def good(tmp_path: Path, ed_key: ed25519.Ed25519PrivateKey) -> tuple[Path, Path]:
    private, public = tmp_path / "k.pem", tmp_path / "k.pub"
    private.write_bytes(ed_key.private_bytes(PEM, PKCS8, serialization.NoEncryption()))
    public.write_bytes(ed_key.public_key().public_bytes(PEM, SPKI))
    return private, public


def _encrypted(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "enc.pem"
    p.write_bytes(k.private_bytes(PEM, PKCS8, serialization.BestAvailableEncryption(b"secret")))
    return p


def _rsa(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "rsa.pem"
    p.write_bytes(rsa.generate_private_key(65537, 2048).private_bytes(PEM, PKCS8, serialization.NoEncryption()))
    return p


def _ecdsa(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "ec.pem"
    p.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(PEM, PKCS8, serialization.NoEncryption()))
    return p


def _missing(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    return d / "nowhere.pem"


def _not_pem(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "key.txt"
    p.write_text("this is not a key\n")
    return p


def _raw_der(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "key.der"
    p.write_bytes(k.private_bytes(serialization.Encoding.DER, PKCS8, serialization.NoEncryption()))
    return p


def _public_instead(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "pub.pem"
    p.write_bytes(k.public_key().public_bytes(PEM, SPKI))
    return p


def _openssh(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "id_ed25519"
    p.write_bytes(k.private_bytes(PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()))
    return p


def _garbled(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "garbled.pem"
    p.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    return p


def _two_keys(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "two.pem"
    p.write_bytes(k.private_bytes(PEM, PKCS8, serialization.NoEncryption()) * 2)
    return p


def _huge(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "huge.pem"
    p.write_bytes(k.private_bytes(PEM, PKCS8, serialization.NoEncryption()) + b"#" * (signing_keys.MAX_KEY_BYTES + 1))
    return p


def _directory(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "keys"
    p.mkdir()
    return p


BAD_PRIVATE: dict[str, tuple[Callable[[Path, ed25519.Ed25519PrivateKey], Path], str]] = {
    "encrypted": (_encrypted, "the private key is encrypted"),
    "RSA": (_rsa, "an RSA key; sonnx signs with Ed25519 keys only"),
    "ECDSA": (_ecdsa, "an ECDSA key"),
    "missing": (_missing, "no such file"),
    "not PEM": (_not_pem, "not a PEM key file"),
    "DER": (_raw_der, "not a PEM key file"),
    "public key": (_public_instead, "a public key; signing needs the private key"),
    "OpenSSH": (_openssh, "'OPENSSH PRIVATE KEY', not an Ed25519 PKCS#8"),
    "garbled": (_garbled, "not a readable private key"),
    "two keys": (_two_keys, "holds 2 PEM blocks"),
    "oversized": (_huge, "more than the 16384 such a file may have"),
    "directory": (_directory, "not a regular file"),
}


@pytest.mark.parametrize("name", sorted(BAD_PRIVATE))
def test_an_unusable_signing_key_is_one_line_before_the_check(
    name: str, tmp_path: Path, ed_key: ed25519.Ed25519PrivateKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, words = BAD_PRIVATE[name]
    key = make(tmp_path, ed_key)

    def no_check(*_args: object, **_kw: object) -> None:
        raise AssertionError("the check ran before the key was refused")

    monkeypatch.setattr(pipeline, "check_file", no_check)
    dest = tmp_path / "bundle"
    code, out, err = call(check_main, "-q", str(MODEL), "--evidence", str(dest), "--sign", str(key))
    one_line(code, out, err)
    assert words in err and "--sign" in err, err
    assert not dest.exists() and not list(tmp_path.glob(".bundle.tmp-*"))


def _private(d: Path, k: ed25519.Ed25519PrivateKey) -> Path:
    p = d / "private.pem"
    p.write_bytes(k.private_bytes(PEM, PKCS8, serialization.NoEncryption()))
    return p


def _public_of(private: Path, d: Path) -> Path:
    key = serialization.load_pem_private_key(private.read_bytes(), None)
    p = d / "other.pub"
    p.write_bytes(key.public_key().public_bytes(PEM, SPKI))
    return p


BAD_PUBLIC: dict[str, tuple[Callable[[Path, ed25519.Ed25519PrivateKey], Path], str]] = {
    "private key": (_private, "a private key; verifying needs"),
    "RSA": (lambda d, k: _public_of(_rsa(d, k), d), "an RSA key; sonnx verifies Ed25519 keys only"),
    "missing": (_missing, "no such file"),
    "not PEM": (_not_pem, "not a PEM key file"),
}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("keys") / "b"
    assert write(dest, MODEL) == 1
    return dest


@pytest.mark.parametrize("name", sorted(BAD_PUBLIC))
def test_an_unusable_verifying_key_is_one_line(
    name: str, tmp_path: Path, ed_key: ed25519.Ed25519PrivateKey, bundle: Path
) -> None:
    make, words = BAD_PUBLIC[name]
    code, out, err = call(main, "evidence", "verify", "-q", str(bundle), "--key", str(make(tmp_path, ed_key)))
    one_line(code, out, err)
    assert words in err and "--key" in err, err


def test_sign_needs_evidence(good: tuple[Path, Path]) -> None:
    one_line(*call(check_main, "-q", str(MODEL), "--sign", str(good[0])))
    with pytest.raises(UsageError, match="--sign applies to --evidence"):
        CheckOptions(sign="k.pem")


def test_a_failed_signature_leaves_no_bundle(
    good: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(_root: Path, _key: str) -> str:
        raise att.AttestationError("--sign: the key went away")

    monkeypatch.setattr(bundle_mod, "sign_bundle", fail)
    dest = tmp_path / "bundle"
    code, _out, err = call(check_main, "-q", str(MODEL), "--evidence", str(dest), "--sign", str(good[0]))
    assert code == 2 and "the key went away" in err, err
    assert not dest.exists() and not list(tmp_path.glob(".bundle.tmp-*"))


def test_without_cryptography_signing_is_one_line_and_the_rest_works(
    good: tuple[Path, Path], bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "cryptography", None)  # import cryptography now raises ImportError
    code, out, err = call(check_main, "-q", str(MODEL), "--evidence", str(tmp_path / "s"), "--sign", str(good[0]))
    one_line(code, out, err)
    assert "needs the cryptography package: pip install 'sonnx[sign]'" in err
    code, out, err = call(main, "evidence", "verify", "-q", str(bundle), "--key", str(good[1]))
    one_line(code, out, err)
    assert "pip install 'sonnx[sign]'" in err
    assert write(tmp_path / "plain", MODEL) == 1  # an unsigned bundle needs no cryptography
    assert call(main, "evidence", "verify", "-q", str(tmp_path / "plain"))[0] == 0


def test_batch_signs_every_bundle(good: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    root = tmp_path / "fleet"
    names = ["examples/r1_dead_chain.onnx", "examples/c2_unused_input.onnx"]
    code, out, err = call(
        main, "batch", "-q", "-j", "2", "--executor", "pool", "--evidence", str(root), "--sign", str(good[0]), *names
    )
    assert code == 1 and "Traceback" not in err, err
    for name in names:
        assert (root / name / att.ATTESTATION).is_file()
        code, out, err = call(main, "evidence", "verify", "-q", str(root / name), "--key", str(good[1]))
        assert code == 0 and "the signature by key" in out, out


def test_batch_refuses_a_bad_key_and_sign_with_a_scheduler(
    good: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ed_key: ed25519.Ed25519PrivateKey
) -> None:
    monkeypatch.chdir(ROOT)
    root = tmp_path / "fleet"
    bad = _rsa(tmp_path, ed_key)
    one_line(*call(main, "batch", "-q", "-j", "1", "--evidence", str(root), "--sign", str(bad), str(MODEL)))
    assert not root.exists() or not any(root.rglob("manifest.json"))
    code, out, err = call(
        main, "batch", "-q", "--scheduler", "tcp://127.0.0.1:1", "--evidence", str(root), "--sign", str(good[0]),
        "examples/r1_dead_chain.onnx",
    )
    one_line(code, out, err)
    assert "--scheduler" in err and "--sign" in err
