# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class KafkaVarint(KaitaiStruct):
    """A signed integer in Kafka's variable-length encoding, as used by every
    length and delta inside a v2 record: the value is zigzag-encoded
    (0 → 0, -1 → 1, 1 → 2, -2 → 3, ...) and the result is written as a
    little-endian base-128 number, 7 bits per byte, the high bit of each byte
    saying that another byte follows.
    
    Kafka writes int32 fields (`varint`, at most 5 bytes) and int64 fields
    (`varlong`, at most 10 bytes) the same way, so one type reads both; a
    continuation bit on the 10th byte is rejected, as Kafka rejects it.
    
    The bytes are read one field each (`b0`..`b9`) rather than as a repeated
    group so that a parser makes one object per number, not one per byte.
    
    In JavaScript (the Web IDE) numbers are doubles: `value` and
    `unsigned_value` are exact only up to 2^53 in magnitude. Lengths, counts
    and offset deltas always fit; a timestamp delta of more than about
    285,000 years does not.
    
    .. seealso::
       Source - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/utils/ByteUtils.java
    
    
    .. seealso::
       Source - https://protobuf.dev/programming-guides/encoding/#signed-ints
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(KafkaVarint, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.b0 = self._io.read_u1()
        if self.b0 >= 128:
            pass
            self.b1 = self._io.read_u1()

        if  ((self.b0 >= 128) and (self.b1 >= 128)) :
            pass
            self.b2 = self._io.read_u1()

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128)) :
            pass
            self.b3 = self._io.read_u1()

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128)) :
            pass
            self.b4 = self._io.read_u1()

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128)) :
            pass
            self.b5 = self._io.read_u1()

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128) and (self.b5 >= 128)) :
            pass
            self.b6 = self._io.read_u1()

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128) and (self.b5 >= 128) and (self.b6 >= 128)) :
            pass
            self.b7 = self._io.read_u1()

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128) and (self.b5 >= 128) and (self.b6 >= 128) and (self.b7 >= 128)) :
            pass
            self.b8 = self._io.read_u1()

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128) and (self.b5 >= 128) and (self.b6 >= 128) and (self.b7 >= 128) and (self.b8 >= 128)) :
            pass
            self.b9 = self._io.read_u1()
            if not self.b9 <= 127:
                raise kaitaistruct.ValidationGreaterThanError(127, self.b9, self._io, u"/seq/9")



    def _fetch_instances(self):
        pass
        if self.b0 >= 128:
            pass

        if  ((self.b0 >= 128) and (self.b1 >= 128)) :
            pass

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128)) :
            pass

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128)) :
            pass

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128)) :
            pass

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128) and (self.b5 >= 128)) :
            pass

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128) and (self.b5 >= 128) and (self.b6 >= 128)) :
            pass

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128) and (self.b5 >= 128) and (self.b6 >= 128) and (self.b7 >= 128)) :
            pass

        if  ((self.b0 >= 128) and (self.b1 >= 128) and (self.b2 >= 128) and (self.b3 >= 128) and (self.b4 >= 128) and (self.b5 >= 128) and (self.b6 >= 128) and (self.b7 >= 128) and (self.b8 >= 128)) :
            pass


    @property
    def len(self):
        """Number of bytes this number takes."""
        if hasattr(self, '_m_len'):
            return self._m_len

        self._m_len = (1 if self.b0 < 128 else (2 if self.b1 < 128 else (3 if self.b2 < 128 else (4 if self.b3 < 128 else (5 if self.b4 < 128 else (6 if self.b5 < 128 else (7 if self.b6 < 128 else (8 if self.b7 < 128 else (9 if self.b8 < 128 else 10)))))))))
        return getattr(self, '_m_len', None)

    @property
    def unsigned_value(self):
        """The zigzag-encoded value, before sign decoding."""
        if hasattr(self, '_m_unsigned_value'):
            return self._m_unsigned_value

        self._m_unsigned_value = (self.b0 & 127) + (0 if self.b0 < 128 else (self.b1 & 127) * 128 + (0 if self.b1 < 128 else (self.b2 & 127) * 16384 + (0 if self.b2 < 128 else (self.b3 & 127) * 2097152 + (0 if self.b3 < 128 else (self.b4 & 127) * 268435456 + (0 if self.b4 < 128 else (self.b5 & 127) * 34359738368 + (0 if self.b5 < 128 else (self.b6 & 127) * 4398046511104 + (0 if self.b6 < 128 else (self.b7 & 127) * 562949953421312 + (0 if self.b7 < 128 else (self.b8 & 127) * 72057594037927936 + (0 if self.b8 < 128 else (self.b9 & 1) * 9223372036854775808)))))))))
        return getattr(self, '_m_unsigned_value', None)

    @property
    def value(self):
        """The signed value, as Kafka's `ByteUtils.readVarint` / `readVarlong` returns it."""
        if hasattr(self, '_m_value'):
            return self._m_value

        self._m_value = (self.unsigned_value // 2 if self.b0 & 1 == 0 else -((self.unsigned_value + 1) // 2))
        return getattr(self, '_m_value', None)


