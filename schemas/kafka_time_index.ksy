meta:
  id: kafka_time_index
  title: Apache Kafka time index (.timeindex file)
  application: Apache Kafka
  file-extension: timeindex
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  The time index of a log segment: the `NNNNNNNNNNNNNNNNNNNN.timeindex` file
  next to the segment's `.log`, named by the same base offset. A sparse map
  from timestamps to offsets: an entry (T, O) says that the largest
  timestamp seen up to offset O is T, so every record with a timestamp above
  T comes after O. The broker appends (largest timestamp so far, the offset
  of the batch holding it) together with each offset index entry, only when
  the timestamp is larger than the last entry's, and a last entry when the
  segment is rolled or closed. Timestamps increase strictly from entry to
  entry; a segment of v0 messages (no timestamps) has an empty time index.

  There is no header and no checksum: the file is a plain array of 12-byte
  entries, as many as fit in the file (Kafka's `AbstractIndex` takes
  `length / 12`, rounded down). The active segment's file is preallocated
  to `segment.index.bytes` rounded down to a multiple of 12 (10485756 bytes
  for the default 10 MiB) and ends in zero-filled slots while the broker
  runs or after a crash. A zero-filled slot reads as relative offset 0,
  which only the first entry can hold: kafka-dump-log.sh stops at the first
  entry after entry 0 whose relative offset is 0, and so should a reader of
  `entries`.
doc-ref:
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/AbstractIndex.java
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/LogSegment.java
-webide-representation: '{num_slots:dec} slots'
seq:
  - id: entries
    type: time_index_entry
    repeat: expr
    repeat-expr: _io.size / 12
    doc: |
      Every 12-byte slot of the file, used or preallocated (see the type's
      doc for where the used ones end).
  - id: trailing
    size-eos: true
    doc: |
      Bytes after the last whole slot. Kafka writes none; its sanity check
      (`TimeIndex.sanityCheck`) reports a length that is not a multiple of
      12 as a corrupt index, which the broker then rebuilds.
instances:
  num_slots:
    value: entries.size
    doc: |
      The number of whole 12-byte slots, used or preallocated. A value
      instance so that the Web IDE's tree label can show it (its
      `-webide-representation` reads fields and value instances, not
      `.size` of an array).
types:
  time_index_entry:
    doc: One slot of the time index.
    doc-ref: https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java
    -webide-representation: '{timestamp:dec} -> +{relative_offset:dec}'
    seq:
      - id: timestamp
        type: s8
        doc: |
          The largest record timestamp (milliseconds since the epoch) in the
          segment up to the entry's offset.
      - id: relative_offset
        type: s4
        doc: |
          The offset minus the segment's base offset: the last offset of the
          batch that holds the timestamp (Kafka's `TimeIndex.parseEntry`
          adds the base offset back).
