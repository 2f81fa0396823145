# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class AivenChunkSizes(KaitaiStruct):
    """The sizes of a remote segment's transformed (compressed and/or encrypted)
    chunks, as Aiven's remote storage manager keeps them in the `.rsm-manifest`
    when they vary (the chunk index `{"type":"variable", ...}`): the JSON field
    `transformedChunks` is base64 of one zstd frame (its content size set)
    whose content is this structure (`ChunkSizesBinaryCodec`).
    
    The encoding assumes that the chunks are of similar sizes: all values but
    the last are stored as their difference to the smallest of them (`base`),
    each in as few big-endian bytes as the largest difference needs
    (`bytes_per_value`, 1 to 4). The last chunk, often much smaller, is stored
    whole. No values: only the count. One value: the count and the value.
    
    Aiven's test vector: the zstd frame `KLUv/SAPeQAAAAAAAwAAAAoBAAoAAAAe`
    holds `00000003 0000000a 01 00 0a 0000001e`: the sizes 10, 20 and 30.
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/manifest/index/serde/ChunkSizesBinaryCodec.java
    
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/manifest/index/serde/TransformedChunksSerializer.java
    
    
    .. seealso::
       Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/test/java/io/aiven/kafka/tieredstorage/manifest/index/ChunkIndexSerializationTest.java
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(AivenChunkSizes, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.num_chunks = self._io.read_s4be()
        if not self.num_chunks >= 0:
            raise kaitaistruct.ValidationLessThanError(0, self.num_chunks, self._io, u"/seq/0")
        if self.num_chunks == 1:
            pass
            self.single = self._io.read_s4be()
            if not self.single >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.single, self._io, u"/seq/1")

        if self.num_chunks > 1:
            pass
            self.base = self._io.read_s4be()
            if not self.base >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.base, self._io, u"/seq/2")

        if self.num_chunks > 1:
            pass
            self.bytes_per_value = self._io.read_u1()
            if not self.bytes_per_value >= 1:
                raise kaitaistruct.ValidationLessThanError(1, self.bytes_per_value, self._io, u"/seq/3")
            if not self.bytes_per_value <= 4:
                raise kaitaistruct.ValidationGreaterThanError(4, self.bytes_per_value, self._io, u"/seq/3")



    def _fetch_instances(self):
        pass
        if self.num_chunks == 1:
            pass

        if self.num_chunks > 1:
            pass

        if self.num_chunks > 1:
            pass

        _ = self.differences
        if hasattr(self, '_m_differences'):
            pass
            for i in range(len(self._m_differences)):
                pass
                self._m_differences[i]._fetch_instances()


        _ = self.last
        if hasattr(self, '_m_last'):
            pass


    class Difference(KaitaiStruct):
        """One chunk's size minus `base`, in `bytes_per_value` big-endian bytes.
        
        .. seealso::
           Source - https://github.com/Aiven-Open/tiered-storage-for-apache-kafka/blob/8fb15816/core/src/main/java/io/aiven/kafka/tieredstorage/manifest/index/serde/ChunkSizesBinaryCodec.java
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(AivenChunkSizes.Difference, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.raw = self._io.read_bytes(self._parent.bytes_per_value)


        def _fetch_instances(self):
            pass

        @property
        def bytes_per_value(self):
            """The parent's `bytes_per_value`, for `value`."""
            if hasattr(self, '_m_bytes_per_value'):
                return self._m_bytes_per_value

            self._m_bytes_per_value = self._parent.bytes_per_value
            return getattr(self, '_m_bytes_per_value', None)

        @property
        def size(self):
            """The chunk's size in bytes in the `.log` object."""
            if hasattr(self, '_m_size'):
                return self._m_size

            self._m_size = self._parent.base + self.value
            return getattr(self, '_m_size', None)

        @property
        def value(self):
            """The difference as a number."""
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = (KaitaiStream.byte_array_index(self.raw, 0) if self.bytes_per_value == 1 else (KaitaiStream.byte_array_index(self.raw, 0) << 8 | KaitaiStream.byte_array_index(self.raw, 1) if self.bytes_per_value == 2 else ((KaitaiStream.byte_array_index(self.raw, 0) << 16 | KaitaiStream.byte_array_index(self.raw, 1) << 8) | KaitaiStream.byte_array_index(self.raw, 2) if self.bytes_per_value == 3 else ((KaitaiStream.byte_array_index(self.raw, 0) << 24 | KaitaiStream.byte_array_index(self.raw, 1) << 16) | KaitaiStream.byte_array_index(self.raw, 2) << 8) | KaitaiStream.byte_array_index(self.raw, 3))))
            return getattr(self, '_m_value', None)


    @property
    def differences(self):
        """Each chunk's size but the last, minus `base`, right after the header.
        An instance, so that a reader can take the header alone first and read
        the differences one at a time (kafkalog does: a count is checked
        against the object before any is read).
        """
        if hasattr(self, '_m_differences'):
            return self._m_differences

        if self.num_chunks > 1:
            pass
            _pos = self._io.pos()
            self._io.seek(9)
            self._m_differences = []
            for i in range(self.num_chunks - 1):
                self._m_differences.append(AivenChunkSizes.Difference(self._io, self, self._root))

            self._io.seek(_pos)

        return getattr(self, '_m_differences', None)

    @property
    def last(self):
        """The last chunk's size, whole (it takes no part in `base` and `bytes_per_value`), after the differences."""
        if hasattr(self, '_m_last'):
            return self._m_last

        if self.num_chunks > 1:
            pass
            _pos = self._io.pos()
            self._io.seek(9 + (self.num_chunks - 1) * self.bytes_per_value)
            self._m_last = self._io.read_s4be()
            self._io.seek(_pos)

        return getattr(self, '_m_last', None)


