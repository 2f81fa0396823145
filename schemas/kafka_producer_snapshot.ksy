meta:
  id: kafka_producer_snapshot
  title: Apache Kafka producer state snapshot (.snapshot file)
  application: Apache Kafka
  file-extension: snapshot
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  A producer state snapshot: the `NNNNNNNNNNNNNNNNNNNN.snapshot` files of a
  partition directory, named by the offset up to which they hold the state
  (the broker takes one when it rolls a segment, at the new segment's base
  offset, and on clean shutdown). It holds, for every producer id the
  broker remembers, what it needs to deduplicate retries and track open
  transactions without reading the log again.

  The layout is Kafka's `PID_SNAPSHOT_MAP_SCHEMA` in
  `ProducerStateManager`, written with Kafka's protocol types: version
  (int16, 1), crc (uint32), and an array (int32 count, then the entries) of
  46-byte producer entries.

  The crc is a CRC-32C (Castagnoli) of every byte of the file from offset 6
  to its end, that is the entry count and the entries: `writeSnapshot`
  computes it over the buffer from `PRODUCER_ENTRIES_OFFSET` (6) to the
  buffer's limit and `readSnapshot` over the whole file from 6. Kaitai
  Struct has no CRC-32C, so this spec does not check it; kafkalog's
  runtime does (`kafkalog.formats.producer_snapshot`), as Kafka's `readSnapshot` does,
  before it trusts the entries. Field names are Kafka's schema field names.
doc-ref:
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateEntry.java
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/protocol/types/ArrayOf.java
-webide-representation: 'version {version:dec}, {num_producer_entries:dec} producers'
seq:
  - id: version
    type: s2
    valid: 1
    doc: |
      Snapshot format version. Kafka writes 1 (`PRODUCER_SNAPSHOT_VERSION`)
      and `readSnapshot` rejects any other ("Snapshot contained an unknown
      file version").
  - id: crc
    type: u4
    doc: CRC-32C of the bytes from offset 6 (`num_producer_entries`) to the end of the file.
  - id: num_producer_entries
    type: s4
    valid:
      min: 0
    doc: |
      Number of producer entries. `ArrayOf` writes -1 for a null array, which
      this non-nullable field never is; Kafka rejects a negative count.
  - id: producer_entries
    type: producer_entry
    repeat: expr
    repeat-expr: num_producer_entries
    doc: One entry per producer id, in no particular order (a Java HashMap's).
  - id: trailing
    size-eos: true
    doc: |
      Bytes after the entries. Kafka writes none; its reader ignores them
      but they are covered by the crc.
types:
  header:
    doc: |
      The version and the crc alone. Read before the whole file, so that a
      snapshot of an unknown version, or whose entries do not parse, still
      shows its version and its crc, as Kafka's `readSnapshot` reports them.
    doc-ref: https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
    -webide-representation: 'version {version:dec}'
    seq:
      - id: version
        type: s2
        doc: Snapshot format version, whatever it is.
      - id: crc
        type: u4
        if: has_crc
        doc: The stored CRC-32C, when the file holds it.
    instances:
      has_crc:
        value: _io.size >= 6
        doc: Whether the file is long enough to hold the crc.
  producer_entry:
    doc: The state of one producer (Kafka's `PRODUCER_SNAPSHOT_ENTRY_SCHEMA`), 46 bytes.
    doc-ref: https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
    -webide-representation: 'producer {producer_id:dec} epoch {epoch:dec}, last offset {last_offset:dec}'
    seq:
      - id: producer_id
        type: s8
        doc: The producer id.
      - id: epoch
        type: s2
        doc: The producer's current epoch.
      - id: last_sequence
        type: s4
        doc: Last sequence number the producer wrote (-1 for none).
      - id: last_offset
        type: s8
        doc: |
          Last offset the producer wrote a data batch at (-1 for none; then
          Kafka keeps no batch metadata for the producer).
      - id: offset_delta
        type: s4
        doc: Last offset minus base offset of the producer's last batch.
      - id: timestamp
        type: s8
        doc: Max timestamp of the producer's last batch.
      - id: coordinator_epoch
        type: s4
        doc: Epoch of the transaction coordinator that wrote the producer's last end-transaction marker (-1 for none).
      - id: current_txn_first_offset
        type: s8
        doc: First offset of the producer's open transaction, -1 when none is open.
