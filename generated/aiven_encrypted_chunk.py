# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class AivenEncryptedChunk(KaitaiStruct):
    """One chunk of a remote segment's `.log` object (or one index of its
    `.indexes` object) as Aiven's remote storage manager writes it when
    encryption is on: the AES-256-GCM initialisation vector, then the
    ciphertext and its authentication tag, as Java's `Cipher.doFinal` of
    `AES/GCM/NoPadding` writes them (`EncryptionChunkEnumeration`).
    
    The AES key is the segment's data key, stored in the `.rsm-manifest`
    wrapped with the operator's RSA public key (`encryption.dataKey`:
    `<key pair id>:` and base64 of RSA/OAEP with SHA3-512); the additional
    authenticated data is the manifest's `encryption.aad`. What the chunk
    decrypts to is the chunk of the segment, or its zstd frame when the
    manifest says `compression: true`. Where a chunk starts and ends is in
    the manifest's chunk index: the chunk itself holds no length.
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/transform/EncryptionChunkEnumeration.java
    
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/security/AesEncryptionProvider.java
    
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/manifest/SegmentEncryptionMetadataV1.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(AivenEncryptedChunk, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.iv = self._io.read_bytes(12)
        self.ciphertext = self._io.read_bytes((self._io.size() - 12) - 16)
        self.tag = self._io.read_bytes(16)


    def _fetch_instances(self):
        pass

    @property
    def len_ciphertext(self):
        """The size of the ciphertext, which is that of the plaintext. A value
        instance so that the Web IDE's tree label can show it (its
        `-webide-representation` reads fields and value instances, not `.size`
        of a byte array).
        """
        if hasattr(self, '_m_len_ciphertext'):
            return self._m_len_ciphertext

        self._m_len_ciphertext = len(self.ciphertext)
        return getattr(self, '_m_len_ciphertext', None)


