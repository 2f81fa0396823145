meta:
  id: kafka_record
  title: Kafka record (inside a v2 record batch)
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  xref:
    wikidata: Q16235208
  imports:
    - kafka_varint
doc: |
  One record of a v2 record batch (magic 2, Kafka 0.11 and later). Offsets,
  timestamps and sequence numbers are deltas against the batch header; the
  absolute values are:

  * offset = batch `base_offset` + `offset_delta`
  * timestamp = batch `base_timestamp` + `timestamp_delta`, unless the batch
    uses LogAppendTime, in which case every record has the batch
    `max_timestamp`
  * sequence = batch `base_sequence` + `offset_delta`, wrapping from
    2^31-1 to 0 (no sequence when the batch has base sequence -1)

  Every integer here is a zigzag varint (`kafka_varint`). A negative key or
  value length means null.
doc-ref:
  - https://kafka.apache.org/documentation/#record
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecord.java
-webide-representation: 'Δoffset {body.offset_delta.value:dec}, Δts {body.timestamp_delta.value:dec}, {body.len_key.value:dec} B key, {body.len_value.value:dec} B value'
seq:
  - id: len_body
    type: kafka_varint
    doc: Kafka's `length`, the size in bytes of the record after this field.
  - id: body
    size: len_body.value
    type: record_body
    doc: |
      The record itself, exactly `len_body` bytes: Kafka rejects a record
      whose fields do not end at that length.
types:
  record_body:
    doc: The fields of a record after its length.
    -webide-representation: 'key {key:str}, {len_value.value:dec} B value, {num_headers.value:dec} headers'
    doc-ref: https://kafka.apache.org/documentation/#record
    seq:
      - id: attributes
        type: s1
        doc: Unused by Kafka so far; written as 0.
      - id: timestamp_delta
        type: kafka_varint
        doc: Record timestamp minus the batch base timestamp (a varlong).
      - id: offset_delta
        type: kafka_varint
        doc: Record offset minus the batch base offset (a varint).
      - id: len_key
        type: kafka_varint
        doc: Kafka's `keyLength`, the length of the key in bytes; negative (written as -1) for a null key.
      - id: key
        size: len_key.value
        if: len_key.value >= 0
        doc: The key; absent when the key is null.
      - id: len_value
        type: kafka_varint
        doc: Kafka's `valueLen`, the length of the value in bytes; negative (written as -1) for a null value, as in a tombstone.
      - id: value
        size: len_value.value
        if: len_value.value >= 0
        doc: The value; absent when the value is null.
      - id: num_headers
        type: kafka_varint
        valid:
          expr: _.value >= 0
        doc: Number of headers (Kafka's `numHeaders`); Kafka rejects a negative count.
      - id: headers
        type: header
        repeat: expr
        repeat-expr: num_headers.value
        doc: The record headers, in the order the producer added them.
      - id: trailing
        size-eos: true
        doc: |
          Bytes after the last header and before the declared end of the
          record. Kafka writes none and rejects a record that has any.
  header:
    doc: A record header; keys repeat freely, order is kept.
    -webide-representation: '{key:str} = {value:str}'
    doc-ref: https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/header/internals/RecordHeader.java
    seq:
      - id: len_key
        type: kafka_varint
        valid:
          expr: _.value >= 0
        doc: Kafka's `headerKeyLength`, the length of the header key in bytes; Kafka rejects a negative one.
      - id: key
        size: len_key.value
        doc: |
          The header key, UTF-8 text. Kept as bytes so that a key that is not
          valid UTF-8 (which non-Java producers can write) still parses; Kafka
          decodes it with replacement characters.
      - id: len_value
        type: kafka_varint
        doc: Kafka's `headerValueLength`, the length of the header value in bytes; negative (written as -1) for a null value.
      - id: value
        size: len_value.value
        if: len_value.value >= 0
        doc: The header value; absent when null.
