# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import kafka_varint


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaRecord(KaitaiStruct):
    """One record of a v2 record batch (magic 2, Kafka 0.11 and later). Offsets,
    timestamps and sequence numbers are deltas against the batch header; the
    absolute values are:
    
    * offset = batch `base_offset` + `offset_delta`
    * timestamp = batch `base_timestamp` + `timestamp_delta`, unless the batch
      uses LogAppendTime, in which case every record has the batch
      `max_timestamp`
    * sequence = batch `base_sequence` + `offset_delta`, wrapping from
      2^31-1 to 0 (no sequence when the batch has base sequence -1)
    
    Every integer here is a zigzag varint (`kafka_varint`). A negative key or
    value length means null.
    
    .. seealso::
       Source - https://kafka.apache.org/documentation/#record
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecord.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaRecord, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.len_body = kafka_varint.KafkaVarint(self._io)
        self._raw_body = self._io.read_bytes(self.len_body.value)
        _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
        self.body = KafkaRecord.RecordBody(_io__raw_body, self, self._root)


    def _fetch_instances(self):
        pass
        self.len_body._fetch_instances()
        self.body._fetch_instances()

    class Header(KaitaiStruct):
        """A record header; keys repeat freely, order is kept.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/header/internals/RecordHeader.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaRecord.Header, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.len_key = kafka_varint.KafkaVarint(self._io)
            _ = self.len_key
            if not _.value >= 0:
                raise kaitaistruct.ValidationExprError(self.len_key, self._io, u"/types/header/seq/0")
            self.key = self._io.read_bytes(self.len_key.value)
            self.len_value = kafka_varint.KafkaVarint(self._io)
            if self.len_value.value >= 0:
                pass
                self.value = self._io.read_bytes(self.len_value.value)



        def _fetch_instances(self):
            pass
            self.len_key._fetch_instances()
            self.len_value._fetch_instances()
            if self.len_value.value >= 0:
                pass



    class RecordBody(KaitaiStruct):
        """The fields of a record after its length.
        
        .. seealso::
           Source - https://kafka.apache.org/documentation/#record
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaRecord.RecordBody, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.attributes = self._io.read_s1()
            self.timestamp_delta = kafka_varint.KafkaVarint(self._io)
            self.offset_delta = kafka_varint.KafkaVarint(self._io)
            self.len_key = kafka_varint.KafkaVarint(self._io)
            if self.len_key.value >= 0:
                pass
                self.key = self._io.read_bytes(self.len_key.value)

            self.len_value = kafka_varint.KafkaVarint(self._io)
            if self.len_value.value >= 0:
                pass
                self.value = self._io.read_bytes(self.len_value.value)

            self.num_headers = kafka_varint.KafkaVarint(self._io)
            _ = self.num_headers
            if not _.value >= 0:
                raise kaitaistruct.ValidationExprError(self.num_headers, self._io, u"/types/record_body/seq/7")
            self.headers = []
            for i in range(self.num_headers.value):
                self.headers.append(KafkaRecord.Header(self._io, self, self._root))

            self.trailing = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass
            self.timestamp_delta._fetch_instances()
            self.offset_delta._fetch_instances()
            self.len_key._fetch_instances()
            if self.len_key.value >= 0:
                pass

            self.len_value._fetch_instances()
            if self.len_value.value >= 0:
                pass

            self.num_headers._fetch_instances()
            for i in range(len(self.headers)):
                pass
                self.headers[i]._fetch_instances()




