# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaOffsetIndex(KaitaiStruct):
    """The offset index of a log segment: the `NNNNNNNNNNNNNNNNNNNN.index` file
    next to the segment's `.log`, named by the same base offset. A sparse map
    from offsets to byte positions in the `.log`: the broker adds an entry when
    more than `index.interval.bytes` were appended since the last one, holding
    the last offset of that append and the position where the append starts.
    Entries are in increasing offset order; a reader looks up the largest
    offset at or below its target and scans the `.log` from that position.
    
    There is no header and no checksum: the file is a plain array of 8-byte
    entries, as many as fit in the file (Kafka's `AbstractIndex` takes
    `length / 8`, rounded down). The file of the active segment is
    preallocated to `segment.index.bytes` (rounded down to a multiple of 8)
    and memory-mapped, so while the broker runs, or after it crashed, it ends
    in zero-filled slots; a rolled or cleanly closed segment's file is
    trimmed to its entries. A zero-filled slot reads as relative offset 0,
    which only the first entry can hold: kafka-dump-log.sh stops at the first
    entry after entry 0 whose relative offset is 0, and so should a reader of
    `entries`.
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/AbstractIndex.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/tools/src/main/java/org/apache/kafka/tools/DumpLogSegments.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaOffsetIndex, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.entries = []
        for i in range(self._io.size() // 8):
            self.entries.append(KafkaOffsetIndex.IndexEntry(self._io, self, self._root))

        self.trailing = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass
        for i in range(len(self.entries)):
            pass
            self.entries[i]._fetch_instances()


    class IndexEntry(KaitaiStruct):
        """One slot of the offset index.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaOffsetIndex.IndexEntry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.relative_offset = self._io.read_s4be()
            self.ofs_log_entry = self._io.read_s4be()


        def _fetch_instances(self):
            pass


    @property
    def num_slots(self):
        """The number of whole 8-byte slots, used or preallocated. A value
        instance so that the Web IDE's tree label can show it (its
        `-webide-representation` reads fields and value instances, not
        `.size` of an array).
        """
        if hasattr(self, '_m_num_slots'):
            return self._m_num_slots

        self._m_num_slots = len(self.entries)
        return getattr(self, '_m_num_slots', None)


