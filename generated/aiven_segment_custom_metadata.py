# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import kafka_varint


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class AivenSegmentCustomMetadata(KaitaiStruct):
    """What Aiven's remote storage manager returns to the broker as a remote
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
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/metadata/SegmentCustomMetadataField.java
    
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/metadata/SegmentCustomMetadataSerde.java
    
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/ObjectKeyFactory.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(AivenSegmentCustomMetadata, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.num_fields = kafka_varint.KafkaVarint(self._io)
        self.fields = []
        for i in range(self.num_fields.unsigned_value):
            self.fields.append(AivenSegmentCustomMetadata.TaggedField(self._io, self, self._root))



    def _fetch_instances(self):
        pass
        self.num_fields._fetch_instances()
        for i in range(len(self.fields)):
            pass
            self.fields[i]._fetch_instances()


    class CompactString(KaitaiStruct):
        """Kafka's COMPACT_STRING, UTF-8 after its length plus one (0 would be null).
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/4.3.1/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(AivenSegmentCustomMetadata.CompactString, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.len_plus_one = kafka_varint.KafkaVarint(self._io)
            self.value = (self._io.read_bytes((self.len_plus_one.unsigned_value - 1 if self.len_plus_one.unsigned_value > 0 else 0))).decode(u"UTF-8")


        def _fetch_instances(self):
            pass
            self.len_plus_one._fetch_instances()


    class TaggedField(KaitaiStruct):
        """One field of the section; a tag this spec does not know is kept as bytes.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/4.3.1/clients/src/main/java/org/apache/kafka/common/protocol/types/TaggedFields.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(AivenSegmentCustomMetadata.TaggedField, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.tag = kafka_varint.KafkaVarint(self._io)
            self.len_value = kafka_varint.KafkaVarint(self._io)
            _on = self.tag.unsigned_value
            if _on == 0:
                pass
                self._raw_value = self._io.read_bytes(self.len_value.unsigned_value)
                _io__raw_value = KaitaiStream(BytesIO(self._raw_value))
                self.value = kafka_varint.KafkaVarint(_io__raw_value)
            elif _on == 1:
                pass
                self._raw_value = self._io.read_bytes(self.len_value.unsigned_value)
                _io__raw_value = KaitaiStream(BytesIO(self._raw_value))
                self.value = AivenSegmentCustomMetadata.CompactString(_io__raw_value, self, self._root)
            elif _on == 2:
                pass
                self._raw_value = self._io.read_bytes(self.len_value.unsigned_value)
                _io__raw_value = KaitaiStream(BytesIO(self._raw_value))
                self.value = AivenSegmentCustomMetadata.CompactString(_io__raw_value, self, self._root)
            else:
                pass
                self.value = self._io.read_bytes(self.len_value.unsigned_value)


        def _fetch_instances(self):
            pass
            self.tag._fetch_instances()
            self.len_value._fetch_instances()
            _on = self.tag.unsigned_value
            if _on == 0:
                pass
                self.value._fetch_instances()
            elif _on == 1:
                pass
                self.value._fetch_instances()
            elif _on == 2:
                pass
                self.value._fetch_instances()
            else:
                pass



