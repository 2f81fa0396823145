# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import kafka_record_batch
from . import kafka_message_set


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaLog(KaitaiStruct):
    """A Kafka log segment: the `NNNNNNNNNNNNNNNNNNNN.log` files in a partition
    directory, named by the offset of their first entry. A segment is a plain
    sequence of entries with no file header. Every entry starts with an offset
    (int64) and a size (int32), and its byte 16 is the magic byte that tells
    its format: 0 or 1 for a legacy message (see `kafka_message_set`), 2 for a
    record batch (see `kafka_record_batch`). A segment written across a message
    format upgrade mixes them, and this type reads each entry by its own magic.
    
    A segment of a broker that crashed may end in a partial entry, and one
    preallocated by the broker (`log.preallocate`) ends in zero bytes; both
    show here as a parse error at the end.
    
    .. seealso::
       Source - https://kafka.apache.org/documentation/#log
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaLog, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.entries = []
        i = 0
        while not self._io.is_eof():
            self.entries.append(KafkaLog.LogEntry(self._io, self, self._root))
            i += 1



    def _fetch_instances(self):
        pass
        for i in range(len(self.entries)):
            pass
            self.entries[i]._fetch_instances()


    class EntryHeader(KaitaiStruct):
        """The first bytes of an entry, whatever its format, read without the rest
        of it: the base offset and the size of every entry, the four bytes that
        are a v2 batch's partition leader epoch or a legacy message's CRC, and
        the magic byte. Kafka's `FileLogInputStream` reads these 17 bytes
        (`HEADER_SIZE_UP_TO_MAGIC`) to find each entry and its format, and its
        `FileChannelRecordBatch` reads a v2 batch's last offset and max
        timestamp at their fixed places without loading the batch: the broker's
        offset and timestamp lookups walk a segment by these headers alone.
        The same bytes are the start of `kafka_record_batch` and of
        `kafka_message_set::entry`.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaLog.EntryHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.base_offset = self._io.read_s8be()
            self.len_rest = self._io.read_s4be()
            if self.has_magic:
                pass
                self.leader_epoch_or_crc = self._io.read_s4be()

            if self.has_magic:
                pass
                self.magic = self._io.read_s1()

            if self.has_v2:
                pass
                self.v2 = KafkaLog.EntryHeader.V2Header(self._io, self, self._root)



        def _fetch_instances(self):
            pass
            if self.has_magic:
                pass

            if self.has_magic:
                pass

            if self.has_v2:
                pass
                self.v2._fetch_instances()


        class V2Header(KaitaiStruct):
            """The fields of a v2 batch's header after the magic byte, up to its max
            timestamp, at the places `DefaultRecordBatch` defines for them.
            
            .. seealso::
               Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
            """
            def __init__(self, _io, _parent=None, _root=None):
                super(KafkaLog.EntryHeader.V2Header, self).__init__(_io)
                self._parent = _parent
                self._root = _root
                self._read()

            def _read(self):
                self.crc = self._io.read_u4be()
                self.attributes = self._io.read_u2be()
                self.last_offset_delta = self._io.read_s4be()
                self.base_timestamp = self._io.read_s8be()
                self.max_timestamp = self._io.read_s8be()


            def _fetch_instances(self):
                pass


        @property
        def has_magic(self):
            """Whether the bytes read reach the magic byte (`HEADER_SIZE_UP_TO_MAGIC`)."""
            if hasattr(self, '_m_has_magic'):
                return self._m_has_magic

            self._m_has_magic = self._io.size() >= 17
            return getattr(self, '_m_has_magic', None)

        @property
        def has_v2(self):
            """Whether the bytes read hold a v2 batch's fields up to its max
            timestamp (a lookup reads a damaged magic above 2 as it reads 2).
            """
            if hasattr(self, '_m_has_v2'):
                return self._m_has_v2

            self._m_has_v2 =  ((self._io.size() >= 43) and (self.magic >= 2)) 
            return getattr(self, '_m_has_v2', None)


    class LogEntry(KaitaiStruct):
        """One entry of a segment, in the format its magic byte selects.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaLog.LogEntry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            _on = self.magic
            if _on == 0:
                pass
                self._raw_body = self._io.read_bytes(12 + self.len_rest)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = kafka_message_set.KafkaMessageSet.Entry(_io__raw_body)
            elif _on == 1:
                pass
                self._raw_body = self._io.read_bytes(12 + self.len_rest)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = kafka_message_set.KafkaMessageSet.Entry(_io__raw_body)
            elif _on == 2:
                pass
                self._raw_body = self._io.read_bytes(12 + self.len_rest)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = kafka_record_batch.KafkaRecordBatch(_io__raw_body)
            else:
                pass
                self.body = self._io.read_bytes(12 + self.len_rest)


        def _fetch_instances(self):
            pass
            _on = self.magic
            if _on == 0:
                pass
                self.body._fetch_instances()
            elif _on == 1:
                pass
                self.body._fetch_instances()
            elif _on == 2:
                pass
                self.body._fetch_instances()
            else:
                pass
            _ = self.len_rest
            if hasattr(self, '_m_len_rest'):
                pass

            _ = self.magic
            if hasattr(self, '_m_magic'):
                pass


        @property
        def len_rest(self):
            """The entry's size after its first 12 bytes (Kafka's `size`)."""
            if hasattr(self, '_m_len_rest'):
                return self._m_len_rest

            _pos = self._io.pos()
            self._io.seek(self._io.pos() + 8)
            self._m_len_rest = self._io.read_s4be()
            if not self._m_len_rest >= 14:
                raise kaitaistruct.ValidationLessThanError(14, self._m_len_rest, self._io, u"/types/log_entry/instances/len_rest")
            self._io.seek(_pos)
            return getattr(self, '_m_len_rest', None)

        @property
        def magic(self):
            """Message format version of the entry."""
            if hasattr(self, '_m_magic'):
                return self._m_magic

            _pos = self._io.pos()
            self._io.seek(self._io.pos() + 16)
            self._m_magic = self._io.read_s1()
            if not self._m_magic >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self._m_magic, self._io, u"/types/log_entry/instances/magic")
            if not self._m_magic <= 2:
                raise kaitaistruct.ValidationGreaterThanError(2, self._m_magic, self._io, u"/types/log_entry/instances/magic")
            self._io.seek(_pos)
            return getattr(self, '_m_magic', None)



