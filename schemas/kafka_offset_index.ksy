meta:
  id: kafka_offset_index
  title: Apache Kafka offset index (.index file)
  application: Apache Kafka
  file-extension: index
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  The offset index of a log segment: the `NNNNNNNNNNNNNNNNNNNN.index` file
  next to the segment's `.log`, named by the same base offset. A sparse map
  from offsets to byte positions in the `.log`: the broker adds an entry when
  more than `index.interval.bytes` were appended since the last one, holding
  the last offset of that append and the position where the append starts.
  Entries are in increasing offset order; a reader looks up the largest
  offset at or below its target and scans the `.log` from that position.

  There is no header and no checksum: the file is a plain array of 8-byte
  entries, as many as fit in the file (Kafka's `AbstractIndex` takes
  `length / 8`, rounded down). The file of the active segment is
  preallocated to `segment.index.bytes` (rounded down to a multiple of 8)
  and memory-mapped, so while the broker runs, or after it crashed, it ends
  in zero-filled slots; a rolled or cleanly closed segment's file is
  trimmed to its entries. A zero-filled slot reads as relative offset 0,
  which only the first entry can hold: kafka-dump-log.sh stops at the first
  entry after entry 0 whose relative offset is 0, and so should a reader of
  `entries`.
doc-ref:
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/AbstractIndex.java
  - https://github.com/apache/kafka/blob/3.9/tools/src/main/java/org/apache/kafka/tools/DumpLogSegments.java
-webide-representation: '{num_slots:dec} slots'
seq:
  - id: entries
    type: index_entry
    repeat: expr
    repeat-expr: _io.size / 8
    doc: |
      Every 8-byte slot of the file, used or preallocated (see the type's
      doc for where the used ones end).
  - id: trailing
    size-eos: true
    doc: |
      Bytes after the last whole slot. Kafka writes none; its sanity check
      (`OffsetIndex.sanityCheck`) reports a length that is not a multiple of
      8 as a corrupt index, which the broker then rebuilds.
instances:
  num_slots:
    value: entries.size
    doc: |
      The number of whole 8-byte slots, used or preallocated. A value
      instance so that the Web IDE's tree label can show it (its
      `-webide-representation` reads fields and value instances, not
      `.size` of an array).
types:
  index_entry:
    doc: One slot of the offset index.
    doc-ref: https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java
    -webide-representation: '+{relative_offset:dec} @ {ofs_log_entry:dec}'
    seq:
      - id: relative_offset
        type: s4
        doc: |
          The offset minus the segment's base offset (the number in the file
          name); Kafka's `OffsetIndex.parseEntry` adds the base offset back.
          It is the last offset of the append the entry was written for.
      - id: ofs_log_entry
        type: s4
        doc: |
          Kafka's `position`: the byte position in the segment's `.log` of the
          first entry (batch or legacy message) of that append.
