meta:
  id: aiven_segment_custom_metadata
  title: Aiven tiered storage for Apache Kafka, a remote segment's custom metadata
  application: Aiven tiered-storage-for-apache-kafka (remote storage manager)
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  imports:
    - kafka_varint
  xref:
    wikidata: Q16235208
doc: |
  What Aiven's remote storage manager returns to the broker as a remote
  segment's custom metadata, which the broker keeps in `__remote_log_metadata`
  (the `customMetadata` bytes of a RemoteLogSegmentMetadataRecord): a Kafka
  tagged-fields section (`SegmentCustomMetadataField.CUSTOM_METADATA_SCHEMA`,
  written with Kafka's own protocol types).

  - Tag 0, `remote_size`: the bytes the segment takes in remote storage
    (a zigzag varlong).
  - Tag 1, `object_prefix`: the key prefix the objects were written under.
  - Tag 2, `object_key`: the objects' key without prefix and suffix
    (`<topic>-<topic id>/<partition>/<20-digit start offset>-<segment id>`).

  A segment's objects are `object_prefix + object_key + ".log"` (and
  `.indexes`, `.rsm-manifest`): they override the prefix the storage manager
  is configured with now, and the default key layout.
doc-ref:
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/metadata/SegmentCustomMetadataField.java
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/metadata/SegmentCustomMetadataSerde.java
  - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/ObjectKeyFactory.java
-webide-representation: '{num_fields.unsigned_value:dec} fields'
seq:
  - id: num_fields
    type: kafka_varint
    doc: How many tagged fields follow (unsigned varint).
  - id: fields
    type: tagged_field
    repeat: expr
    repeat-expr: num_fields.unsigned_value
    doc: The fields, in tag order.
types:
  tagged_field:
    doc: One field of the section; a tag this spec does not know is kept as bytes.
    doc-ref: https://github.com/apache/kafka/blob/4.3.1/clients/src/main/java/org/apache/kafka/common/protocol/types/TaggedFields.java
    -webide-representation: 'tag {tag.unsigned_value:dec}'
    seq:
      - id: tag
        type: kafka_varint
        doc: The field's tag (unsigned varint).
      - id: len_value
        type: kafka_varint
        doc: Size of the field's bytes (unsigned varint).
      - id: value
        size: len_value.unsigned_value
        type:
          switch-on: tag.unsigned_value
          cases:
            0: kafka_varint
            1: compact_string
            2: compact_string
        doc: Tag 0, remote_size (zigzag varlong); tags 1 and 2, object_prefix and object_key.
  compact_string:
    doc: Kafka's COMPACT_STRING, UTF-8 after its length plus one (0 would be null).
    doc-ref: https://github.com/apache/kafka/blob/4.3.1/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
    -webide-representation: '{value}'
    seq:
      - id: len_plus_one
        type: kafka_varint
        doc: The string's byte length plus one (unsigned varint).
      - id: value
        type: str
        encoding: UTF-8
        size: 'len_plus_one.unsigned_value > 0 ? len_plus_one.unsigned_value - 1 : 0'
        doc: The string.
