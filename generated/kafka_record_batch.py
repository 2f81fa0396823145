# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import kafka_record
from enum import IntEnum
import kafkalog.compression


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaRecordBatch(KaitaiStruct):
    """A record batch, the unit Kafka 0.11 and later writes to a log segment:
    a 61-byte header followed by the records, which may be compressed as a
    whole. This type reads one batch starting at its base offset field.
    
    The CRC is a CRC-32C (Castagnoli) of every byte from `attributes` to the
    end of the batch; `partition_leader_epoch` is left out so a broker can
    rewrite it without recomputing the checksum.
    
    Compressed records are decompressed by the custom process routine
    `kafkalog.compression.kafka_decompress` in the lazy instance
    `records_data.decompressed`. kafkalog's Python runtime supplies it; in the
    Kaitai Web IDE paste kafkalog's JavaScript routine (see kafkalog's README),
    without it the rest of the batch still parses and only that instance fails.
    
    In JavaScript (the Web IDE) the 64-bit fields are doubles, exact only up to
    2^53: offsets and millisecond timestamps of real data fit, a producer id
    or timestamp near 2^63 does not.
    
    .. seealso::
       Source - https://kafka.apache.org/documentation/#recordbatch
    
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
    """

    class Compression(IntEnum):
        none = 0
        gzip = 1
        snappy = 2
        lz4 = 3
        zstd = 4

    class TimestampType(IntEnum):
        create_time = 0
        log_append_time = 1
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaRecordBatch, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.base_offset = self._io.read_s8be()
        self.len_batch = self._io.read_s4be()
        if not self.len_batch >= 49:
            raise kaitaistruct.ValidationLessThanError(49, self.len_batch, self._io, u"/seq/1")
        self.partition_leader_epoch = self._io.read_s4be()
        self.magic = self._io.read_s1()
        if not self.magic >= 2:
            raise kaitaistruct.ValidationLessThanError(2, self.magic, self._io, u"/seq/3")
        self.crc = self._io.read_u4be()
        self.attributes = KafkaRecordBatch.BatchAttributes(self._io, self, self._root)
        self.last_offset_delta = self._io.read_s4be()
        self.base_timestamp = self._io.read_s8be()
        self.max_timestamp = self._io.read_s8be()
        self.producer_id = self._io.read_s8be()
        self.producer_epoch = self._io.read_s2be()
        self.base_sequence = self._io.read_s4be()
        self.num_records = self._io.read_s4be()
        if not self.num_records >= 0:
            raise kaitaistruct.ValidationLessThanError(0, self.num_records, self._io, u"/seq/12")
        self._raw_records_data = self._io.read_bytes(self.len_batch - 49)
        _io__raw_records_data = KaitaiStream(BytesIO(self._raw_records_data))
        self.records_data = KafkaRecordBatch.RecordsData(self.attributes.compression, self.num_records, _io__raw_records_data, self, self._root)


    def _fetch_instances(self):
        pass
        self.attributes._fetch_instances()
        self.records_data._fetch_instances()

    class BatchAttributes(KaitaiStruct):
        """The 16-bit attributes of a record batch; bits 7 to 15 are unused.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(KafkaRecordBatch.BatchAttributes, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.unused = self._io.read_bits_int_be(9)
            self.has_delete_horizon = self._io.read_bits_int_be(1) != 0
            self.is_control = self._io.read_bits_int_be(1) != 0
            self.is_transactional = self._io.read_bits_int_be(1) != 0
            self.timestamp_type = KaitaiStream.resolve_enum(KafkaRecordBatch.TimestampType, self._io.read_bits_int_be(1))
            self.compression = KaitaiStream.resolve_enum(KafkaRecordBatch.Compression, self._io.read_bits_int_be(3))


        def _fetch_instances(self):
            pass


    class RecordList(KaitaiStruct):
        """A batch's records after decompression, `num_records` of them.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
        """
        def __init__(self, num_records, _io, _parent=None, _root=None):
            super(KafkaRecordBatch.RecordList, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.num_records = num_records
            self._read()

        def _read(self):
            self.records = []
            for i in range(self.num_records):
                self.records.append(kafka_record.KafkaRecord(self._io))

            self.trailing = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass
            for i in range(len(self.records)):
                pass
                self.records[i]._fetch_instances()



    class RecordsData(KaitaiStruct):
        """The bytes after the batch header. The records are parsed by lazy
        instances, so that a damaged record or a missing process routine does
        not keep the batch header from parsing: `uncompressed` for codec none
        (shown at once in the Web IDE), `decompressed` through the custom process
        routine for the other codecs.
        
        .. seealso::
           Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
        """
        def __init__(self, codec, num_records, _io, _parent=None, _root=None):
            super(KafkaRecordBatch.RecordsData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.codec = codec
            self.num_records = num_records
            self._read()

        def _read(self):
            self.data = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass
            _ = self.decompressed
            if hasattr(self, '_m_decompressed'):
                pass
                self._m_decompressed._fetch_instances()

            _ = self.decompressed_data
            if hasattr(self, '_m_decompressed_data'):
                pass

            _ = self.uncompressed
            if hasattr(self, '_m_uncompressed'):
                pass
                self._m_uncompressed._fetch_instances()


        @property
        def decompressed(self):
            """The records of a compressed batch, decompressed and parsed."""
            if hasattr(self, '_m_decompressed'):
                return self._m_decompressed

            if self.codec != KafkaRecordBatch.Compression.none:
                pass
                _pos = self._io.pos()
                self._io.seek(0)
                self._raw__raw__m_decompressed = self._io.read_bytes_full()
                _process = kafkalog.compression.KafkaDecompress(int(self.codec), 2)
                self._raw__m_decompressed = _process.decode(self._raw__raw__m_decompressed)
                _io__raw__m_decompressed = KaitaiStream(BytesIO(self._raw__m_decompressed))
                self._m_decompressed = KafkaRecordBatch.RecordList(self.num_records, _io__raw__m_decompressed, self, self._root)
                self._io.seek(_pos)

            return getattr(self, '_m_decompressed', None)

        @property
        def decompressed_data(self):
            """The decompressed records as bytes, not parsed: what a reader walks
            record by record when `decompressed` does not parse, to keep the
            records before a damaged one as Kafka's iterator does.
            """
            if hasattr(self, '_m_decompressed_data'):
                return self._m_decompressed_data

            if self.codec != KafkaRecordBatch.Compression.none:
                pass
                _pos = self._io.pos()
                self._io.seek(0)
                self._raw__m_decompressed_data = self._io.read_bytes_full()
                _process = kafkalog.compression.KafkaDecompress(int(self.codec), 2)
                self._m_decompressed_data = _process.decode(self._raw__m_decompressed_data)
                self._io.seek(_pos)

            return getattr(self, '_m_decompressed_data', None)

        @property
        def uncompressed(self):
            """The records of an uncompressed batch."""
            if hasattr(self, '_m_uncompressed'):
                return self._m_uncompressed

            if self.codec == KafkaRecordBatch.Compression.none:
                pass
                _pos = self._io.pos()
                self._io.seek(0)
                self._raw__m_uncompressed = self._io.read_bytes_full()
                _io__raw__m_uncompressed = KaitaiStream(BytesIO(self._raw__m_uncompressed))
                self._m_uncompressed = KafkaRecordBatch.RecordList(self.num_records, _io__raw__m_uncompressed, self, self._root)
                self._io.seek(_pos)

            return getattr(self, '_m_uncompressed', None)


    @property
    def last_offset(self):
        """Offset of the last record the batch was written with."""
        if hasattr(self, '_m_last_offset'):
            return self._m_last_offset

        self._m_last_offset = self.base_offset + self.last_offset_delta
        return getattr(self, '_m_last_offset', None)


