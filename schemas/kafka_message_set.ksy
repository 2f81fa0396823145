meta:
  id: kafka_message_set
  title: Kafka legacy message set (message format v0 and v1, magic 0 and 1)
  file-extension: log
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  The message format Kafka wrote before 0.11: a message set is a sequence of
  entries, each an offset, a size and one message. Magic 0 (before 0.10) has
  no timestamp; magic 1 (0.10) adds one.

  A compressed message is a *wrapper*: its key is null and its value is a
  whole inner message set, compressed. In a magic 0 wrapper the inner offsets
  are absolute. In a magic 1 wrapper they are relative: the wrapper's offset
  is the absolute offset of the last inner message, so an inner message's
  absolute offset is wrapper offset - last inner offset + inner offset (after
  compaction the inner offsets may have gaps). A magic 1 wrapper with
  LogAppendTime gives every inner message its own timestamp.

  The inner message set is parsed by the lazy instance
  `message.compressed_value.messages` through the custom process routine
  `kafkalog.compression.kafka_decompress`; see `kafka_record_batch`.

  In JavaScript (the Web IDE) the 64-bit offset and timestamp are exact only
  up to 2^53.
doc-ref:
  - https://kafka.apache.org/documentation/#messageset
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/AbstractLegacyRecordBatch.java
seq:
  - id: entries
    type: entry
    repeat: eos
    doc: The entries, each with one message.
types:
  entry:
    doc: One entry of a message set, a log entry on its own in a segment file.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/AbstractLegacyRecordBatch.java
    -webide-representation: 'offset {offset:dec}, {message.attributes.compression}'
    seq:
      - id: offset
        type: s8
        doc: |
          Offset of the message. For a magic 1 wrapper, the absolute offset of
          its last inner message; inside a magic 1 wrapper, relative offsets.
      - id: len_message
        type: s4
        valid:
          min: 14
        doc: |
          Kafka's `MessageSize`, the size of the message that follows. At least 14, a magic 0 message
          with no key and value: Kafka rejects a smaller one as corrupt.
      - id: message
        size: len_message
        type: message
        doc: The message.
  message:
    doc: A message (magic 0 or 1), from its CRC to the end of its value.
    -webide-representation: 'magic {magic:dec}, {attributes.compression}, key {key:str}, {len_value:dec} B value'
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java
    seq:
      - id: crc
        type: u4
        doc: CRC-32 (IEEE) of the rest of the message, from `magic` to the end.
      - id: magic
        type: s1
        valid:
          any-of: [0, 1]
        doc: Message format version.
      - id: attributes
        type: message_attributes
        doc: Codec and, for magic 1, timestamp type.
      - id: timestamp
        type: s8
        if: magic == 1
        doc: |
          Milliseconds since the epoch (magic 1 only); -1 for none. For a
          wrapper, the largest inner timestamp, or the broker's append time
          with LogAppendTime.
      - id: len_key
        type: s4
        doc: Length of the key in bytes; -1 for a null key.
      - id: key
        size: len_key
        if: len_key >= 0
        doc: The key; absent when null.
      - id: len_value
        type: s4
        doc: Length of the value in bytes; -1 for a null value.
      - id: value
        size: len_value
        if: len_value >= 0 and attributes.compression == compression::none
        doc: The value of an uncompressed message; absent when null.
      - id: compressed_value
        size: len_value
        type: compressed_message_set(attributes.compression, magic)
        if: len_value >= 0 and attributes.compression != compression::none
        doc: The compressed inner message set of a wrapper.
      - id: trailing
        size-eos: true
        doc: Bytes after the value and before the end the size declares; Kafka writes none.
  message_attributes:
    doc: The 8-bit attributes of a message.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java
    -webide-representation: '{compression}, {timestamp_type}'
    seq:
      - id: unused
        type: b4
        doc: Bits 4 to 7, written as 0.
      - id: timestamp_type
        type: b1
        enum: timestamp_type
        doc: Bit 3 (magic 1 only; 0 in magic 0); whether the timestamp is the producer's or the broker's.
      - id: compression
        type: b3
        enum: compression
        doc: Bits 0 to 2; the codec of a wrapper's value.
  compressed_message_set:
    -webide-representation: '{_parent.attributes.compression}, {wrapper_magic:dec} wrapper: expand messages'
    doc: |
      A wrapper's compressed value. `messages` is a lazy instance that runs
      the custom process routine, so the rest of the file parses where that
      routine is missing.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/AbstractLegacyRecordBatch.java
    params:
      - id: codec
        type: u1
        enum: compression
        doc: The wrapper's codec.
      - id: wrapper_magic
        type: s1
        doc: The wrapper's magic, which selects Kafka's LZ4 framing for magic 0.
    seq:
      - id: data
        size-eos: true
        doc: The compressed stream.
    instances:
      messages:
        pos: 0
        size-eos: true
        process: kafkalog.compression.kafka_decompress(codec.to_i, wrapper_magic)
        type: kafka_message_set
        doc: The inner message set, decompressed and parsed.
      messages_data:
        pos: 0
        size-eos: true
        process: kafkalog.compression.kafka_decompress(codec.to_i, wrapper_magic)
        doc: |
          The inner message set as bytes, not parsed: what a reader walks
          entry by entry when `messages` does not parse, to keep the messages
          before a damaged one as Kafka's iterator does.
enums:
  compression:
    0: none
    1: gzip
    2: snappy
    3: lz4
  timestamp_type:
    0: create_time
    1: log_append_time
