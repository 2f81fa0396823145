meta:
  id: kafka_07_log
  title: Kafka 0.7 log segment (a .kafka file) and message set
  file-extension: kafka
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  A segment of a Kafka 0.7 partition: a file named by the byte offset of its
  first byte in the partition (20 digits, `.kafka`), holding a message set
  as the broker received it. The same layout is a message set anywhere in
  0.7: in a fetch response and inside a compressed message.

  An entry is a length and a message. The message has no offset, key or
  timestamp: a message's offset is a byte position in the partition. Magic 0
  (Kafka 0.6) has no attributes byte; magic 1 (0.7) has one, whose low two
  bits name the codec of the payload. The CRC-32 covers the payload only (not
  the magic or the attributes).

  A compressed message is a *wrapper*: its payload, decompressed, is a whole
  message set again (`payload_compressed.messages`), whose messages carry no
  offsets of their own. Kafka 0.7 decompresses a compressed message found
  inside one too. Offsets, as 0.7's `ByteBufferMessageSet` iterator gives
  them: see docs/kafka-07.md.

  The inner message set is parsed by the lazy instance
  `payload_compressed.messages` through the custom process routine
  `kafkalog.compression.kafka_decompress` (gzip, or snappy-java's stream or a
  raw snappy block); see `kafka_record_batch`.
doc-ref:
  - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/Message.scala
  - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/ByteBufferMessageSet.scala
  - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/FileMessageSet.scala
  - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/log/Log.scala
seq:
  - id: entries
    type: entry
    repeat: eos
    doc: The entries, each a length and one message.
types:
  entry_header:
    doc: |
      An entry's length alone: what 0.7's `FileMessageSet` reads first, to
      tell a whole entry from the end of the log.
    doc-ref: https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/FileMessageSet.scala
    -webide-representation: '{len_message:dec} B message'
    seq:
      - id: len_message
        type: s4
        doc: The size of the message that follows, unchecked.
  entry:
    doc: One entry of a message set, `MessageSet.entrySize` bytes.
    doc-ref: https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/MessageSet.scala
    -webide-representation: 'magic {message.magic:dec}, {message.codec}, {message.len_payload:dec} B payload'
    seq:
      - id: len_message
        type: s4
        valid:
          min: 5
        doc: |
          The size of the message that follows (`MessageSet.LogOverhead` is
          these 4 bytes). At least 5, the header of a magic 0 message
          (`Message.MinHeaderSize`): 0.7's `FileMessageSet` stops at a smaller
          one, and its recovery truncates the log there.
      - id: message
        size: len_message
        type: message
        doc: The message.
  message:
    doc: A message, magic 0 or 1, from its magic byte to the end of its payload.
    doc-ref: https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/Message.scala
    -webide-representation: 'magic {magic:dec}, crc {crc:dec}, {len_payload:dec} B payload'
    seq:
      - id: magic
        type: u1
        valid:
          any-of: [0, 1]
        doc: |
          0: no attributes (Kafka 0.6's `MagicVersion1`); 1: an attributes
          byte follows (0.7's `MagicVersion2`, what 0.7 writes).
      - id: attributes
        type: message_attributes
        if: magic == 1
        doc: The attributes (magic 1 only).
      - id: crc
        type: u4
        doc: CRC-32 (IEEE) of the payload, `Message.checksum`.
      - id: payload
        size-eos: true
        if: codec == compression::none
        doc: The payload of an uncompressed message.
      - id: payload_compressed
        size-eos: true
        type: compressed_message_set(codec)
        if: codec != compression::none
        doc: The payload of a wrapper, a compressed message set.
    instances:
      codec:
        value: 'magic == 1 ? attributes.compression : compression::none'
        doc: The payload's codec, `Message.compressionCodec`; magic 0 is never compressed.
      len_payload:
        value: '_io.size - (magic == 1 ? 6 : 5)'
        doc: The size of the payload, `Message.payloadSize`.
  message_attributes:
    doc: The attributes byte of a magic 1 message.
    doc-ref: https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/Message.scala
    -webide-representation: '{compression}'
    seq:
      - id: unused
        type: b6
        doc: Bits 2 to 7, which 0.7 writes as 0 and does not read.
      - id: compression
        type: b2
        enum: compression
        doc: Bits 0 and 1 (`Message.CompressionCodeMask`), the payload's codec.
  compressed_message_set:
    -webide-representation: '{_parent.codec}: expand messages'
    doc: |
      A wrapper's payload. `messages` is a lazy instance that runs the custom
      process routine, so the rest of the file parses where that routine is
      missing.
    doc-ref: https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/CompressionUtils.scala
    params:
      - id: codec
        type: u1
        enum: compression
        doc: The wrapper's codec.
    seq:
      - id: data
        size-eos: true
        doc: The compressed stream.
    instances:
      messages:
        pos: 0
        size-eos: true
        process: kafkalog.compression.kafka_decompress(codec.to_i, 1)
        type: kafka_07_log
        doc: The inner message set, decompressed and parsed.
      messages_data:
        pos: 0
        size-eos: true
        process: kafkalog.compression.kafka_decompress(codec.to_i, 1)
        doc: The inner message set's bytes, decompressed.
enums:
  compression:
    0: none
    1: gzip
    2: snappy
    3:
      id: unknown
      doc: Not a codec of 0.7 (`CompressionCodec.getCompressionCodec` refuses it).
