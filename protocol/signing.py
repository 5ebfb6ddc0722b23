"""Signed documents, pure: what the server says (a race log, a day's board) signed with
its Ed25519 key, so a player holding one can prove to anyone what the server said.

The signed bytes are ``solrace-signed-v1\\n`` followed by the document without its
``signature`` field as canonical JSON: keys sorted, no spaces, UTF-8 (non-ASCII characters
as themselves). The ``signature`` field is ``{"algorithm": "ed25519", "key": KEY_ID,
"value": HEX}``; KEY_ID is the first 16 hex digits of the SHA-256 of the raw 32-byte
public key, which the server publishes (``GET /signing-keys``, and in ``welcome``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)

CONTEXT = b"solrace-signed-v1\n"
ALGORITHM = "ed25519"


def signed_bytes(document: dict[str, Any]) -> bytes:
    """What a signature covers: the document without its ``signature``, canonical."""
    body = {key: value for key, value in document.items() if key != "signature"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return CONTEXT + text.encode()


def fingerprint(public_hex: str) -> str:
    """A public key's fingerprint: its raw bytes' SHA-256, in hex."""
    return hashlib.sha256(bytes.fromhex(public_hex)).hexdigest()


def key_id(public_hex: str) -> str:
    """A public key's short name: the first 16 hex digits of its fingerprint."""
    return fingerprint(public_hex)[:16]


class Signer:
    """One Ed25519 private key: signs documents, names its public key."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.public_hex = raw.hex()
        self.key_id = key_id(self.public_hex)

    @classmethod
    def new(cls) -> Signer:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_hex(cls, private_hex: str) -> Signer:
        """From the raw 32-byte private key in hex (how the store keeps it)."""
        return cls(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private_hex)))

    @classmethod
    def from_pem(cls, pem: bytes) -> Signer:
        """From an unencrypted PEM file (``openssl genpkey -algorithm ed25519``);
        ValueError if it is not an Ed25519 private key."""
        key = load_pem_private_key(pem, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError("the key is not an Ed25519 private key")
        return cls(key)

    @property
    def private_hex(self) -> str:
        return self._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()).hex()

    def sign(self, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with its ``signature`` (any earlier one replaced)."""
        value = self._private.sign(signed_bytes(document)).hex()
        signature = {"algorithm": ALGORITHM, "key": self.key_id, "value": value}
        return {**document, "signature": signature}


def signature_problem(document: dict[str, Any], public_keys: dict[str, str]) -> str | None:
    """Why ``document``'s signature does not hold with the published ``public_keys``
    (key id -> public key hex), in a sentence; None when it holds."""
    signature = document.get("signature")
    if not isinstance(signature, dict):
        return "it carries no signature"
    if signature.get("algorithm") != ALGORITHM:
        return f"its signature's algorithm is not {ALGORITHM}"
    public_hex = public_keys.get(str(signature.get("key")))
    if public_hex is None:
        return f"it is signed with key {signature.get('key')!r}, which the server does not publish"
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
        public.verify(bytes.fromhex(str(signature.get("value"))), signed_bytes(document))
    except (InvalidSignature, ValueError):
        return "its signature does not match its contents: it was changed after signing"
    return None
