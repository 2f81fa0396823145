# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaControlRecord(KaitaiStruct):
    """The key of a record in a control batch (a v2 batch with the control bit
    set). Control records are written by the broker, not by producers: the
    COMMIT and ABORT markers that end a transaction, and in KRaft logs the
    leader-change, snapshot and voter records. A consumer never sees them.
    
    Parse a control record's key with this type; the value of a COMMIT or ABORT
    marker is an `end_txn_marker`. The values of the KRaft control types are
    Kafka messages of their own (LeaderChangeMessage, SnapshotHeaderRecord, ...)
    and are left opaque.
    
    .. seealso::
       Source - https://kafka.apache.org/documentation/#controlbatch
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/ControlRecordType.java
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/EndTransactionMarker.java
    """

    class ControlType(IntEnum):
        abort = 0
        commit = 1
        leader_change = 2
        snapshot_header = 3
        snapshot_footer = 4
        kraft_version = 5
        kraft_voters = 6
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaControlRecord, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.version = self._io.read_s2be()
        if not self.version >= 0:
            raise kaitaistruct.ValidationLessThanError(0, self.version, self._io, u"/seq/0")
        self.type = KaitaiStream.resolve_enum(KafkaControlRecord.ControlType, self._io.read_s2be())
        self.rest = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass

    class EndTxnMarker(KaitaiStruct):
        """The value of a COMMIT or ABORT control record.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/EndTransactionMarker.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaControlRecord.EndTxnMarker, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.version = self._io.read_s2be()
            if not self.version >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.version, self._io, u"/types/end_txn_marker/seq/0")
            self.coordinator_epoch = self._io.read_s4be()
            self.rest = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass



