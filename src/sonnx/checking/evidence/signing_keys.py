"""The key files of a signed evidence bundle: Ed25519 keys in PEM, read safely, refused in one line.

A private key (``--sign KEY``) is an unencrypted PKCS#8 PEM file, as
``openssl genpkey -algorithm ed25519`` writes it; a public key
(``evidence verify --key PUB``) a SubjectPublicKeyInfo PEM file, as
``openssl pkey -pubout`` writes it. A key file is a regular file of at most
:data:`MAX_KEY_BYTES`, opened without blocking (a FIFO cannot make sonnx
wait), holding one PEM block. An encrypted key, a key of another algorithm, a
public key where a private one is needed (or the reverse), a missing,
oversized or non-PEM file: each is an :class:`AttestationError`, one line
naming the option and the file, raised before the check runs.

``cryptography`` is the optional extra ``sign``: it is imported only here,
only when a key is read, and its absence is a one-line error saying how to
install it. The rest of sonnx never needs it.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any

from ...base.errors import InputError
from ...base.files import read_input_file

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

MAX_KEY_BYTES = 16 << 10
"""The largest key file read (an Ed25519 PEM file is about 120 bytes)."""
INSTALL_HINT = "pip install 'sonnx[sign]'"

_PEM_LABEL = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----")


class AttestationError(InputError):
    """A bundle's signature cannot be made or does not hold (bad key file, forged or malformed envelope)."""


def require_cryptography() -> None:
    """Import ``cryptography`` (the optional extra ``sign``), or a one-line error saying how to install it."""
    try:
        import cryptography  # noqa: F401  (a missing package fails here, before its submodules)
        from cryptography.hazmat.primitives.asymmetric import ed25519  # noqa: F401
    except ImportError:
        raise AttestationError(f"signing needs the cryptography package: {INSTALL_HINT}") from None
    except Exception as exc:  # a broken installation (a native library that fails to load)
        detail = " ".join(str(exc).split())[:200]
        raise AttestationError(f"the cryptography package cannot be imported ({detail}): {INSTALL_HINT}") from None


def _read_key_file(key_file: str, what: str) -> bytes:
    """The bytes of a key file: a regular file of at most :data:`MAX_KEY_BYTES`, read without blocking."""
    try:
        return read_input_file(key_file, MAX_KEY_BYTES)
    except InputError as exc:
        raise AttestationError(f"{what} {exc.one_line()}") from None


def _pem_label(data: bytes, key_file: str, what: str) -> str:
    """The label of the one PEM block of a key file (``PRIVATE KEY``, ``PUBLIC KEY``...)."""
    labels = _PEM_LABEL.findall(data)
    if not labels:
        raise AttestationError(f"{what} {key_file}: not a PEM key file (no '-----BEGIN' line)")
    if len(labels) > 1:
        raise AttestationError(f"{what} {key_file}: holds {len(labels)} PEM blocks; a key file holds one key")
    return str(labels[0].decode("ascii"))


def _not_ed25519(key: Any) -> str:
    """What kind of key ``key`` is, for the message that refuses it."""
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, rsa, x448, x25519

    kinds: list[tuple[tuple[type, ...], str]] = [
        ((rsa.RSAPrivateKey, rsa.RSAPublicKey), "an RSA"),
        ((ec.EllipticCurvePrivateKey, ec.EllipticCurvePublicKey), "an ECDSA"),
        ((dsa.DSAPrivateKey, dsa.DSAPublicKey), "a DSA"),
        ((ed448.Ed448PrivateKey, ed448.Ed448PublicKey), "an Ed448"),
        ((x25519.X25519PrivateKey, x25519.X25519PublicKey), "an X25519"),
        ((x448.X448PrivateKey, x448.X448PublicKey), "an X448"),
    ]
    for types, name in kinds:
        if isinstance(key, types):
            return name
    return "another kind of"


def _parsed(data: bytes, key_file: str, what: str, private: bool) -> Any:
    """The Ed25519 key a PEM file holds (private PKCS#8 or public SubjectPublicKeyInfo), else one line."""
    require_cryptography()
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_pem_public_key

    kind = "private" if private else "public"
    try:
        key = load_pem_private_key(data, password=None) if private else load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        detail = " ".join(str(exc).split())[:200]
        raise AttestationError(f"{what} {key_file}: not a readable {kind} key ({detail})") from None
    if not isinstance(key, Ed25519PrivateKey if private else Ed25519PublicKey):
        use = "signs with" if private else "verifies"
        raise AttestationError(f"{what} {key_file}: {_not_ed25519(key)} key; sonnx {use} Ed25519 keys only")
    return key


def load_signing_key(key_file: str) -> Ed25519PrivateKey:
    """The Ed25519 private key of ``key_file`` (unencrypted PKCS#8 PEM), or an :class:`AttestationError`.

    Called before the check runs, so that a key that cannot sign is refused before any work.
    """
    what = "--sign"
    data = _read_key_file(key_file, what)
    label = _pem_label(data, key_file, what)
    if label == "ENCRYPTED PRIVATE KEY":
        raise AttestationError(
            f"{what} {key_file}: the private key is encrypted; sonnx reads an unencrypted PKCS#8 key "
            "(openssl pkey -in KEY -out PLAIN.pem)"
        )
    if label == "PUBLIC KEY":
        raise AttestationError(f"{what} {key_file}: a public key; signing needs the private key")
    if label != "PRIVATE KEY":
        raise AttestationError(f"{what} {key_file}: a PEM {label!r}, not an Ed25519 PKCS#8 'PRIVATE KEY'")
    key: Ed25519PrivateKey = _parsed(data, key_file, what, private=True)
    return key


def load_verify_key(key_file: str) -> Ed25519PublicKey:
    """The Ed25519 public key of ``key_file`` (SubjectPublicKeyInfo PEM), or an :class:`AttestationError`."""
    what = "--key"
    data = _read_key_file(key_file, what)
    label = _pem_label(data, key_file, what)
    if label.endswith("PRIVATE KEY"):
        raise AttestationError(
            f"{what} {key_file}: a private key; verifying needs the public key (openssl pkey -in KEY -pubout)"
        )
    if label != "PUBLIC KEY":
        raise AttestationError(f"{what} {key_file}: a PEM {label!r}, not an Ed25519 'PUBLIC KEY'")
    key: Ed25519PublicKey = _parsed(data, key_file, what, private=False)
    return key


def key_id(public: Ed25519PublicKey) -> str:
    """The keyid of a public key: lowercase hex SHA-256 of its raw 32 bytes (RFC 8032 encoding)."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()
