# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaTxnIndex(KaitaiStruct):
    """The transaction index of a log segment: the `NNNNNNNNNNNNNNNNNNNN.txnindex`
    file next to the segment's `.log`, named by the same base offset. It lists
    the transactions aborted by an ABORT marker written in that segment, in
    the order the markers were written (increasing `last_offset`); a
    transaction may have started in an earlier segment, so `first_offset` can
    be below the segment's base offset. A broker answering a read_committed
    fetch hands these entries to the consumer, which then skips the
    transactional batches of the listed producers from `first_offset` on.
    
    The file is created only when the segment gets its first aborted
    transaction, is not preallocated, and has no header and no checksum: a
    plain array of 34-byte entries. Kafka's reader takes entries while at least
    34 bytes remain, so a partial entry at the end is ignored.
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/TransactionIndex.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/AbortedTxn.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaTxnIndex, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.entries = []
        for i in range(self._io.size() // 34):
            self.entries.append(KafkaTxnIndex.AbortedTxn(self._io, self, self._root))

        self.trailing = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass
        for i in range(len(self.entries)):
            pass
            self.entries[i]._fetch_instances()


    class AbortedTxn(KaitaiStruct):
        """One aborted transaction (Kafka's `AbortedTxn`): 2 + 4 x 8 = 34 bytes.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/storage/src/main/java/org/apache/kafka/storage/internals/log/AbortedTxn.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaTxnIndex.AbortedTxn, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.version = self._io.read_s2be()
            self.producer_id = self._io.read_s8be()
            self.first_offset = self._io.read_s8be()
            self.last_offset = self._io.read_s8be()
            self.last_stable_offset = self._io.read_s8be()


        def _fetch_instances(self):
            pass


    @property
    def num_aborted_txns(self):
        """The number of whole entries. A value instance so that the Web IDE's
        tree label can show it (its `-webide-representation` reads fields and
        value instances, not `.size` of an array).
        """
        if hasattr(self, '_m_num_aborted_txns'):
            return self._m_num_aborted_txns

        self._m_num_aborted_txns = len(self.entries)
        return getattr(self, '_m_num_aborted_txns', None)


