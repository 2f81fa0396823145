# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import kafka_varint
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class SchemaRegistryFraming(KaitaiStruct):
    """A record key or value as the schema-registry serializers write it
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
    
    .. seealso::
       Source - https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html#wire-format
    
    
    .. seealso::
       Source - https://github.com/confluentinc/schema-registry/blob/v8.0.0/schema-serializer/src/main/java/io/confluent/kafka/serializers/schema/id/SchemaId.java
    
    
    .. seealso::
       Source - https://github.com/confluentinc/confluent-kafka-python/blob/v2.11.0/src/confluent_kafka/schema_registry/common/serde.py
    """

    class Magic(IntEnum):
        schema_id = 0
        schema_guid = 1
    def __init__(self, _io, _parent=None, _root=None):
        super(SchemaRegistryFraming, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.magic = KaitaiStream.resolve_enum(SchemaRegistryFraming.Magic, self._io.read_u1())
        if not  ((self.magic == SchemaRegistryFraming.Magic.schema_id) or (self.magic == SchemaRegistryFraming.Magic.schema_guid)) :
            raise kaitaistruct.ValidationNotAnyOfError(self.magic, self._io, u"/seq/0")
        if self.magic == SchemaRegistryFraming.Magic.schema_id:
            pass
            self.schema_id = self._io.read_s4be()

        if self.magic == SchemaRegistryFraming.Magic.schema_guid:
            pass
            self.schema_guid = self._io.read_bytes(16)

        self.body = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass
        if self.magic == SchemaRegistryFraming.Magic.schema_id:
            pass

        if self.magic == SchemaRegistryFraming.Magic.schema_guid:
            pass


    class MessageIndexes(KaitaiStruct):
        """Which message of a Protobuf schema a body is: the path of indexes from
        the file's top-level messages down into nested ones, each a zigzag
        varint, preceded by their count. A count of 0 stands for `[0]`, the
        first top-level message, the common case written in one byte.
        
        .. seealso::
           Source - https://github.com/confluentinc/schema-registry/blob/v8.0.0/protobuf-serializer/src/main/java/io/confluent/kafka/serializers/protobuf/AbstractKafkaProtobufSerializer.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(SchemaRegistryFraming.MessageIndexes, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.num_indexes = kafka_varint.KafkaVarint(self._io)
            self.indexes = []
            for i in range((self.num_indexes.value if self.num_indexes.value > 0 else 0)):
                self.indexes.append(kafka_varint.KafkaVarint(self._io))



        def _fetch_instances(self):
            pass
            self.num_indexes._fetch_instances()
            for i in range(len(self.indexes)):
                pass
                self.indexes[i]._fetch_instances()




