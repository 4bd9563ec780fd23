"""Signing an evidence bundle: an in-toto Statement about its manifest, in a DSSE envelope, signed with Ed25519.

Re-deriving a bundle (``sonnx evidence verify``) shows that every claim it
makes follows from the bundled model; it cannot show *who* wrote the bundle,
nor vouch for what only the writer knew (the creation date, the build that
ran). A signature adds that, and only that.

What is signed: the **root digest**, the SHA-256 of the exact bytes of
``manifest.json``. The manifest lists the SHA-256 of every other file of the
bundle, so the root digest commits to all of them. The signature lives in one
extra file, :data:`ATTESTATION`, which the manifest does not list (it could
not: it signs the manifest).

The formats are those of the supply-chain tools, so that an attestation
verifier can read the file without sonnx:

* **DSSE** (secure-systems-lab/dsse, ``protocol.md`` and ``envelope.md``,
  v1.0). The envelope is a JSON object with ``payloadType``, ``payload`` (the
  base64 of the serialized body) and ``signatures``, a list of objects with an
  optional ``keyid`` and ``sig`` (the base64 of the signature). The signature
  covers not the JSON but the pre-authentication encoding
  ``PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body``,
  where SP is one ASCII space and LEN the byte count as ASCII decimal without
  leading zeros; the type is taken as its UTF-8 bytes. The keyid is an
  unauthenticated hint that must not decide anything by itself. Verifiers must
  accept both the standard and the URL-safe base64 alphabets.
* **in-toto attestation v1** (in-toto/attestation, ``spec/v1``). The
  envelope's ``payloadType`` must be ``application/vnd.in-toto+json`` and its
  payload a Statement: ``_type`` ``https://in-toto.io/Statement/v1``, a
  ``subject`` list of resource descriptors (each with a ``digest`` map from
  algorithm to lowercase hex, and optionally a ``name``), a ``predicateType``
  that is a URI (a TypeURI need not resolve and should carry a version), and
  an optional ``predicate`` object. Envelopes stored together are kept one per
  line in a JSON Lines file whose name ends in ``.intoto.jsonl``.

The choices of sonnx within those formats:

* one subject, named ``manifest.json``, whose digest is the root digest;
* ``predicateType`` :data:`PREDICATE_TYPE`, a URN of sonnx's own (a URI, as a
  TypeURI must be, with its version at the end), and the predicate
  ``{"schema": "sonnx-evidence/2"}``, the schema of the bundle it describes;
* the Statement serialized as compact JSON with a fixed key order, so that
  signing the same bundle with the same key gives the same bytes (Ed25519
  signatures are deterministic, RFC 8032);
* exactly one signature; its ``keyid`` is :func:`.signing_keys.key_id`, the lowercase hex
  SHA-256 of the raw 32-byte public key, which anyone can compute from the
  public key file (the last 32 bytes of its DER form);
* keys are PEM files (see :mod:`.signing_keys`).

:func:`check_signature` is strict: the envelope and the Statement must have
exactly the fields above (no unknown key, no duplicate key, no second
signature, canonical base64), the payload must be byte for byte the Statement
sonnx writes for the manifest on disk, and the signature must verify over the
PAE. Every refusal is an :class:`AttestationError` naming what is wrong.

Key files are read by :mod:`.signing_keys`; ``cryptography`` is an optional
dependency, imported only when a key is read.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from .render import SCHEMA
from .safe_files import MAX_JSON_BYTES, BundleFileError, parse_json, read_member
from .signing_keys import AttestationError, key_id, load_signing_key, load_verify_key

ATTESTATION = "attestation.intoto.jsonl"
"""The file of a signed bundle that holds its DSSE envelope (one line, final newline); not in the manifest."""
SUBJECT = "manifest.json"
"""The one subject of the Statement: the bundle's manifest (the bundle writer's ``MANIFEST``)."""
BUNDLE_SCHEMA = SCHEMA
"""The bundle schema the predicate names (the bundle writer's ``SCHEMA``)."""
PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:sonnx:evidence-bundle:v1"
MAX_ATTESTATION_BYTES = 64 << 10
"""The largest attestation file read (a signed bundle's is under 1 KiB)."""

_HEX64 = re.compile(r"[0-9a-f]{64}")
_STANDARD = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_URLSAFE = re.compile(r"[A-Za-z0-9_-]*={0,2}")


def root_digest(manifest_bytes: bytes) -> str:
    """The bundle's root digest: SHA-256 (lowercase hex) of the exact bytes of its manifest."""
    return hashlib.sha256(manifest_bytes).hexdigest()


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE's pre-authentication encoding of ``payload_type`` (as UTF-8) and ``body``: what is signed."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def statement(root: str) -> dict[str, Any]:
    """The in-toto Statement sonnx signs for a bundle whose root digest is ``root``."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": SUBJECT, "digest": {"sha256": root}}],
        "predicateType": PREDICATE_TYPE,
        "predicate": {"schema": BUNDLE_SCHEMA},
    }


def statement_bytes(root: str) -> bytes:
    """The Statement of ``root`` serialized as the payload: compact JSON, fixed key order, ASCII."""
    return json.dumps(statement(root), separators=(",", ":"), ensure_ascii=True).encode("ascii")


def envelope_line(body: bytes, keyid: str, signature: bytes) -> bytes:
    """The DSSE envelope of ``body`` signed by ``keyid`` as one JSON line with a final newline."""
    env = {
        "payloadType": PAYLOAD_TYPE,
        "payload": base64.b64encode(body).decode("ascii"),
        "signatures": [{"keyid": keyid, "sig": base64.b64encode(signature).decode("ascii")}],
    }
    return json.dumps(env, separators=(",", ":"), ensure_ascii=True).encode("ascii") + b"\n"


def sign_bundle(bundle_dir: Path, key_file: str) -> str:
    """Sign the manifest of the bundle at ``bundle_dir`` with the key of ``key_file``; returns the keyid.

    Writes :data:`ATTESTATION` beside the manifest. The manifest must already be final.
    """
    key = load_signing_key(key_file)
    body = statement_bytes(root_digest((bundle_dir / SUBJECT).read_bytes()))
    keyid = key_id(key.public_key())
    (bundle_dir / ATTESTATION).write_bytes(envelope_line(body, keyid, key.sign(pae(PAYLOAD_TYPE, body))))
    return keyid


def _show(value: Any) -> str:
    """A value read from the attestation, for a message: quoted, escaped, at most 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _strict_json(data: bytes, what: str) -> Any:
    """``data`` as JSON read as every bundle file is (:func:`.safe_files.parse_json`)."""
    try:
        return parse_json(data, what)
    except BundleFileError as exc:
        raise AttestationError(exc.one_line()) from None


def _exact_keys(obj: Any, keys: tuple[str, ...], what: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise AttestationError(f"{what}: not a JSON object")
    extra = sorted(set(obj) - set(keys))
    if extra:
        raise AttestationError(f"{what}: unknown field {_show(extra[0])}")
    missing = [k for k in keys if k not in obj]
    if missing:
        raise AttestationError(f"{what}: no {missing[0]!r} field")
    return obj


def strict_b64(text: Any, what: str) -> bytes:
    """Canonical padded base64 in the standard or the URL-safe alphabet (DSSE accepts both), else refused."""
    if not isinstance(text, str):
        raise AttestationError(f"{what}: not a base64 string")
    urlsafe = _URLSAFE.fullmatch(text) is not None and _STANDARD.fullmatch(text) is None
    if not urlsafe and _STANDARD.fullmatch(text) is None:
        raise AttestationError(f"{what}: not base64 (a character outside both base64 alphabets)")
    try:
        data = base64.b64decode(text.replace("-", "+").replace("_", "/"), validate=True)
    except ValueError:
        raise AttestationError(f"{what}: not base64 (wrong length or padding)") from None
    again = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode("ascii")
    if again != text:
        raise AttestationError(f"{what}: not canonical base64")
    return data


def read_envelope(line: bytes) -> tuple[bytes, str, bytes]:
    """The payload, keyid and signature of an attestation file's bytes, after checking its exact schema."""
    where = ATTESTATION
    if not line.endswith(b"\n") or line.count(b"\n") != 1 or b"\r" in line:
        raise AttestationError(f"{where}: not one line with a final newline (one DSSE envelope)")
    env = _exact_keys(_strict_json(line, where), ("payloadType", "payload", "signatures"), f"{where}: envelope")
    if env["payloadType"] != PAYLOAD_TYPE:
        raise AttestationError(f"{where}: payloadType {_show(env['payloadType'])}, not {PAYLOAD_TYPE!r}")
    sigs = env["signatures"]
    if not isinstance(sigs, list) or len(sigs) != 1:
        count = len(sigs) if isinstance(sigs, list) else "no list of"
        raise AttestationError(f"{where}: {count} signatures; a sonnx bundle carries exactly one")
    sig = _exact_keys(sigs[0], ("keyid", "sig"), f"{where}: signature")
    if not isinstance(sig["keyid"], str):
        raise AttestationError(f"{where}: the keyid is not a string")
    return strict_b64(env["payload"], f"{where}: payload"), sig["keyid"], strict_b64(sig["sig"], f"{where}: sig")


def _check_statement(body: bytes, root: str) -> None:
    """The payload is the Statement sonnx writes for the root digest ``root`` (schema first, then bytes)."""
    where = f"{ATTESTATION}: statement"
    st = _exact_keys(_strict_json(body, where), ("_type", "subject", "predicateType", "predicate"), where)
    if st["_type"] != STATEMENT_TYPE:
        raise AttestationError(f"{where}: _type {_show(st['_type'])}, not {STATEMENT_TYPE!r}")
    if st["predicateType"] != PREDICATE_TYPE:
        raise AttestationError(f"{where}: predicateType {_show(st['predicateType'])}, not {PREDICATE_TYPE!r}")
    if st["predicate"] != {"schema": BUNDLE_SCHEMA}:
        raise AttestationError(f"{where}: the predicate is not {{'schema': {BUNDLE_SCHEMA!r}}}")
    subjects = st["subject"]
    if not isinstance(subjects, list) or len(subjects) != 1:
        raise AttestationError(f"{where}: the subject is not one resource")
    subject = _exact_keys(subjects[0], ("name", "digest"), f"{where}: subject")
    if subject["name"] != SUBJECT:
        raise AttestationError(f"{where}: the subject is {_show(subject['name'])}, not {SUBJECT!r}")
    digest = _exact_keys(subject["digest"], ("sha256",), f"{where}: subject digest")["sha256"]
    if not isinstance(digest, str) or _HEX64.fullmatch(digest) is None:
        raise AttestationError(f"{where}: the subject's sha256 is not 64 lowercase hex digits")
    if digest != root:
        raise AttestationError(
            f"{where}: signs a manifest of SHA-256 {digest}, but {SUBJECT} has SHA-256 {root} (the manifest changed)"
        )
    if body != statement_bytes(root):
        raise AttestationError(f"{where}: not serialized as sonnx serializes it (the payload bytes differ)")


def check_signature(bundle_dir: Path, key_file: str, manifest: bytes | None = None) -> str:
    """Check the bundle's signature with the public key of ``key_file``; returns the keyid.

    Refused (:class:`AttestationError`): a missing or malformed attestation,
    a keyid other than the key's, a signature that does not verify over the
    PAE, a Statement that does not name the SHA-256 of ``manifest.json`` as it
    is on disk (or the bytes ``manifest`` already read from it). Both files
    are read through :mod:`.safe_files`.
    """
    public = load_verify_key(key_file)
    from cryptography.exceptions import InvalidSignature

    try:
        if manifest is None:
            manifest = read_member(bundle_dir, SUBJECT, MAX_JSON_BYTES)
        line = read_member(bundle_dir, ATTESTATION, MAX_ATTESTATION_BYTES)
    except BundleFileError as exc:
        raise AttestationError(f"the bundle's signature cannot be read: {exc.one_line()}") from None
    body, keyid, sig = read_envelope(line)
    mine = key_id(public)
    if keyid != mine:
        raise AttestationError(f"{ATTESTATION}: signed by key {_show(keyid)}, not by the key {key_file} ({mine})")
    try:
        public.verify(sig, pae(PAYLOAD_TYPE, body))
    except InvalidSignature:
        raise AttestationError(f"{ATTESTATION}: the signature does not verify with the key {key_file}") from None
    _check_statement(body, root_digest(manifest))
    return keyid


__all__ = [
    "ATTESTATION",
    "AttestationError",
    "check_signature",
    "load_signing_key",
    "load_verify_key",
    "pae",
    "root_digest",
    "sign_bundle",
    "statement",
    "statement_bytes",
]
