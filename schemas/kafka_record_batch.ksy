meta:
  id: kafka_record_batch
  title: Kafka record batch (message format v2, magic 2)
  file-extension: log
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
  imports:
    - kafka_record
doc: |
  A record batch, the unit Kafka 0.11 and later writes to a log segment:
  a 61-byte header followed by the records, which may be compressed as a
  whole. This type reads one batch starting at its base offset field.

  The CRC is a CRC-32C (Castagnoli) of every byte from `attributes` to the
  end of the batch; `partition_leader_epoch` is left out so a broker can
  rewrite it without recomputing the checksum.

  Compressed records are decompressed by the custom process routine
  `kafkalog.compression.kafka_decompress` in the lazy instance
  `records_data.decompressed`. kafkalog's Python runtime supplies it; in the
  Kaitai Web IDE paste kafkalog's JavaScript routine (see kafkalog's README),
  without it the rest of the batch still parses and only that instance fails.

  In JavaScript (the Web IDE) the 64-bit fields are doubles, exact only up to
  2^53: offsets and millisecond timestamps of real data fit, a producer id
  or timestamp near 2^63 does not.
doc-ref:
  - https://kafka.apache.org/documentation/#recordbatch
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
-webide-representation: 'offset {base_offset:dec}+{last_offset_delta:dec}, {num_records:dec} records, {attributes.compression}'
seq:
  - id: base_offset
    type: s8
    doc: Offset of the first record of the batch (also of records compaction has since removed).
  - id: len_batch
    type: s4
    valid:
      min: 49
    doc: |
      Kafka's `batchLength`: bytes after this field to the end of the batch. At least 49, the rest of
      the header: Kafka rejects a smaller value as corrupt.
  - id: partition_leader_epoch
    type: s4
    doc: Leader epoch of the broker that appended the batch; -1 when unknown.
  - id: magic
    type: s1
    valid:
      min: 2
    doc: |
      Message format version; 2 for a record batch. Kafka's reader takes an
      entry with a higher magic for this format too, so this type does.
  - id: crc
    type: u4
    doc: CRC-32C of the bytes from `attributes` to the end of the batch.
  - id: attributes
    type: batch_attributes
    doc: Codec, timestamp type, transactional, control and delete-horizon flags.
  - id: last_offset_delta
    type: s4
    doc: |
      Last offset of the batch minus the base offset. Kept by compaction, so
      the batch still spans its original offsets when records were removed.
  - id: base_timestamp
    type: s8
    doc: |
      Timestamp of the first record, the base of the records' timestamp
      deltas; -1 when there is none. When `attributes.has_delete_horizon` is
      set it holds the delete horizon instead (still the base of the deltas).
  - id: max_timestamp
    type: s8
    doc: |
      Largest record timestamp, or, with LogAppendTime, the broker's append
      time, which is then the timestamp of every record.
  - id: producer_id
    type: s8
    doc: Producer id of an idempotent or transactional producer; -1 for none.
  - id: producer_epoch
    type: s2
    doc: Producer epoch; -1 for none.
  - id: base_sequence
    type: s4
    doc: Sequence number of the first record; -1 for none. Sequences wrap from 2^31-1 to 0.
  - id: num_records
    type: s4
    valid:
      min: 0
    doc: |
      Number of records in the batch (at Kafka's `RECORDS_COUNT_OFFSET`). 0 for an
      empty batch that compaction kept to preserve the producer's state.
  - id: records_data
    size: len_batch - 49
    type: records_data(attributes.compression, num_records)
    doc: The records, compressed as one stream unless the codec is none.
instances:
  last_offset:
    value: base_offset + last_offset_delta
    doc: Offset of the last record the batch was written with.
types:
  batch_attributes:
    doc: The 16-bit attributes of a record batch; bits 7 to 15 are unused.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
    -webide-representation: '{compression}, {timestamp_type}'
    seq:
      - id: unused
        type: b9
        doc: Bits 7 to 15, written as 0.
      - id: has_delete_horizon
        type: b1
        doc: Bit 6; the base timestamp holds the delete horizon set by compaction.
      - id: is_control
        type: b1
        doc: Bit 5; the batch holds control records (transaction markers, KRaft records).
      - id: is_transactional
        type: b1
        doc: Bit 4; the batch belongs to a transaction.
      - id: timestamp_type
        type: b1
        enum: timestamp_type
        doc: Bit 3; whether timestamps are the producer's or the broker's.
      - id: compression
        type: b3
        enum: compression
        doc: Bits 0 to 2; the codec of the records.
  records_data:
    -webide-representation: '{_parent.attributes.compression}, {num_records:dec} records'
    doc: |
      The bytes after the batch header. The records are parsed by lazy
      instances, so that a damaged record or a missing process routine does
      not keep the batch header from parsing: `uncompressed` for codec none
      (shown at once in the Web IDE), `decompressed` through the custom process
      routine for the other codecs.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
    params:
      - id: codec
        type: u1
        enum: compression
        doc: The batch's codec.
      - id: num_records
        type: s4
        doc: The batch's record count.
    seq:
      - id: data
        size-eos: true
        doc: The records as stored, one compressed stream unless the codec is none.
    instances:
      uncompressed:
        pos: 0
        size-eos: true
        type: record_list(num_records)
        if: codec == compression::none
        -webide-parse-mode: eager
        doc: The records of an uncompressed batch.
      decompressed:
        pos: 0
        size-eos: true
        process: kafkalog.compression.kafka_decompress(codec.to_i, 2)
        type: record_list(num_records)
        if: codec != compression::none
        doc: The records of a compressed batch, decompressed and parsed.
      decompressed_data:
        pos: 0
        size-eos: true
        process: kafkalog.compression.kafka_decompress(codec.to_i, 2)
        if: codec != compression::none
        doc: |
          The decompressed records as bytes, not parsed: what a reader walks
          record by record when `decompressed` does not parse, to keep the
          records before a damaged one as Kafka's iterator does.
  record_list:
    doc: A batch's records after decompression, `num_records` of them.
    -webide-representation: '{num_records:dec} records'
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
    params:
      - id: num_records
        type: s4
        doc: The batch's record count.
    seq:
      - id: records
        type: kafka_record
        repeat: expr
        repeat-expr: num_records
        doc: The records, in offset order.
      - id: trailing
        size-eos: true
        doc: |
          Bytes after the declared number of records. Kafka writes none and
          reports "Incorrect declared batch size" when there are some.
enums:
  compression:
    0: none
    1: gzip
    2: snappy
    3: lz4
    4: zstd
  timestamp_type:
    0: create_time
    1: log_append_time
