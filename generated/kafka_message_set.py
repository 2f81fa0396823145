# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum
import kafkalog.compression


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaMessageSet(KaitaiStruct):
    """The message format Kafka wrote before 0.11: a message set is a sequence of
    entries, each an offset, a size and one message. Magic 0 (before 0.10) has
    no timestamp; magic 1 (0.10) adds one.
    
    A compressed message is a *wrapper*: its key is null and its value is a
    whole inner message set, compressed. In a magic 0 wrapper the inner offsets
    are absolute. In a magic 1 wrapper they are relative: the wrapper's offset
    is the absolute offset of the last inner message, so an inner message's
    absolute offset is wrapper offset - last inner offset + inner offset (after
    compaction the inner offsets may have gaps). A magic 1 wrapper with
    LogAppendTime gives every inner message its own timestamp.
    
    The inner message set is parsed by the lazy instance
    `message.compressed_value.messages` through the custom process routine
    `kafkalog.compression.kafka_decompress`; see `kafka_record_batch`.
    
    In JavaScript (the Web IDE) the 64-bit offset and timestamp are exact only
    up to 2^53.
    
    .. seealso::
       Source - https://kafka.apache.org/documentation/#messageset
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/AbstractLegacyRecordBatch.java
    """

    class Compression(IntEnum):
        none = 0
        gzip = 1
        snappy = 2
        lz4 = 3

    class TimestampType(IntEnum):
        create_time = 0
        log_append_time = 1
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaMessageSet, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.entries = []
        i = 0
        while not self._io.is_eof():
            self.entries.append(KafkaMessageSet.Entry(self._io, self, self._root))
            i += 1



    def _fetch_instances(self):
        pass
        for i in range(len(self.entries)):
            pass
            self.entries[i]._fetch_instances()


    class CompressedMessageSet(KaitaiStruct):
        """A wrapper's compressed value. `messages` is a lazy instance that runs
        the custom process routine, so the rest of the file parses where that
        routine is missing.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/AbstractLegacyRecordBatch.java
        """
        def __init__(self, codec, wrapper_magic, _io, _parent=None, _root=None):
            super(KafkaMessageSet.CompressedMessageSet, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.codec = codec
            self.wrapper_magic = wrapper_magic
            self._read()

        def _read(self):
            self.data = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass
            _ = self.messages
            if hasattr(self, '_m_messages'):
                pass
                self._m_messages._fetch_instances()

            _ = self.messages_data
            if hasattr(self, '_m_messages_data'):
                pass


        @property
        def messages(self):
            """The inner message set, decompressed and parsed."""
            if hasattr(self, '_m_messages'):
                return self._m_messages

            _pos = self._io.pos()
            self._io.seek(0)
            self._raw__raw__m_messages = self._io.read_bytes_full()
            _process = kafkalog.compression.KafkaDecompress(int(self.codec), self.wrapper_magic)
            self._raw__m_messages = _process.decode(self._raw__raw__m_messages)
            _io__raw__m_messages = KaitaiStream(BytesIO(self._raw__m_messages))
            self._m_messages = KafkaMessageSet(_io__raw__m_messages, self, self._root)
            self._io.seek(_pos)
            return getattr(self, '_m_messages', None)

        @property
        def messages_data(self):
            """The inner message set as bytes, not parsed: what a reader walks
            entry by entry when `messages` does not parse, to keep the messages
            before a damaged one as Kafka's iterator does.
            """
            if hasattr(self, '_m_messages_data'):
                return self._m_messages_data

            _pos = self._io.pos()
            self._io.seek(0)
            self._raw__m_messages_data = self._io.read_bytes_full()
            _process = kafkalog.compression.KafkaDecompress(int(self.codec), self.wrapper_magic)
            self._m_messages_data = _process.decode(self._raw__m_messages_data)
            self._io.seek(_pos)
            return getattr(self, '_m_messages_data', None)


    class Entry(KaitaiStruct):
        """One entry of a message set, a log entry on its own in a segment file.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/AbstractLegacyRecordBatch.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaMessageSet.Entry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offset = self._io.read_s8be()
            self.len_message = self._io.read_s4be()
            if not self.len_message >= 14:
                raise kaitaistruct.ValidationLessThanError(14, self.len_message, self._io, u"/types/entry/seq/1")
            self._raw_message = self._io.read_bytes(self.len_message)
            _io__raw_message = KaitaiStream(BytesIO(self._raw_message))
            self.message = KafkaMessageSet.Message(_io__raw_message, self, self._root)


        def _fetch_instances(self):
            pass
            self.message._fetch_instances()


    class Message(KaitaiStruct):
        """A message (magic 0 or 1), from its CRC to the end of its value.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaMessageSet.Message, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.crc = self._io.read_u4be()
            self.magic = self._io.read_s1()
            if not  ((self.magic == 0) or (self.magic == 1)) :
                raise kaitaistruct.ValidationNotAnyOfError(self.magic, self._io, u"/types/message/seq/1")
            self.attributes = KafkaMessageSet.MessageAttributes(self._io, self, self._root)
            if self.magic == 1:
                pass
                self.timestamp = self._io.read_s8be()

            self.len_key = self._io.read_s4be()
            if self.len_key >= 0:
                pass
                self.key = self._io.read_bytes(self.len_key)

            self.len_value = self._io.read_s4be()
            if  ((self.len_value >= 0) and (self.attributes.compression == KafkaMessageSet.Compression.none)) :
                pass
                self.value = self._io.read_bytes(self.len_value)

            if  ((self.len_value >= 0) and (self.attributes.compression != KafkaMessageSet.Compression.none)) :
                pass
                self._raw_compressed_value = self._io.read_bytes(self.len_value)
                _io__raw_compressed_value = KaitaiStream(BytesIO(self._raw_compressed_value))
                self.compressed_value = KafkaMessageSet.CompressedMessageSet(self.attributes.compression, self.magic, _io__raw_compressed_value, self, self._root)

            self.trailing = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass
            self.attributes._fetch_instances()
            if self.magic == 1:
                pass

            if self.len_key >= 0:
                pass

            if  ((self.len_value >= 0) and (self.attributes.compression == KafkaMessageSet.Compression.none)) :
                pass

            if  ((self.len_value >= 0) and (self.attributes.compression != KafkaMessageSet.Compression.none)) :
                pass
                self.compressed_value._fetch_instances()



    class MessageAttributes(KaitaiStruct):
        """The 8-bit attributes of a message.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaMessageSet.MessageAttributes, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.unused = self._io.read_bits_int_be(4)
            self.timestamp_type = KaitaiStream.resolve_enum(KafkaMessageSet.TimestampType, self._io.read_bits_int_be(1))
            self.compression = KaitaiStream.resolve_enum(KafkaMessageSet.Compression, self._io.read_bits_int_be(3))


        def _fetch_instances(self):
            pass



