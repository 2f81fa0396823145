meta:
  id: aiven_encrypted_chunk
  title: Aiven tiered storage for Apache Kafka, one encrypted chunk of a remote object
  application: Aiven tiered-storage-for-apache-kafka (remote storage manager)
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  One chunk of a remote segment's `.log` object (or one index of its
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
doc-ref:
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/transform/EncryptionChunkEnumeration.java
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/security/AesEncryptionProvider.java
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/manifest/SegmentEncryptionMetadataV1.java
-webide-representation: '{len_ciphertext:dec} encrypted bytes'
seq:
  - id: iv
    size: 12
    doc: The GCM initialisation vector, random per chunk (`SegmentEncryptionMetadataV1.IV_SIZE`).
  - id: ciphertext
    size: _io.size - 12 - 16
    doc: The chunk encrypted with AES-256 in counter mode (GCM), as long as the plaintext.
  - id: tag
    size: 16
    doc: The GCM authentication tag over the ciphertext and the manifest's AAD (128 bits, `GCM_TAG_LENGTH`).
instances:
  len_ciphertext:
    value: ciphertext.size
    doc: |
      The size of the ciphertext, which is that of the plaintext. A value
      instance so that the Web IDE's tree label can show it (its
      `-webide-representation` reads fields and value instances, not `.size`
      of a byte array).
