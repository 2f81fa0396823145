meta:
  id: kafka_txn_index
  title: Apache Kafka transaction index (.txnindex file)
  application: Apache Kafka
  file-extension: txnindex
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  The transaction index of a log segment: the `NNNNNNNNNNNNNNNNNNNN.txnindex`
  file next to the segment's `.log`, named by the same base offset. It lists
  the transactions aborted by an ABORT marker written in that segment, in
  the order the markers were written (increasing `last_offset`); a
  transaction may have started in an earlier segment, so `first_offset` can
  be below the segment's base offset. A broker answering a read_committed
  fetch hands these entries to the consumer, which then skips the
  transactional batches of the listed producers from `first_offset` on.

  The file is created only when the segment gets its first aborted
  transaction, is not preallocated, and has no header and no checksum: a
  plain array of 34-byte entries. Kafka's reader takes entries while at least
  34 bytes remain, so a partial entry at the end is ignored.
doc-ref:
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/TransactionIndex.java
  - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/AbortedTxn.java
-webide-representation: '{num_aborted_txns:dec} aborted transactions'
seq:
  - id: entries
    type: aborted_txn
    repeat: expr
    repeat-expr: _io.size / 34
    doc: The aborted transactions, in the order their ABORT markers were written.
  - id: trailing
    size-eos: true
    doc: Bytes after the last whole entry; Kafka writes none and ignores them.
instances:
  num_aborted_txns:
    value: entries.size
    doc: |
      The number of whole entries. A value instance so that the Web IDE's
      tree label can show it (its `-webide-representation` reads fields and
      value instances, not `.size` of an array).
types:
  aborted_txn:
    doc: |
      One aborted transaction (Kafka's `AbortedTxn`): 2 + 4 x 8 = 34 bytes.
    doc-ref: https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/AbortedTxn.java
    -webide-representation: 'producer {producer_id:dec}: {first_offset:dec}..{last_offset:dec}'
    seq:
      - id: version
        type: s2
        doc: |
          Entry format version, written as int16 0 (`AbortedTxn.CURRENT_VERSION`).
          Kafka's `AbortedTxn.version()` reads only the first (high) byte of
          it, as a signed byte, and `TransactionIndex` rejects an entry whose
          version so read is above 0 ("Unexpected aborted transaction
          version"); kafkalog's runtime applies the same rule.
      - id: producer_id
        type: s8
        doc: The producer whose transaction was aborted.
      - id: first_offset
        type: s8
        doc: Offset of the first batch of the transaction in this partition.
      - id: last_offset
        type: s8
        doc: Offset of the ABORT marker (control record) that ended the transaction.
      - id: last_stable_offset
        type: s8
        doc: |
          The partition's last stable offset once the marker was written: the
          first offset of the earliest transaction of another producer still
          open then, or `last_offset + 1` when there was none. A fetch that
          ends below it needs no entries from later segments.
