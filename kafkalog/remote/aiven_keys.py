"""The private keys that unwrap the data keys of Aiven's encrypted remote segments.

Aiven's remote storage manager makes an AES-256 data key per segment and stores it in the manifest wrapped
with the operator's RSA public key: `RSA/NONE/OAEPWithSHA3-512AndMGF1Padding` of Bouncy Castle, whose MGF1
uses SHA3-512 too (`RsaEncryptionProvider`). The operator's key pairs are PEM files named by an id in the
broker's configuration (`encryption.key.pair.id`, `encryption.key.pairs`); the manifest's `dataKey` starts
with that id. The user hands kafkalog the private keys, as `ID=PATH` or a bare `PATH` (tried for any id).

(PyCryptodome: the `cryptography` package refuses OAEP with SHA3 digests.)
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafkalog.errors import EncryptionKeyError, UsageError

if TYPE_CHECKING:
    from Crypto.PublicKey.RSA import RsaKey

# PyCryptodome is imported where a key is loaded or used: most reads open no encrypted segment, and every
# command would otherwise pay for it at start-up.


def _mgf1_sha3_512(seed: bytes, length: int) -> bytes:
    from Crypto.Hash import SHA3_512  # (start-up: see above)
    from Crypto.Signature import pss

    return pss.MGF1(seed, length, SHA3_512)


@dataclass
class Keyring:
    """Private keys by key pair id (None: a key given without an id, tried for every id)."""

    keys: dict[str | None, list[RsaKey]] = field(default_factory=dict)
    loaded: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def load(self, specs: str | list[str] | tuple[str, ...] | None) -> None:
        """Add the keys `specs` names: `ID=PATH` or `PATH`, several separated by commas; each PEM file once."""
        if not specs:
            return
        from Crypto.PublicKey import RSA  # (start-up: see above)

        if isinstance(specs, str):
            specs = [s for s in specs.split(",")]
        for spec in (s.strip() for s in specs):
            if not spec or spec in self.loaded:
                continue
            key_id, _, path = spec.rpartition("=") if "=" in spec else (None, "", spec)
            try:
                with open(path, "rb") as f:
                    key = RSA.import_key(f.read())
            except (OSError, ValueError, IndexError, TypeError) as exc:
                raise UsageError(f"{path}: not an RSA private key in PEM: {exc}") from None
            if not key.has_private():
                raise UsageError(f"{path}: a public key; unwrapping a data key needs the private key")
            with self._lock:
                self.keys.setdefault(key_id or None, []).append(key)
                self.loaded.add(spec)

    def unwrap(self, key_id: str, wrapped: bytes, name: str) -> bytes:
        """The AES data key wrapped in a manifest's `dataKey` (`RsaEncryptionProvider.decryptDataKey`)."""
        from Crypto.Cipher import PKCS1_OAEP  # (start-up: see above)
        from Crypto.Hash import SHA3_512

        candidates = self.keys.get(key_id, []) + self.keys.get(None, [])
        if not candidates:
            raise EncryptionKeyError(
                f"encrypted with key pair {key_id!r} and no private key was given (--private-key, option "
                "remotePrivateKey: the PEM file of that key pair)", path=name)
        for key in candidates:
            cipher = PKCS1_OAEP.new(key, hashAlgo=SHA3_512, mgfunc=_mgf1_sha3_512)
            try:
                data_key = cipher.decrypt(wrapped)
            except (ValueError, TypeError):
                continue
            if len(data_key) in (16, 24, 32):
                return data_key
        raise EncryptionKeyError(
            f"the data key of key pair {key_id!r} does not unwrap with the {len(candidates)} private key(s) given: "
            "not the key pair this segment was encrypted with", path=name)


def keyring(specs: str | list[str] | tuple[str, ...] | None) -> Keyring:
    """The keys `specs` names (as `Keyring.load` takes them), loaded once per process for the same names:
    each read names its keys (a Spark task gets them with its options), nothing is shared between reads
    that name other keys."""
    if not specs:
        return Keyring()
    return _keyring(tuple(s.strip() for s in (specs.split(",") if isinstance(specs, str) else specs) if s.strip()))


@functools.lru_cache(maxsize=32)
def _keyring(specs: tuple[str, ...]) -> Keyring:
    ring = Keyring()
    ring.load(list(specs))
    return ring
