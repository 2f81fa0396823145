# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaProducerSnapshot(KaitaiStruct):
    """A producer state snapshot: the `NNNNNNNNNNNNNNNNNNNN.snapshot` files of a
    partition directory, named by the offset up to which they hold the state
    (the broker takes one when it rolls a segment, at the new segment's base
    offset, and on clean shutdown). It holds, for every producer id the
    broker remembers, what it needs to deduplicate retries and track open
    transactions without reading the log again.
    
    The layout is Kafka's `PID_SNAPSHOT_MAP_SCHEMA` in
    `ProducerStateManager`, written with Kafka's protocol types: version
    (int16, 1), crc (uint32), and an array (int32 count, then the entries) of
    46-byte producer entries.
    
    The crc is a CRC-32C (Castagnoli) of every byte of the file from offset 6
    to its end, that is the entry count and the entries: `writeSnapshot`
    computes it over the buffer from `PRODUCER_ENTRIES_OFFSET` (6) to the
    buffer's limit and `readSnapshot` over the whole file from 6. Kaitai
    Struct has no CRC-32C, so this spec does not check it; kafkalog's
    runtime does (`kafkalog.formats.producer_snapshot`), as Kafka's `readSnapshot` does,
    before it trusts the entries. Field names are Kafka's schema field names.
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateEntry.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/protocol/types/ArrayOf.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaProducerSnapshot, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.version = self._io.read_s2be()
        if not self.version == 1:
            raise kaitaistruct.ValidationNotEqualError(1, self.version, self._io, u"/seq/0")
        self.crc = self._io.read_u4be()
        self.num_producer_entries = self._io.read_s4be()
        if not self.num_producer_entries >= 0:
            raise kaitaistruct.ValidationLessThanError(0, self.num_producer_entries, self._io, u"/seq/2")
        self.producer_entries = []
        for i in range(self.num_producer_entries):
            self.producer_entries.append(KafkaProducerSnapshot.ProducerEntry(self._io, self, self._root))

        self.trailing = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass
        for i in range(len(self.producer_entries)):
            pass
            self.producer_entries[i]._fetch_instances()


    class Header(KaitaiStruct):
        """The version and the crc alone. Read before the whole file, so that a
        snapshot of an unknown version, or whose entries do not parse, still
        shows its version and its crc, as Kafka's `readSnapshot` reports them.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaProducerSnapshot.Header, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.version = self._io.read_s2be()
            if self.has_crc:
                pass
                self.crc = self._io.read_u4be()



        def _fetch_instances(self):
            pass
            if self.has_crc:
                pass


        @property
        def has_crc(self):
            """Whether the file is long enough to hold the crc."""
            if hasattr(self, '_m_has_crc'):
                return self._m_has_crc

            self._m_has_crc = self._io.size() >= 6
            return getattr(self, '_m_has_crc', None)


    class ProducerEntry(KaitaiStruct):
        """The state of one producer (Kafka's `PRODUCER_SNAPSHOT_ENTRY_SCHEMA`), 46 bytes.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaProducerSnapshot.ProducerEntry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.producer_id = self._io.read_s8be()
            self.epoch = self._io.read_s2be()
            self.last_sequence = self._io.read_s4be()
            self.last_offset = self._io.read_s8be()
            self.offset_delta = self._io.read_s4be()
            self.timestamp = self._io.read_s8be()
            self.coordinator_epoch = self._io.read_s4be()
            self.current_txn_first_offset = self._io.read_s8be()


        def _fetch_instances(self):
            pass



