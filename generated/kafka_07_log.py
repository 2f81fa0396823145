# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum
import kafkalog.compression


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Kafka07Log(KaitaiStruct):
    """A segment of a Kafka 0.7 partition: a file named by the byte offset of its
    first byte in the partition (20 digits, `.kafka`), holding a message set
    as the broker received it. The same layout is a message set anywhere in
    0.7: in a fetch response and inside a compressed message.
    
    An entry is a length and a message. The message has no offset, key or
    timestamp: a message's offset is a byte position in the partition. Magic 0
    (Kafka 0.6) has no attributes byte; magic 1 (0.7) has one, whose low two
    bits name the codec of the payload. The CRC-32 covers the payload only (not
    the magic or the attributes).
    
    A compressed message is a *wrapper*: its payload, decompressed, is a whole
    message set again (`payload_compressed.messages`), whose messages carry no
    offsets of their own. Kafka 0.7 decompresses a compressed message found
    inside one too. Offsets, as 0.7's `ByteBufferMessageSet` iterator gives
    them: see docs/kafka-07.md.
    
    The inner message set is parsed by the lazy instance
    `payload_compressed.messages` through the custom process routine
    `kafkalog.compression.kafka_decompress` (gzip, or snappy-java's stream or a
    raw snappy block); see `kafka_record_batch`.
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/Message.scala
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/ByteBufferMessageSet.scala
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/FileMessageSet.scala
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/log/Log.scala
    """

    class Compression(IntEnum):
        none = 0
        gzip = 1
        snappy = 2
        unknown = 3
    def __init__(self, _io, _parent=None, _root=None):
        super(Kafka07Log, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.entries = []
        i = 0
        while not self._io.is_eof():
            self.entries.append(Kafka07Log.Entry(self._io, self, self._root))
            i += 1



    def _fetch_instances(self):
        pass
        for i in range(len(self.entries)):
            pass
            self.entries[i]._fetch_instances()


    class CompressedMessageSet(KaitaiStruct):
        """A wrapper's payload. `messages` is a lazy instance that runs the custom
        process routine, so the rest of the file parses where that routine is
        missing.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/CompressionUtils.scala
        """
        def __init__(self, codec, _io, _parent=None, _root=None):
            super(Kafka07Log.CompressedMessageSet, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.codec = codec
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
            _process = kafkalog.compression.KafkaDecompress(int(self.codec), 1)
            self._raw__m_messages = _process.decode(self._raw__raw__m_messages)
            _io__raw__m_messages = KaitaiStream(BytesIO(self._raw__m_messages))
            self._m_messages = Kafka07Log(_io__raw__m_messages, self, self._root)
            self._io.seek(_pos)
            return getattr(self, '_m_messages', None)

        @property
        def messages_data(self):
            """The inner message set's bytes, decompressed."""
            if hasattr(self, '_m_messages_data'):
                return self._m_messages_data

            _pos = self._io.pos()
            self._io.seek(0)
            self._raw__m_messages_data = self._io.read_bytes_full()
            _process = kafkalog.compression.KafkaDecompress(int(self.codec), 1)
            self._m_messages_data = _process.decode(self._raw__m_messages_data)
            self._io.seek(_pos)
            return getattr(self, '_m_messages_data', None)


    class Entry(KaitaiStruct):
        """One entry of a message set, `MessageSet.entrySize` bytes.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/MessageSet.scala
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(Kafka07Log.Entry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.len_message = self._io.read_s4be()
            if not self.len_message >= 5:
                raise kaitaistruct.ValidationLessThanError(5, self.len_message, self._io, u"/types/entry/seq/0")
            self._raw_message = self._io.read_bytes(self.len_message)
            _io__raw_message = KaitaiStream(BytesIO(self._raw_message))
            self.message = Kafka07Log.Message(_io__raw_message, self, self._root)


        def _fetch_instances(self):
            pass
            self.message._fetch_instances()


    class EntryHeader(KaitaiStruct):
        """An entry's length alone: what 0.7's `FileMessageSet` reads first, to
        tell a whole entry from the end of the log.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/FileMessageSet.scala
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(Kafka07Log.EntryHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.len_message = self._io.read_s4be()


        def _fetch_instances(self):
            pass


    class Message(KaitaiStruct):
        """A message, magic 0 or 1, from its magic byte to the end of its payload.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/Message.scala
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(Kafka07Log.Message, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.magic = self._io.read_u1()
            if not  ((self.magic == 0) or (self.magic == 1)) :
                raise kaitaistruct.ValidationNotAnyOfError(self.magic, self._io, u"/types/message/seq/0")
            if self.magic == 1:
                pass
                self.attributes = Kafka07Log.MessageAttributes(self._io, self, self._root)

            self.crc = self._io.read_u4be()
            if self.codec == Kafka07Log.Compression.none:
                pass
                self.payload = self._io.read_bytes_full()

            if self.codec != Kafka07Log.Compression.none:
                pass
                self._raw_payload_compressed = self._io.read_bytes_full()
                _io__raw_payload_compressed = KaitaiStream(BytesIO(self._raw_payload_compressed))
                self.payload_compressed = Kafka07Log.CompressedMessageSet(self.codec, _io__raw_payload_compressed, self, self._root)



        def _fetch_instances(self):
            pass
            if self.magic == 1:
                pass
                self.attributes._fetch_instances()

            if self.codec == Kafka07Log.Compression.none:
                pass

            if self.codec != Kafka07Log.Compression.none:
                pass
                self.payload_compressed._fetch_instances()


        @property
        def codec(self):
            """The payload's codec, `Message.compressionCodec`; magic 0 is never compressed."""
            if hasattr(self, '_m_codec'):
                return self._m_codec

            self._m_codec = (self.attributes.compression if self.magic == 1 else Kafka07Log.Compression.none)
            return getattr(self, '_m_codec', None)

        @property
        def len_payload(self):
            """The size of the payload, `Message.payloadSize`."""
            if hasattr(self, '_m_len_payload'):
                return self._m_len_payload

            self._m_len_payload = self._io.size() - (6 if self.magic == 1 else 5)
            return getattr(self, '_m_len_payload', None)


    class MessageAttributes(KaitaiStruct):
        """The attributes byte of a magic 1 message.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/0.7.2/core/src/main/scala/kafka/message/Message.scala
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(Kafka07Log.MessageAttributes, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.unused = self._io.read_bits_int_be(6)
            self.compression = KaitaiStream.resolve_enum(Kafka07Log.Compression, self._io.read_bits_int_be(2))


        def _fetch_instances(self):
            pass



