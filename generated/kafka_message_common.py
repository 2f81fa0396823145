# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import kafka_varint


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaMessageCommon(KaitaiStruct):
    """The building blocks of Kafka's generated message classes, shared by the internal-topic record specs. Classic versions use int16 string lengths and int32 byte and array lengths (-1 = null); flexible versions use compact forms, an unsigned varint of length + 1 (0 = null), and end each struct with a tagged-field section. The top-level type is such a section.
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
    
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/RawTaggedField.java
    
    
    
    .. seealso::
       Source - https://cwiki.apache.org/confluence/display/KAFKA/KIP-482%3A+The+Kafka+Protocol+should+Support+Optional+Tagged+Fields
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaMessageCommon, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.num_fields = kafka_varint.KafkaVarint(self._io)
        self.fields = []
        for i in range(self.num_fields.unsigned_value):
            self.fields.append(KafkaMessageCommon.TaggedField(self._io, self, self._root))



    def _fetch_instances(self):
        pass
        self.num_fields._fetch_instances()
        for i in range(len(self.fields)):
            pass
            self.fields[i]._fetch_instances()


    class ArrayHeader(KaitaiStruct):
        """The element count before an array: int32 (classic) or unsigned varint count + 1 (compact); null when -1 or compact 0.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
        """
        def __init__(self, compact, _io, _parent=None, _root=None):
            super(KafkaMessageCommon.ArrayHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.compact = compact
            self._read()

        def _read(self):
            if self.compact:
                pass
                self.num_compact = kafka_varint.KafkaVarint(self._io)

            if (not (self.compact)):
                pass
                self.num_classic = self._io.read_s4be()



        def _fetch_instances(self):
            pass
            if self.compact:
                pass
                self.num_compact._fetch_instances()

            if (not (self.compact)):
                pass


        @property
        def is_null(self):
            """True for a null array."""
            if hasattr(self, '_m_is_null'):
                return self._m_is_null

            self._m_is_null = (self.num_compact.unsigned_value == 0 if self.compact else self.num_classic == -1)
            return getattr(self, '_m_is_null', None)

        @property
        def num_elements(self):
            """Number of elements."""
            if hasattr(self, '_m_num_elements'):
                return self._m_num_elements

            self._m_num_elements = (0 if self.is_null else (self.num_compact.unsigned_value - 1 if self.compact else self.num_classic))
            return getattr(self, '_m_num_elements', None)


    class Boolean(KaitaiStruct):
        """A Kafka bool: one byte, non-zero is true.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaMessageCommon.Boolean, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.raw = self._io.read_u1()


        def _fetch_instances(self):
            pass

        @property
        def value(self):
            """The truth value."""
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = self.raw != 0
            return getattr(self, '_m_value', None)


    class BytesField(KaitaiStruct):
        """Kafka bytes: int32 length (classic) or unsigned varint length + 1 (compact); null when the length is -1 or the compact length 0.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
        """
        def __init__(self, compact, _io, _parent=None, _root=None):
            super(KafkaMessageCommon.BytesField, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.compact = compact
            self._read()

        def _read(self):
            if self.compact:
                pass
                self.len_compact = kafka_varint.KafkaVarint(self._io)

            if (not (self.compact)):
                pass
                self.len_classic = self._io.read_s4be()

            if (not (self.is_null)):
                pass
                self.value = self._io.read_bytes(self.len)



        def _fetch_instances(self):
            pass
            if self.compact:
                pass
                self.len_compact._fetch_instances()

            if (not (self.compact)):
                pass

            if (not (self.is_null)):
                pass


        @property
        def is_null(self):
            """True for null bytes."""
            if hasattr(self, '_m_is_null'):
                return self._m_is_null

            self._m_is_null = (self.len_compact.unsigned_value == 0 if self.compact else self.len_classic == -1)
            return getattr(self, '_m_is_null', None)

        @property
        def len(self):
            """Length in bytes."""
            if hasattr(self, '_m_len'):
                return self._m_len

            self._m_len = (self.len_compact.unsigned_value - 1 if self.compact else self.len_classic)
            return getattr(self, '_m_len', None)


    class Int16Prefix(KaitaiStruct):
        """The int16 that opens a coordinator record's key (its record type) and value (its version), an end-transaction marker and a KRaft control record (their version). Read on its own, it names a record whose message does not parse.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaMessageCommon.Int16Prefix, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.value = self._io.read_s2be()


        def _fetch_instances(self):
            pass


    class StringField(KaitaiStruct):
        """A Kafka string: int16 length (classic) or unsigned varint length + 1 (compact); null when the length is -1 or the compact length 0.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
        """
        def __init__(self, compact, _io, _parent=None, _root=None):
            super(KafkaMessageCommon.StringField, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.compact = compact
            self._read()

        def _read(self):
            if self.compact:
                pass
                self.len_compact = kafka_varint.KafkaVarint(self._io)

            if (not (self.compact)):
                pass
                self.len_classic = self._io.read_s2be()

            if (not (self.is_null)):
                pass
                self.value = self._io.read_bytes(self.len)



        def _fetch_instances(self):
            pass
            if self.compact:
                pass
                self.len_compact._fetch_instances()

            if (not (self.compact)):
                pass

            if (not (self.is_null)):
                pass


        @property
        def is_null(self):
            """True for a null string."""
            if hasattr(self, '_m_is_null'):
                return self._m_is_null

            self._m_is_null = (self.len_compact.unsigned_value == 0 if self.compact else self.len_classic == -1)
            return getattr(self, '_m_is_null', None)

        @property
        def len(self):
            """Length in bytes."""
            if hasattr(self, '_m_len'):
                return self._m_len

            self._m_len = (self.len_compact.unsigned_value - 1 if self.compact else self.len_classic)
            return getattr(self, '_m_len', None)

        @property
        def text(self):
            """The text, for the Web IDE (whose decoder replaces malformed bytes as browsers do)."""
            if hasattr(self, '_m_text'):
                return self._m_text

            if (not (self.is_null)):
                pass
                self._m_text = (self.value).decode(u"UTF-8")

            return getattr(self, '_m_text', None)


    class TaggedField(KaitaiStruct):
        """One tagged field kept as bytes: its tag, its size, its data.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/RawTaggedField.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaMessageCommon.TaggedField, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.tag = kafka_varint.KafkaVarint(self._io)
            self.len_data = kafka_varint.KafkaVarint(self._io)
            self.data = self._io.read_bytes(self.len_data.unsigned_value)


        def _fetch_instances(self):
            pass
            self.tag._fetch_instances()
            self.len_data._fetch_instances()


    class TaggedFields(KaitaiStruct):
        """A tagged-field section of a struct none of whose tags is known.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/protocol/types/RawTaggedField.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaMessageCommon.TaggedFields, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.num_fields = kafka_varint.KafkaVarint(self._io)
            self.fields = []
            for i in range(self.num_fields.unsigned_value):
                self.fields.append(KafkaMessageCommon.TaggedField(self._io, self, self._root))



        def _fetch_instances(self):
            pass
            self.num_fields._fetch_instances()
            for i in range(len(self.fields)):
                pass
                self.fields[i]._fetch_instances()



    class Uuid(KaitaiStruct):
        """A UUID: 16 bytes, most significant first. Kafka prints it in URL-safe base64 without padding.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/1eb7644349cb07139d6a3c1ad1986979647cac99/clients/src/main/java/org/apache/kafka/common/Uuid.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaMessageCommon.Uuid, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.raw = self._io.read_bytes(16)


        def _fetch_instances(self):
            pass



