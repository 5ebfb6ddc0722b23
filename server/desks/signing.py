"""The server's signing key: every race log and day's board it gives out is signed with it
(``protocol/signing.py``), so a player can prove to anyone what the server said.

The key is the operator's (``--signing-key PATH``, an Ed25519 PEM file) or, without one,
made once per deployment and kept in the store (in Redis every node and restart signs with
the same key; in memory one per process). Every key a deployment ever signed with stays
published (``GET /signing-keys``), so logs signed before a rotation still check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from protocol.signing import ALGORITHM, Signer
from server.store import Store


def signer_from_file(path: Path) -> Signer:
    """The operator's key; ValueError (a sentence) when the file holds no Ed25519 key."""
    try:
        return Signer.from_pem(path.read_bytes())
    except (ValueError, TypeError) as error:
        raise ValueError(
            f"{path} is not an unencrypted Ed25519 private key in PEM ({error})"
        ) from None


class Seal:
    """The signer in use and every published public key."""

    def __init__(self, store: Store, key_path: Path | None) -> None:
        self.store = store
        self.key_path = key_path
        self.signer = Signer.new()  # replaced by ``start``: the operator's or the store's
        self.published: dict[str, str] = {}

    async def start(self) -> None:
        if self.key_path is not None:
            self.signer = signer_from_file(self.key_path)
        else:
            self.signer = Signer.from_hex(await self.store.signing_key(self.signer.private_hex))
        self.published = await self.store.publish_key(self.signer.key_id, self.signer.public_hex)

    def sign(self, document: dict[str, Any]) -> dict[str, Any]:
        return self.signer.sign(document)

    def current(self) -> dict[str, str]:
        """The key this server signs with now, as ``welcome`` shows it."""
        return {
            "algorithm": ALGORITHM,
            "key": self.signer.key_id,
            "public_key": self.signer.public_hex,
        }

    def keys(self) -> dict[str, Any]:
        """``GET /signing-keys``: the current key's id and every published key."""
        return {
            "algorithm": ALGORITHM,
            "current": self.signer.key_id,
            "keys": [{"key": k, "public_key": v} for k, v in sorted(self.published.items())],
        }
