meta:
  id: aiven_chunk_sizes
  title: Aiven tiered storage for Apache Kafka, chunk sizes of a variable chunk index
  application: Aiven tiered-storage-for-apache-kafka (remote storage manager)
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  The sizes of a remote segment's transformed (compressed and/or encrypted)
  chunks, as Aiven's remote storage manager keeps them in the `.rsm-manifest`
  when they vary (the chunk index `{"type":"variable", ...}`): the JSON field
  `transformedChunks` is base64 of one zstd frame (its content size set)
  whose content is this structure (`ChunkSizesBinaryCodec`).

  The encoding assumes that the chunks are of similar sizes: all values but
  the last are stored as their difference to the smallest of them (`base`),
  each in as few big-endian bytes as the largest difference needs
  (`bytes_per_value`, 1 to 4). The last chunk, often much smaller, is stored
  whole. No values: only the count. One value: the count and the value.

  Aiven's test vector: the zstd frame `KLUv/SAPeQAAAAAAAwAAAAoBAAoAAAAe`
  holds `00000003 0000000a 01 00 0a 0000001e`: the sizes 10, 20 and 30.
doc-ref:
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/manifest/index/serde/ChunkSizesBinaryCodec.java
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/manifest/index/serde/TransformedChunksSerializer.java
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/test/java/io/aiven/kafka/tieredstorage/manifest/index/ChunkIndexSerializationTest.java
-webide-representation: '{num_chunks:dec} chunk sizes'
seq:
  - id: num_chunks
    type: s4
    valid:
      min: 0
    doc: How many chunks the segment was cut into (the encoder takes no negative values).
  - id: single
    type: s4
    if: num_chunks == 1
    valid:
      min: 0
    doc: The one chunk's size, when there is one chunk.
  - id: base
    type: s4
    if: num_chunks > 1
    valid:
      min: 0
    doc: The smallest size among all chunks but the last; the stored values are differences to it.
  - id: bytes_per_value
    type: u1
    if: num_chunks > 1
    valid:
      min: 1
      max: 4
    doc: How many big-endian bytes each difference takes (what the largest difference needs).
instances:
  differences:
    pos: 9
    type: difference
    repeat: expr
    repeat-expr: num_chunks - 1
    if: num_chunks > 1
    doc: |
      Each chunk's size but the last, minus `base`, right after the header.
      An instance, so that a reader can take the header alone first and read
      the differences one at a time (kafkalog does: a count is checked
      against the object before any is read).
  last:
    pos: 9 + (num_chunks - 1) * bytes_per_value
    type: s4
    if: num_chunks > 1
    doc: The last chunk's size, whole (it takes no part in `base` and `bytes_per_value`), after the differences.
types:
  difference:
    doc: One chunk's size minus `base`, in `bytes_per_value` big-endian bytes.
    doc-ref: https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/manifest/index/serde/ChunkSizesBinaryCodec.java
    -webide-representation: '+{value:dec}'
    seq:
      - id: raw
        size: _parent.bytes_per_value
        doc: The difference's bytes, most significant first.
    instances:
      value:
        value: |
          bytes_per_value == 1 ? raw[0] :
          bytes_per_value == 2 ? (raw[0] << 8) | raw[1] :
          bytes_per_value == 3 ? (raw[0] << 16) | (raw[1] << 8) | raw[2] :
          (raw[0] << 24) | (raw[1] << 16) | (raw[2] << 8) | raw[3]
        doc: The difference as a number.
      bytes_per_value:
        value: _parent.bytes_per_value
        doc: The parent's `bytes_per_value`, for `value`.
      size:
        value: _parent.base + value
        doc: The chunk's size in bytes in the `.log` object.
