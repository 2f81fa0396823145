# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaTimeIndex(KaitaiStruct):
    """The time index of a log segment: the `NNNNNNNNNNNNNNNNNNNN.timeindex` file
    next to the segment's `.log`, named by the same base offset. A sparse map
    from timestamps to offsets: an entry (T, O) says that the largest
    timestamp seen up to offset O is T, so every record with a timestamp above
    T comes after O. The broker appends (largest timestamp so far, the offset
    of the batch holding it) together with each offset index entry, only when
    the timestamp is larger than the last entry's, and a last entry when the
    segment is rolled or closed. Timestamps increase strictly from entry to
    entry; a segment of v0 messages (no timestamps) has an empty time index.
    
    There is no header and no checksum: the file is a plain array of 12-byte
    entries, as many as fit in the file (Kafka's `AbstractIndex` takes
    `length / 12`, rounded down). The active segment's file is preallocated
    to `segment.index.bytes` rounded down to a multiple of 12 (10485756 bytes
    for the default 10 MiB) and ends in zero-filled slots while the broker
    runs or after a crash. A zero-filled slot reads as relative offset 0,
    which only the first entry can hold: kafka-dump-log.sh stops at the first
    entry after entry 0 whose relative offset is 0, and so should a reader of
    `entries`.
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/AbstractIndex.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/LogSegment.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaTimeIndex, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.entries = []
        for i in range(self._io.size() // 12):
            self.entries.append(KafkaTimeIndex.TimeIndexEntry(self._io, self, self._root))

        self.trailing = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass
        for i in range(len(self.entries)):
            pass
            self.entries[i]._fetch_instances()


    class TimeIndexEntry(KaitaiStruct):
        """One slot of the time index.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaTimeIndex.TimeIndexEntry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.timestamp = self._io.read_s8be()
            self.relative_offset = self._io.read_s4be()


        def _fetch_instances(self):
            pass


    @property
    def num_slots(self):
        """The number of whole 12-byte slots, used or preallocated. A value
        instance so that the Web IDE's tree label can show it (its
        `-webide-representation` reads fields and value instances, not
        `.size` of an array).
        """
        if hasattr(self, '_m_num_slots'):
            return self._m_num_slots

        self._m_num_slots = len(self.entries)
        return getattr(self, '_m_num_slots', None)


