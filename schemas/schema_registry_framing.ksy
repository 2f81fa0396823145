meta:
  id: schema_registry_framing
  title: Schema registry wire format (a Kafka record key or value framed with its schema's id)
  application: Confluent Schema Registry serializers, Karapace, Apicurio (Confluent compatibility)
  license: Apache-2.0
  ks-version: 0.11
  endian: be
  imports:
    - kafka_varint
  xref:
    wikidata: Q16235208
doc: |
  A record key or value as the schema-registry serializers write it
  (Confluent's `KafkaAvroSerializer`, `KafkaProtobufSerializer`,
  `KafkaJsonSchemaSerializer`, and their ports such as confluent-kafka's):
  a magic byte naming how the schema is identified, the identifier, then the
  serialized body (Avro binary, Protobuf, or JSON text).

  - Magic 0: the schema's id in the registry, a big-endian 32-bit integer.
  - Magic 1: the schema's GUID, 16 bytes: the MD5 of the schema that the
    registry keeps in the `_schemas` topic (`md5`, base64), read as a UUID.

  Protobuf bodies start with the message indexes (`message_indexes`): which
  message of the `.proto` file, nested or not, the body is. They are not
  parsed as part of `body` here, because only the schema's type says whether
  they are there: a Protobuf reader parses them from the start of `body`.

  Newer serializers may put the same prefix (magic, id or GUID, message
  indexes) in the record header `__value_schema_id` (or `__key_schema_id`)
  and write the body alone in the value; that header is this structure with
  an empty `body` (or, for Protobuf, the message indexes alone).
doc-ref:
  - https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html#wire-format
  - https://github.com/confluentinc/schema-registry/blob/v8.0.0/schema-serializer/src/main/java/io/confluent/kafka/serializers/schema/id/SchemaId.java
  - https://github.com/confluentinc/confluent-kafka-python/blob/v2.11.0/src/confluent_kafka/schema_registry/common/serde.py
-webide-representation: '{magic} {schema_id:dec}'
seq:
  - id: magic
    type: u1
    enum: magic
    valid:
      any-of:
        - magic::schema_id
        - magic::schema_guid
    doc: How the schema is named; anything else is not framed for a schema registry.
  - id: schema_id
    type: s4
    if: magic == magic::schema_id
    doc: |
      The schema's id in the registry (`SchemaValue.id` in `_schemas`).
      Registries hand out positive ids; the serializers write any int.
  - id: schema_guid
    size: 16
    if: magic == magic::schema_guid
    doc: The schema's GUID, the 16 bytes of `SchemaValue.md5` in `_schemas`, as a UUID in network order.
  - id: body
    size-eos: true
    doc: |
      What the schema describes: Avro binary, JSON text, or (Protobuf) the
      message indexes followed by the message. Empty when the prefix stands
      alone in a record header.
types:
  message_indexes:
    doc: |
      Which message of a Protobuf schema a body is: the path of indexes from
      the file's top-level messages down into nested ones, each a zigzag
      varint, preceded by their count. A count of 0 stands for `[0]`, the
      first top-level message, the common case written in one byte.
    doc-ref: https://github.com/confluentinc/schema-registry/blob/v8.0.0/protobuf-serializer/src/main/java/io/confluent/kafka/serializers/protobuf/AbstractKafkaProtobufSerializer.java
    -webide-representation: '{num_indexes.value:dec} indexes'
    seq:
      - id: num_indexes
        type: kafka_varint
        doc: How many indexes follow (zigzag varint); 0 means the path `[0]`.
      - id: indexes
        type: kafka_varint
        repeat: expr
        repeat-expr: 'num_indexes.value > 0 ? num_indexes.value : 0'
        doc: The index of the message among its siblings, at each level, from the file's top level down.
enums:
  magic:
    0: schema_id
    1: schema_guid
