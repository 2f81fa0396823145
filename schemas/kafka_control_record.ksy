meta:
  id: kafka_control_record
  title: Kafka control record key and end-transaction marker value
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
doc: |
  The key of a record in a control batch (a v2 batch with the control bit
  set). Control records are written by the broker, not by producers: the
  COMMIT and ABORT markers that end a transaction, and in KRaft logs the
  leader-change, snapshot and voter records. A consumer never sees them.

  Parse a control record's key with this type; the value of a COMMIT or ABORT
  marker is an `end_txn_marker`. The values of the KRaft control types are
  Kafka messages of their own (LeaderChangeMessage, SnapshotHeaderRecord, ...)
  and are left opaque.
doc-ref:
  - https://kafka.apache.org/documentation/#controlbatch
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/ControlRecordType.java
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/EndTransactionMarker.java
-webide-representation: '{type}'
seq:
  - id: version
    type: s2
    valid:
      min: 0
    doc: Version of the key; 0. Kafka rejects a negative version.
  - id: type
    type: s2
    enum: control_type
    doc: What the control record marks.
  - id: rest
    size-eos: true
    doc: Fields of later key versions, which Kafka ignores.
types:
  end_txn_marker:
    doc: The value of a COMMIT or ABORT control record.
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/EndTransactionMarker.java
    -webide-representation: 'coordinator epoch {coordinator_epoch:dec}'
    seq:
      - id: version
        type: s2
        valid:
          min: 0
        doc: Version of the value; 0.
      - id: coordinator_epoch
        type: s4
        doc: Epoch of the transaction coordinator that wrote the marker.
      - id: rest
        size-eos: true
        doc: Fields of later value versions, which Kafka ignores.
enums:
  control_type:
    0: abort
    1: commit
    2: leader_change
    3: snapshot_header
    4: snapshot_footer
    5: kraft_version
    6: kraft_voters
