"""Signed evidence bundles: the DSSE envelope and in-toto Statement, and every forgery of them refused.

The keys are made here with ``cryptography`` (no private key is committed).
A forger in these tests holds the bundle and may hold a key of their own, but
not the signer's private key; where a test needs a validly signed but wrong
Statement it signs with the signer's key, to show that the Statement checks
hold on their own and do not lean on the signature.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sonnx.checking.evidence import attestation as att
from sonnx.checking.evidence import render as bundle_mod
from sonnx.cli import main
from tests.common.bundles import EX, copy_of, files_of, verify, write
from tests.common.cli import call

MODEL = EX / "r1_dead_chain.onnx"  # R1 violated: exit 1, and the bundle is written


def private_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_pem(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


class Keys:
    """The signer's key pair and another one, as PEM files."""

    def __init__(self, folder: Path) -> None:
        self.signer = Ed25519PrivateKey.generate()
        self.other = Ed25519PrivateKey.generate()
        self.private = folder / "signer.pem"
        self.public = folder / "signer.pub"
        self.other_private = folder / "other.pem"
        self.other_public = folder / "other.pub"
        self.private.write_bytes(private_pem(self.signer))
        self.public.write_bytes(public_pem(self.signer))
        self.other_private.write_bytes(private_pem(self.other))
        self.other_public.write_bytes(public_pem(self.other))


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    return Keys(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, keys: Keys) -> Path:
    dest = tmp_path_factory.mktemp("signed") / "b"
    assert write(dest, MODEL, "--sign", str(keys.private)) == 1
    return dest


def verify_key(d: Path, pub: Path) -> tuple[int, str]:
    code, out, err = call(main, "evidence", "verify", "-q", str(d), "--key", str(pub))
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out


def envelope(d: Path) -> dict[str, Any]:
    return dict(json.loads((d / att.ATTESTATION).read_bytes()))


def put(d: Path, env: dict[str, Any]) -> None:
    (d / att.ATTESTATION).write_text(json.dumps(env, separators=(",", ":")) + "\n")


def signed_envelope(key: Ed25519PrivateKey, body: bytes, payload_type: str = att.PAYLOAD_TYPE) -> dict[str, Any]:
    """A well-formed envelope of ``body`` validly signed by ``key`` (keyid and signature both right)."""
    keyid = hashlib.sha256(key.public_key().public_bytes_raw()).hexdigest()
    sig = key.sign(att.pae(payload_type, body))
    return {
        "payloadType": payload_type,
        "payload": base64.b64encode(body).decode(),
        "signatures": [{"keyid": keyid, "sig": base64.b64encode(sig).decode()}],
    }


def refused(d: Path, pub: Path, *words: str) -> None:
    code, out = verify_key(d, pub)
    assert code == 1 and out.startswith("FAILED") and "signature: " in out, out
    for w in words:
        assert w in out, (w, out)


# --- the format, against the DSSE specification's own examples ---------------------------------------------


def test_pae_of_the_dsse_protocol_example() -> None:
    # secure-systems-lab/dsse protocol.md, "Test Vectors": body "hello world", type http://example.com/HelloWorld.
    assert att.pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


def test_pae_counts_bytes_not_characters_and_keeps_the_space_of_an_empty_body() -> None:
    assert att.pae("application/vnd.exämple+json", b"{}").startswith(b"DSSEv1 29 application/vnd.ex\xc3\xa4mple")
    assert att.pae(att.PAYLOAD_TYPE, b"") == b"DSSEv1 28 application/vnd.in-toto+json 0 "


# secure-systems-lab/dsse testvectors/vectors.json: key A is RFC 8032 section 7.1 TEST 1, whose signatures are
# deterministic; "single-signature" is standard base64, "url-safe-base64" the URL-safe alphabet.
RFC8032_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
DSSE_VECTORS = [
    (
        "eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ==",
        "2WAfaHm5jluo0w+0rk8uVkluELJYWjSmU9x7EUzx+AyteDGJ4/nqyJXfmAUVFIAoQafWm7AxBZNw5M9ixNHiCA==",
        "445353457631203238206170706c69636174696f6e2f766e642e696e2d746f746f2b6a736f6e203433207b225f7479706522"
        "3a2268747470733a2f2f696e2d746f746f2e696f2f53746174656d656e742f7631227d",
    ),
    (
        "-_-_Pj8=",
        "P-_KHICeR7tI6S_YyejJTRtrXhcQyQ2LYPaL8h90KjC9qN8HU_svOQ6TuDOT1HIrsGW886DbWNWcCmX5twLrAw==",
        "445353457631203238206170706c69636174696f6e2f766e642e696e2d746f746f2b6a736f6e203520fbffbf3e3f",
    ),
]


@pytest.mark.parametrize(("payload", "sig", "pae_hex"), DSSE_VECTORS)
def test_the_dsse_test_vectors(payload: str, sig: str, pae_hex: str) -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(RFC8032_SEED))
    body = att.strict_b64(payload, "payload")
    encoded = att.pae(att.PAYLOAD_TYPE, body)
    assert encoded.hex() == pae_hex
    signature = att.strict_b64(sig, "sig")
    key.public_key().verify(signature, encoded)  # raises when PAE or the base64 reading is wrong
    assert key.sign(encoded) == signature


@pytest.mark.parametrize("text", ["aGk", "aGk=\n", " aGk=", "aGl=", "aG+_", "aGk==", "a*k="])
def test_base64_that_is_not_canonical_is_refused(text: str) -> None:
    with pytest.raises(att.AttestationError):
        att.strict_b64(text, "payload")


def test_names_shared_with_the_bundle_writer() -> None:
    assert att.SUBJECT == bundle_mod.MANIFEST and att.BUNDLE_SCHEMA == bundle_mod.SCHEMA


# --- a signed bundle ----------------------------------------------------------------------------------------


def test_a_signed_bundle_verifies_with_its_key(signed: Path, keys: Keys) -> None:
    code, out = verify_key(signed, keys.public)
    assert code == 0 and out.startswith("verified:"), out
    keyid = hashlib.sha256(keys.signer.public_key().public_bytes_raw()).hexdigest()
    assert f"the signature by key {keyid} covers manifest.json" in out


def test_the_attestation_file(signed: Path, keys: Keys) -> None:
    line = (signed / att.ATTESTATION).read_bytes()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    env = envelope(signed)
    assert list(env) == ["payloadType", "payload", "signatures"]
    assert env["payloadType"] == "application/vnd.in-toto+json"
    statement = json.loads(base64.b64decode(env["payload"]))
    root = hashlib.sha256((signed / "manifest.json").read_bytes()).hexdigest()
    assert statement == {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": "manifest.json", "digest": {"sha256": root}}],
        "predicateType": "urn:sonnx:evidence-bundle:v1",
        "predicate": {"schema": "sonnx-evidence/2"},
    }
    assert att.root_digest((signed / "manifest.json").read_bytes()) == root
    manifest = json.loads((signed / "manifest.json").read_text())
    assert att.ATTESTATION not in manifest["files"]
    assert "--sign" not in manifest["command_line"] and "sign" not in manifest["options"]


def test_signing_is_reproducible_and_the_rest_of_the_bundle_unchanged(signed: Path, keys: Keys, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    assert write(plain, MODEL) == 1
    signed_files = files_of(signed)
    assert signed_files.pop(att.ATTESTATION) and signed_files == files_of(plain)
    assert att.sign_bundle(plain, str(keys.private)) == envelope(signed)["signatures"][0]["keyid"]
    assert (plain / att.ATTESTATION).read_bytes() == (signed / att.ATTESTATION).read_bytes()


def test_without_key_the_signature_is_noted_as_not_checked(signed: Path) -> None:
    code, out = verify(signed)
    assert code == 0 and "signed (attestation.intoto.jsonl) but no --key was given" in out, out


def test_an_unsigned_bundle_with_a_key_does_not_verify(signed: Path, keys: Keys, tmp_path: Path) -> None:
    d = copy_of(signed, tmp_path)
    (d / att.ATTESTATION).unlink()
    refused(d, keys.public, "attestation.intoto.jsonl: missing")
    assert verify(d)[0] == 0  # the bundle itself is intact


# --- forgeries ----------------------------------------------------------------------------------------------


def test_a_manifest_claim_changed_without_rehash(signed: Path, keys: Keys, tmp_path: Path) -> None:
    d = copy_of(signed, tmp_path)
    m = json.loads((d / "manifest.json").read_text())
    m["result"]["outcome"] = "PROVED"
    (d / "manifest.json").write_text(bundle_mod.dump_json(m))
    refused(d, keys.public, "the manifest changed")


def test_one_changed_manifest_byte(signed: Path, keys: Keys, tmp_path: Path) -> None:
    d = copy_of(signed, tmp_path)
    text = (d / "manifest.json").read_text()
    (d / "manifest.json").write_text(text.replace('"created": null', '"created": null ', 1))
    refused(d, keys.public, "the manifest changed")


def _payload_changed(d: Path, keys: Keys) -> None:
    env = envelope(d)
    env["payload"] = base64.b64encode(base64.b64decode(env["payload"]).replace(b"v1", b"v2", 1)).decode()
    put(d, env)


def _signature_changed(d: Path, keys: Keys) -> None:
    env = envelope(d)
    sig = bytearray(base64.b64decode(env["signatures"][0]["sig"]))
    sig[10] ^= 0x01
    env["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    put(d, env)


def _extra_signature(d: Path, keys: Keys) -> None:
    env = envelope(d)
    env["signatures"].append(dict(env["signatures"][0]))
    put(d, env)


def _no_signature(d: Path, keys: Keys) -> None:
    env = envelope(d)
    env["signatures"] = []
    put(d, env)


def _unknown_envelope_key(d: Path, keys: Keys) -> None:
    put(d, {**envelope(d), "note": "trust me"})


def _unknown_signature_key(d: Path, keys: Keys) -> None:
    env = envelope(d)
    env["signatures"][0]["cert"] = ""
    put(d, env)


def _wrong_payload_type(d: Path, keys: Keys) -> None:
    put(d, {**envelope(d), "payloadType": "application/json"})


def _duplicate_envelope_key(d: Path, keys: Keys) -> None:
    line = (d / att.ATTESTATION).read_text()
    (d / att.ATTESTATION).write_text('{"payloadType":"x",' + line[1:])


def _two_lines(d: Path, keys: Keys) -> None:
    line = (d / att.ATTESTATION).read_text()
    (d / att.ATTESTATION).write_text(line + line)


def _keyid_changed(d: Path, keys: Keys) -> None:
    env = envelope(d)
    env["signatures"][0]["keyid"] = "0" * 64
    put(d, env)


def _resigned_by_another_key(d: Path, keys: Keys) -> None:
    m = json.loads((d / "manifest.json").read_text())
    m["result"]["outcome"] = "PROVED"
    (d / "manifest.json").write_text(bundle_mod.dump_json(m))
    att.sign_bundle(d, str(keys.other_private))


FORGERIES: dict[str, tuple[Callable[[Path, Keys], None], str]] = {
    "payload": (_payload_changed, "does not verify"),
    "signature": (_signature_changed, "does not verify"),
    "extra signature": (_extra_signature, "2 signatures"),
    "no signature": (_no_signature, "0 signatures"),
    "unknown envelope key": (_unknown_envelope_key, "unknown field 'note'"),
    "unknown signature key": (_unknown_signature_key, "unknown field 'cert'"),
    "payloadType": (_wrong_payload_type, "payloadType 'application/json'"),
    "duplicate key": (_duplicate_envelope_key, "appears twice"),
    "two envelopes": (_two_lines, "not one line"),
    "keyid": (_keyid_changed, "signed by key '0000"),
    "another key": (_resigned_by_another_key, "not by the key"),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_envelope_is_refused(name: str, signed: Path, keys: Keys, tmp_path: Path) -> None:
    forge, words = FORGERIES[name]
    d = copy_of(signed, tmp_path)
    forge(d, keys)
    refused(d, keys.public, words)


def test_the_other_public_key_does_not_verify_the_signers_bundle(signed: Path, keys: Keys) -> None:
    refused(signed, keys.other_public, "not by the key")


def test_url_safe_base64_is_accepted_as_dsse_requires(signed: Path, keys: Keys, tmp_path: Path) -> None:
    d = copy_of(signed, tmp_path)
    env = envelope(d)
    env["payload"] = base64.urlsafe_b64encode(base64.b64decode(env["payload"])).decode()
    env["signatures"][0]["sig"] = base64.urlsafe_b64encode(base64.b64decode(env["signatures"][0]["sig"])).decode()
    put(d, env)
    assert verify_key(d, keys.public)[0] == 0


def _statement(root: str) -> dict[str, Any]:
    return att.statement(root)


def _compact(st: dict[str, Any]) -> bytes:
    return json.dumps(st, separators=(",", ":")).encode()


def _other_digest(root: str) -> bytes:
    st = _statement(root)
    st["subject"][0]["digest"]["sha256"] = hashlib.sha256(b"another manifest").hexdigest()
    return _compact(st)


def _two_subjects(root: str) -> bytes:
    st = _statement(root)
    st["subject"].append({"name": "model/x.onnx", "digest": {"sha256": root}})
    return _compact(st)


def _extra_statement_field(root: str) -> bytes:
    return _compact({**_statement(root), "verdict": "PROVED"})


def _other_predicate(root: str) -> bytes:
    return _compact({**_statement(root), "predicateType": "https://slsa.dev/provenance/v1"})


def _other_subject_name(root: str) -> bytes:
    st = _statement(root)
    st["subject"][0]["name"] = "verdicts.json"
    return _compact(st)


def _second_digest(root: str) -> bytes:
    st = _statement(root)
    st["subject"][0]["digest"]["sha512"] = "0" * 128
    return _compact(st)


def _spaced(root: str) -> bytes:
    return json.dumps(_statement(root)).encode()


STATEMENTS: dict[str, tuple[Callable[[str], bytes], str]] = {
    "other digest": (_other_digest, "the manifest changed"),
    "two subjects": (_two_subjects, "not one resource"),
    "extra field": (_extra_statement_field, "unknown field 'verdict'"),
    "other predicate": (_other_predicate, "predicateType"),
    "other subject": (_other_subject_name, "'verdicts.json'"),
    "second digest": (_second_digest, "unknown field 'sha512'"),
    "other serialization": (_spaced, "payload bytes differ"),
}


@pytest.mark.parametrize("name", sorted(STATEMENTS))
def test_a_validly_signed_wrong_statement_is_refused(name: str, signed: Path, keys: Keys, tmp_path: Path) -> None:
    make, words = STATEMENTS[name]
    d = copy_of(signed, tmp_path)
    root = hashlib.sha256((d / "manifest.json").read_bytes()).hexdigest()
    put(d, signed_envelope(keys.signer, make(root)))
    refused(d, keys.public, words)


def test_the_right_statement_re_signed_by_the_test_verifies(signed: Path, keys: Keys, tmp_path: Path) -> None:
    # The control of the test above: the same construction with the right Statement is accepted.
    d = copy_of(signed, tmp_path)
    root = hashlib.sha256((d / "manifest.json").read_bytes()).hexdigest()
    put(d, signed_envelope(keys.signer, att.statement_bytes(root)))
    assert verify_key(d, keys.public)[0] == 0


def test_a_hostile_value_is_quoted_and_cut_in_the_message(signed: Path, keys: Keys, tmp_path: Path) -> None:
    d = copy_of(signed, tmp_path)
    put(d, {**envelope(d), "payloadType": "\x1b[2J\nverified: all" + "A" * 20_000})
    code, out = verify_key(d, keys.public)
    assert code == 1 and "\x1b" not in out and "\nverified" not in out and len(out) < 2_000, out
