import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.utils.ByteUtils;
import org.apache.kafka.common.utils.Crc32C;

/**
 * Lays out a partition directory the way a broker does (the storage module is not in
 * kafka-clients, so its rules are re-implemented here, following Kafka 3.9's sources):
 *
 * - storage/.../log/LogSegment.java append(largestOffset, largestTimestampMs, shallowOffsetOfMaxTimestamp, records):
 *     physicalPosition = log.sizeInBytes(); log.append(records);
 *     if (largestTimestampMs > maxTimestampSoFar()) maxTimestampAndOffsetSoFar = (largestTimestampMs, shallowOffsetOfMaxTimestamp);
 *     if (bytesSinceLastIndexEntry > indexIntervalBytes) {
 *         offsetIndex().append(largestOffset, physicalPosition);
 *         timeIndex().maybeAppend(maxTimestampSoFar(), offsetOfMaxTimestampSoFar());
 *         bytesSinceLastIndexEntry = 0;
 *     }
 *     bytesSinceLastIndexEntry += records.sizeInBytes();
 *   maxTimestampSoFar() starts as the time index's lastEntry(), (-1, baseOffset) when empty.
 *   largestTimestampMs / shallowOffsetOfMaxTimestamp of an append are the max batch.maxTimestamp()
 *   and that batch's lastOffset() (first batch reaching the max), as UnifiedLog.analyzeAndValidateRecords,
 *   LogSegment.appendChunkFromFile and LogSegment.recover compute them.
 * - TimeIndex.maybeAppend(timestamp, offset, skipFullCheck): appends only if timestamp > lastEntry.timestamp.
 * - OffsetIndex.append(offset, position): 8-byte entries (int32 offset - baseOffset, int32 position).
 * - LogSegment.shouldRoll: roll before an append when size > segment.bytes - messagesSize, or the offset
 *   index is full (entries >= maxEntries), or the time index is full (entries >= maxEntries - 1), or the last
 *   offset cannot be stored relative to the base offset. The new segment's base offset is the first offset
 *   of the append.
 * - LogSegment.onBecomeInactiveSegment (on roll): timeIndex().maybeAppend(maxTimestampSoFar(),
 *   offsetOfMaxTimestampSoFar(), true); offsetIndex().trimToValidSize(); timeIndex().trimToValidSize().
 * - AbstractIndex: index files are preallocated to segment.index.bytes rounded down to a multiple of the
 *   entry size, zero-filled; the active segment keeps that size while the broker runs. The directory is
 *   written as a running broker leaves it (no clean shutdown): the active segment's indexes are not trimmed
 *   and get no final time index entry.
 * - UnifiedLog.roll: ProducerStateManager.takeSnapshot() at the new segment's base offset
 *   (file <20-digit offset>.snapshot, layout of ProducerStateManager.writeSnapshot, see writeSnapshot below).
 * - UnifiedLog.append: for each transaction completed by a marker, segment.updateTxnIndex(completedTxn,
 *   producerStateManager.lastStableOffset(completedTxn)) on the active segment; aborted ones are written to
 *   its .txnindex (AbortedTxn: int16 version 0, int64 producerId, firstOffset, lastOffset, lastStableOffset).
 *   lastStableOffset = first offset of the earliest ongoing transaction of another producer, else lastOffset + 1.
 * - LeaderEpochFileCache.assign(epoch, startOffset) when a v2 batch's partitionLeaderEpoch is larger than the
 *   latest epoch; CheckpointFile text: version line "0", entry count line, "epoch startOffset" lines.
 */
final class PartitionWriter implements Closeable {
    final File dir;
    final int segmentBytes;
    final int indexIntervalBytes;
    final int maxIndexSize;

    final List<Segment> segments = new ArrayList<>();
    Segment active;
    long logEndOffset;

    // producer state (ProducerStateManager / ProducerStateEntry)
    final Map<Long, ProducerEntry> producers = new HashMap<>();
    final TreeMap<Long, Long> ongoingTxns = new TreeMap<>(); // first offset -> producer id
    final List<long[]> snapshots = new ArrayList<>();        // offsets of written snapshots
    boolean keepIndexEntries = true;                         // false for the corpus: entries only go to disk
    final List<long[]> abortedTxns = new ArrayList<>();      // producerId, firstOffset, lastOffset, lastStableOffset
    final TreeMap<Integer, Long> epochs = new TreeMap<>();

    static final class ProducerEntry {
        long producerId;
        short epoch = RecordBatch.NO_PRODUCER_EPOCH;
        int lastSeq = RecordBatch.NO_SEQUENCE;
        long lastDataOffset = -1;
        int lastOffsetDelta = 0;
        long lastTimestamp = RecordBatch.NO_TIMESTAMP;
        int coordinatorEpoch = -1;
        long currentTxnFirstOffset = -1;
    }

    final class Segment {
        final long baseOffset;
        final File logFile;
        final FileChannel channel;
        int size = 0;
        int bytesSinceLastIndexEntry = 0;
        long maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
        long offsetOfMaxTimestampSoFar;
        final ByteArrayOutputStream offsetIndex = new ByteArrayOutputStream();
        final ByteArrayOutputStream timeIndex = new ByteArrayOutputStream();
        final ByteArrayOutputStream txnIndex = new ByteArrayOutputStream();
        int offsetEntries = 0, timeEntries = 0;
        long lastTimeIndexTimestamp = RecordBatch.NO_TIMESTAMP;
        long lastOffsetIndexOffset = -1;
        final List<long[]> offsetIndexEntries = new ArrayList<>();
        final List<long[]> timeIndexEntries = new ArrayList<>();
        final List<long[]> txnEntries = new ArrayList<>();
        boolean closed = false;

        Segment(long baseOffset) throws IOException {
            this.baseOffset = baseOffset;
            this.offsetOfMaxTimestampSoFar = baseOffset;
            this.logFile = new File(dir, name(baseOffset) + ".log");
            Files.deleteIfExists(logFile.toPath());
            this.channel = FileChannel.open(logFile.toPath(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }

        int offsetMaxEntries() { return maxIndexSize / 8; }
        int timeMaxEntries() { return maxIndexSize / 12; }

        void append(long largestOffset, long largestTimestampMs, long shallowOffsetOfMaxTimestamp, MemoryRecords records) throws IOException {
            int physicalPosition = size;
            if (largestOffset - baseOffset > Integer.MAX_VALUE) throw new IllegalStateException("offset overflow");
            records.writeFullyTo(channel);
            size += records.sizeInBytes();
            if (largestTimestampMs > maxTimestampSoFar) {
                maxTimestampSoFar = largestTimestampMs;
                offsetOfMaxTimestampSoFar = shallowOffsetOfMaxTimestamp;
            }
            if (bytesSinceLastIndexEntry > indexIntervalBytes) {
                offsetIndexAppend(largestOffset, physicalPosition);
                timeIndexMaybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
                bytesSinceLastIndexEntry = 0;
            }
            bytesSinceLastIndexEntry += records.sizeInBytes();
        }

        void offsetIndexAppend(long offset, int position) {
            if (offsetEntries != 0 && offset <= lastOffsetIndexOffset) throw new IllegalStateException("offset index order");
            ByteBuffer b = ByteBuffer.allocate(8);
            b.putInt((int) (offset - baseOffset)).putInt(position);
            offsetIndex.write(b.array(), 0, 8);
            offsetEntries++;
            lastOffsetIndexOffset = offset;
            if (keepIndexEntries) offsetIndexEntries.add(new long[] {offset, position});
        }

        void timeIndexMaybeAppend(long timestamp, long offset) {
            if (timestamp > lastTimeIndexTimestamp) {
                ByteBuffer b = ByteBuffer.allocate(12);
                b.putLong(timestamp).putInt((int) (offset - baseOffset));
                timeIndex.write(b.array(), 0, 12);
                timeEntries++;
                lastTimeIndexTimestamp = timestamp;
                if (keepIndexEntries) timeIndexEntries.add(new long[] {timestamp, offset});
            }
        }

        boolean shouldRoll(int messagesSize, long maxOffsetInMessages) {
            return size > segmentBytes - messagesSize
                || offsetEntries >= offsetMaxEntries()
                || timeEntries >= timeMaxEntries() - 1
                || maxOffsetInMessages - baseOffset > Integer.MAX_VALUE;
        }

        /** onBecomeInactiveSegment: final time index entry, indexes trimmed to their entries. */
        void roll() throws IOException {
            timeIndexMaybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
            finish(false);
        }

        /** As a running broker leaves the active segment: index files preallocated and zero-filled. */
        void finish(boolean preallocated) throws IOException {
            channel.close();
            writeIndex(new File(dir, name(baseOffset) + ".index"), offsetIndex.toByteArray(),
                preallocated ? offsetMaxEntries() * 8 : -1);
            writeIndex(new File(dir, name(baseOffset) + ".timeindex"), timeIndex.toByteArray(),
                preallocated ? timeMaxEntries() * 12 : -1);
            if (txnIndex.size() > 0)
                Files.write(new File(dir, name(baseOffset) + ".txnindex").toPath(), txnIndex.toByteArray());
            offsetIndex.reset();
            timeIndex.reset();
            txnIndex.reset();
            closed = true;
        }
    }

    static void writeIndex(File f, byte[] entries, long preallocatedLength) throws IOException {
        Files.write(f.toPath(), entries);
        if (preallocatedLength > entries.length) {
            try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
                raf.setLength(preallocatedLength);
            }
        }
    }

    static String name(long offset) {
        return String.format("%020d", offset);
    }

    PartitionWriter(File dir, int segmentBytes, int indexIntervalBytes, int maxIndexSize) throws IOException {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.indexIntervalBytes = indexIntervalBytes;
        this.maxIndexSize = maxIndexSize;
        dir.mkdirs();
        for (File f : dir.listFiles()) f.delete();
        active = new Segment(0);
        segments.add(active);
    }

    /** One append (one produce request's worth of batches for this partition). */
    void append(MemoryRecords records) throws IOException {
        long firstOffset = -1, lastOffset = -1, maxTs = RecordBatch.NO_TIMESTAMP, shallowOffsetOfMaxTs = -1;
        for (MutableRecordBatch b : records.batches()) {
            if (firstOffset < 0) firstOffset = b.baseOffset();
            lastOffset = b.lastOffset();
            if (b.maxTimestamp() > maxTs) {
                maxTs = b.maxTimestamp();
                shallowOffsetOfMaxTs = b.lastOffset();
            }
        }
        if (firstOffset != logEndOffset) throw new IllegalStateException("expected offset " + logEndOffset + " got " + firstOffset);
        if (active.size > 0 && active.shouldRoll(records.sizeInBytes(), lastOffset)) roll(firstOffset);
        if (shallowOffsetOfMaxTs < 0) shallowOffsetOfMaxTs = lastOffset;
        active.append(lastOffset, maxTs, shallowOffsetOfMaxTs, records);
        for (MutableRecordBatch b : records.batches()) {
            if (b.magic() >= RecordBatch.MAGIC_VALUE_V2 && b.partitionLeaderEpoch() >= 0
                    && (epochs.isEmpty() || b.partitionLeaderEpoch() > epochs.lastKey()))
                epochs.put(b.partitionLeaderEpoch(), b.baseOffset());
            if (b.hasProducerId()) updateProducerState(b);
        }
        logEndOffset = lastOffset + 1;
    }

    /** ProducerAppendInfo.append / appendDataBatch / appendEndTxnMarker, then completed txns to the txn index. */
    private void updateProducerState(RecordBatch b) {
        ProducerEntry e = producers.computeIfAbsent(b.producerId(), id -> {
            ProducerEntry n = new ProducerEntry();
            n.producerId = id;
            return n;
        });
        if (b.producerEpoch() != e.epoch) {
            // ProducerStateEntry.maybeUpdateProducerEpoch clears the batch metadata on an epoch change
            e.epoch = b.producerEpoch();
            e.lastSeq = RecordBatch.NO_SEQUENCE;
            e.lastDataOffset = -1;
            e.lastOffsetDelta = 0;
        }
        if (b.isControlBatch()) {
            Record r = b.iterator().next();
            ControlRecordType type = ControlRecordType.parse(r.key());
            if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) return;
            EndTransactionMarker marker = EndTransactionMarker.deserialize(r);
            if (e.currentTxnFirstOffset >= 0) {
                long first = e.currentTxnFirstOffset;
                ongoingTxns.remove(first);
                if (type == ControlRecordType.ABORT) {
                    long lso = ongoingTxns.isEmpty() ? b.lastOffset() + 1 : ongoingTxns.firstKey();
                    long[] t = {b.producerId(), first, b.lastOffset(), lso};
                    abortedTxns.add(t);
                    active.txnEntries.add(t);
                    ByteBuffer buf = ByteBuffer.allocate(34);
                    buf.putShort((short) 0).putLong(t[0]).putLong(t[1]).putLong(t[2]).putLong(t[3]);
                    active.txnIndex.write(buf.array(), 0, 34);
                }
            }
            e.coordinatorEpoch = marker.coordinatorEpoch();
            e.lastTimestamp = b.maxTimestamp();
            e.currentTxnFirstOffset = -1;
        } else {
            e.lastSeq = b.lastSequence();
            e.lastDataOffset = b.lastOffset();
            e.lastOffsetDelta = (int) (b.lastOffset() - b.baseOffset());
            e.lastTimestamp = b.maxTimestamp();
            if (b.isTransactional() && e.currentTxnFirstOffset < 0) {
                e.currentTxnFirstOffset = b.baseOffset();
                ongoingTxns.put(b.baseOffset(), b.producerId());
            }
        }
    }

    private void roll(long newBaseOffset) throws IOException {
        active.roll();
        active = new Segment(newBaseOffset);
        segments.add(active);
        writeSnapshot(newBaseOffset);
    }

    // ProducerStateManager.writeSnapshot (Kafka 3.9), field for field:
    //   PID_SNAPSHOT_MAP_SCHEMA = version INT16, crc UNSIGNED_INT32, producer_entries ARRAY of
    //   {producer_id INT64, epoch INT16, last_sequence INT32, last_offset INT64, offset_delta INT32,
    //    timestamp INT64, coordinator_epoch INT32, current_txn_first_offset INT64};
    //   version = 1; crc = Crc32C over the bytes after the crc field (PRODUCER_ENTRIES_OFFSET = 6).
    static final Schema ENTRY = new Schema(
        new Field("producer_id", Type.INT64), new Field("epoch", Type.INT16), new Field("last_sequence", Type.INT32),
        new Field("last_offset", Type.INT64), new Field("offset_delta", Type.INT32), new Field("timestamp", Type.INT64),
        new Field("coordinator_epoch", Type.INT32), new Field("current_txn_first_offset", Type.INT64));
    static final Schema SNAPSHOT = new Schema(
        new Field("version", Type.INT16), new Field("crc", Type.UNSIGNED_INT32),
        new Field("producer_entries", new ArrayOf(ENTRY)));

    final List<String> snapshotJson = new ArrayList<>();

    void writeSnapshot(long offset) throws IOException {
        Struct struct = new Struct(SNAPSHOT);
        struct.set("version", (short) 1);
        struct.set("crc", 0L);
        Struct[] entries = new Struct[producers.size()];
        int i = 0;
        StringBuilder ej = new StringBuilder("[");
        for (Map.Entry<Long, ProducerEntry> me : producers.entrySet()) {
            ProducerEntry e = me.getValue();
            Struct s = struct.instance("producer_entries");
            s.set("producer_id", me.getKey()).set("epoch", e.epoch).set("last_sequence", e.lastSeq)
                .set("last_offset", e.lastDataOffset).set("offset_delta", e.lastOffsetDelta)
                .set("timestamp", e.lastTimestamp).set("coordinator_epoch", e.coordinatorEpoch)
                .set("current_txn_first_offset", e.currentTxnFirstOffset);
            entries[i++] = s;
            if (ej.length() > 1) ej.append(',');
            ej.append(Json.obj().put("producer_id", me.getKey()).put("epoch", e.epoch).put("last_sequence", e.lastSeq)
                .put("last_offset", e.lastDataOffset).put("offset_delta", e.lastOffsetDelta).put("timestamp", e.lastTimestamp)
                .put("coordinator_epoch", e.coordinatorEpoch).put("current_txn_first_offset", e.currentTxnFirstOffset).end());
        }
        ej.append(']');
        struct.set("producer_entries", entries);
        ByteBuffer buffer = ByteBuffer.allocate(struct.sizeOf());
        struct.writeTo(buffer);
        buffer.flip();
        long crc = Crc32C.compute(buffer, 6, buffer.limit() - 6);
        ByteUtils.writeUnsignedInt(buffer, 2, crc);
        File f = new File(dir, name(offset) + ".snapshot");
        Files.write(f.toPath(), java.util.Arrays.copyOf(buffer.array(), buffer.limit()));
        snapshots.add(new long[] {offset});
        snapshotJson.add(Json.obj().put("file", f.getName()).put("offset", offset).put("version", 1)
            .put("crc", crc).raw("producer_entries", ej.toString()).end());
    }

    void writeLeaderEpochCheckpoint() throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("0\n").append(epochs.size()).append('\n');
        for (Map.Entry<Integer, Long> e : epochs.entrySet()) sb.append(e.getKey()).append(' ').append(e.getValue()).append('\n');
        Files.write(new File(dir, "leader-epoch-checkpoint").toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Stop as a running broker would be seen: active segment's indexes preallocated. */
    @Override
    public void close() throws IOException {
        if (!active.closed) active.finish(true);
        writeLeaderEpochCheckpoint();
    }
}
