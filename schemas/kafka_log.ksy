meta:
  id: kafka_log
  title: Apache Kafka log segment (.log file)
  application: Apache Kafka
  file-extension: log
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
  imports:
    - kafka_record_batch
    - kafka_message_set
doc: |
  A Kafka log segment: the `NNNNNNNNNNNNNNNNNNNN.log` files in a partition
  directory, named by the offset of their first entry. A segment is a plain
  sequence of entries with no file header. Every entry starts with an offset
  (int64) and a size (int32), and its byte 16 is the magic byte that tells
  its format: 0 or 1 for a legacy message (see `kafka_message_set`), 2 for a
  record batch (see `kafka_record_batch`). A segment written across a message
  format upgrade mixes them, and this type reads each entry by its own magic.

  A segment of a broker that crashed may end in a partial entry, and one
  preallocated by the broker (`log.preallocate`) ends in zero bytes; both
  show here as a parse error at the end.
doc-ref:
  - https://kafka.apache.org/documentation/#log
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java
seq:
  - id: entries
    type: log_entry
    repeat: eos
    doc: The entries of the segment, in file order.
types:
  log_entry:
    doc: One entry of a segment, in the format its magic byte selects.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java
    -webide-representation: 'magic {magic:dec}, {len_rest:dec} bytes'
    seq:
      - id: body
        size: 12 + len_rest
        type:
          switch-on: magic
          cases:
            0: kafka_message_set::entry
            1: kafka_message_set::entry
            2: kafka_record_batch
        doc: The entry, from its offset field to its end.
    instances:
      # These read ahead from the start of the entry: `body` needs both to
      # pick its size and type, so they are evaluated before it is read.
      len_rest:
        pos: _io.pos + 8
        type: s4
        valid:
          min: 14
        doc: The entry's size after its first 12 bytes (Kafka's `size`).
      magic:
        pos: _io.pos + 16
        type: s1
        valid:
          min: 0
          max: 2
        doc: Message format version of the entry.
  entry_header:
    doc: |
      The first bytes of an entry, whatever its format, read without the rest
      of it: the base offset and the size of every entry, the four bytes that
      are a v2 batch's partition leader epoch or a legacy message's CRC, and
      the magic byte. Kafka's `FileLogInputStream` reads these 17 bytes
      (`HEADER_SIZE_UP_TO_MAGIC`) to find each entry and its format, and its
      `FileChannelRecordBatch` reads a v2 batch's last offset and max
      timestamp at their fixed places without loading the batch: the broker's
      offset and timestamp lookups walk a segment by these headers alone.
      The same bytes are the start of `kafka_record_batch` and of
      `kafka_message_set::entry`.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java
    -webide-representation: 'offset {base_offset:dec}, {len_rest:dec} bytes, magic {magic:dec}'
    seq:
      - id: base_offset
        type: s8
        doc: |
          A v2 batch's base offset, or a legacy entry's offset (for a
          compressed wrapper, the offset of its last inner message).
      - id: len_rest
        type: s4
        doc: |
          The entry's size after its first 12 bytes (`LOG_OVERHEAD`), Kafka's `size`. Kafka
          takes a size below 14 (`LegacyRecord.RECORD_OVERHEAD_V0`) for
          corruption.
      - id: leader_epoch_or_crc
        type: s4
        if: has_magic
        doc: |
          A v2 batch's partition leader epoch, or a legacy message's CRC-32
          (as a signed number); absent when only the offset and size were read.
      - id: magic
        type: s1
        if: has_magic
        doc: |
          Message format version of the entry (0, 1 or 2); absent when only
          the offset and size were read.
      - id: v2
        type: v2_header
        if: has_v2
        doc: The next fields of a v2 batch's header, when they were read.
    instances:
      has_magic:
        value: _io.size >= 17
        doc: Whether the bytes read reach the magic byte (`HEADER_SIZE_UP_TO_MAGIC`).
      has_v2:
        value: _io.size >= 43 and magic >= 2
        doc: |
          Whether the bytes read hold a v2 batch's fields up to its max
          timestamp (a lookup reads a damaged magic above 2 as it reads 2).
    types:
      v2_header:
        doc: |
          The fields of a v2 batch's header after the magic byte, up to its max
          timestamp, at the places `DefaultRecordBatch` defines for them.
        doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
        seq:
          - id: crc
            type: u4
            doc: CRC-32C of the batch from its attributes to its end.
          - id: attributes
            type: u2
            doc: Codec, timestamp type, transactional and control bits.
          - id: last_offset_delta
            type: s4
            doc: The last offset of the batch, less its base offset.
          - id: base_timestamp
            type: s8
            doc: Timestamp of the first record (or the batch's, for LogAppendTime).
          - id: max_timestamp
            type: s8
            doc: The largest timestamp of the batch's records.
