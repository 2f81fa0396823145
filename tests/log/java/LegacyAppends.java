import java.io.File;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.storage.internals.log.OffsetIndex;
import org.apache.kafka.storage.internals.log.TimeIndex;

/**
 * Segments of v0/v1 messages indexed as Kafka 1.1 and 2.8's LogSegment.append indexed them: one offset index
 * entry per append (once more than index.interval.bytes were appended since the last), at the append's
 * largest offset and the position where the append starts, and a time index entry at the largest timestamp
 * so far and its message's shallow offset. Written with Kafka's own FileRecords, MemoryRecords, OffsetIndex and
 * TimeIndex (kafka-clients and kafka-storage 3.9.2). Usage: LegacyAppends OUT_DIR
 *
 * OUT_DIR/old-broker-0: v1 appends of several uncompressed messages, a gzip wrapper, single messages;
 * OUT_DIR/old-broker-v0-0: v0 appends (no timestamps, no time index);
 * OUT_DIR/not-an-append-0: index entries that are no such append's (written through OffsetIndex.append):
 * an offset past the append at its position, an offset below the message there, a v2 batch's wrong offset,
 * beside one entry of the old brokers' kind.
 */
public class LegacyAppends {
    static final int INDEX_INTERVAL_BYTES = 100;
    static long now = 1700000000000L;

    static SimpleRecord[] records(int n, String tag) {
        SimpleRecord[] out = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            out[i] = new SimpleRecord(now++, ("k-" + tag + i).getBytes(), ("value " + tag + " " + i).getBytes());
        }
        return out;
    }

    /** An append as LogSegment.append (Kafka 1.1 to 2.8) wrote it to the log and its indexes. */
    static class Segment {
        final FileRecords log;
        final OffsetIndex index;
        final TimeIndex timeIndex;
        int bytesSinceLastIndexEntry = 0;
        long maxTimestampSoFar = -1;
        long offsetOfMaxTimestamp = 0;

        Segment(File dir, boolean withTimeIndex) throws Exception {
            dir.mkdirs();
            log = FileRecords.open(new File(dir, "00000000000000000000.log"));
            index = new OffsetIndex(new File(dir, "00000000000000000000.index"), 0L, 4096);
            timeIndex = withTimeIndex ? new TimeIndex(new File(dir, "00000000000000000000.timeindex"), 0L, 4096) : null;
        }

        void append(MemoryRecords records) throws Exception {
            long largestOffset = -1;
            long largestTimestamp = RecordBatch.NO_TIMESTAMP;
            long shallowOffsetOfMaxTimestamp = -1;
            for (RecordBatch batch : records.batches()) {  // a v0/v1 "batch" is a shallow message (or wrapper)
                largestOffset = batch.lastOffset();
                if (batch.maxTimestamp() > largestTimestamp) {
                    largestTimestamp = batch.maxTimestamp();
                    shallowOffsetOfMaxTimestamp = batch.lastOffset();
                }
            }
            int physicalPosition = log.sizeInBytes();
            log.append(records);
            if (largestTimestamp > maxTimestampSoFar) {
                maxTimestampSoFar = largestTimestamp;
                offsetOfMaxTimestamp = shallowOffsetOfMaxTimestamp;
            }
            if (bytesSinceLastIndexEntry > INDEX_INTERVAL_BYTES) {
                index.append(largestOffset, physicalPosition);
                if (timeIndex != null) {
                    timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestamp);
                }
                bytesSinceLastIndexEntry = 0;
            }
            bytesSinceLastIndexEntry += records.sizeInBytes();
        }

        void close() throws Exception {
            log.close();
            index.close();
            if (timeIndex != null) {
                timeIndex.close();
            }
        }
    }

    static MemoryRecords v(byte magic, long offset, Compression compression, SimpleRecord... records) {
        return MemoryRecords.withRecords(magic, offset, compression, TimestampType.CREATE_TIME, records);
    }

    public static void main(String[] args) throws Exception {
        File out = new File(args[0]);
        byte v1 = RecordBatch.MAGIC_VALUE_V1;

        Segment s = new Segment(new File(out, "old-broker-0"), true);
        long offset = 0;
        int[] sizes = {3, 4, 1, 5, 2, 6, 1, 1, 3};
        for (int i = 0; i < sizes.length; i++) {
            Compression c = i == 4 ? Compression.gzip().build() : Compression.NONE;
            s.append(v(v1, offset, c, records(sizes[i], "a" + i)));
            offset += sizes[i];
        }
        s.close();

        s = new Segment(new File(out, "old-broker-v0-0"), false);
        offset = 0;
        for (int n : new int[] {2, 4, 3, 5}) {
            SimpleRecord[] rs = records(n, "v0-");
            List<SimpleRecord> plain = new ArrayList<>();
            for (SimpleRecord r : rs) {
                plain.add(new SimpleRecord(RecordBatch.NO_TIMESTAMP, r.key(), r.value()));
            }
            s.append(v(RecordBatch.MAGIC_VALUE_V0, offset, Compression.NONE, plain.toArray(new SimpleRecord[0])));
            offset += n;
        }
        s.close();

        // Appends A1 v1 0-2, A2 v1 3-5, A3 v2 6-8, A4 v1 9-10, indexed by hand through OffsetIndex.append.
        File dir = new File(out, "not-an-append-0");
        dir.mkdirs();
        FileRecords log = FileRecords.open(new File(dir, "00000000000000000000.log"));
        int[] at = new int[4];
        at[0] = log.sizeInBytes();
        log.append(v(v1, 0, Compression.NONE, records(3, "b1")));
        at[1] = log.sizeInBytes();
        log.append(v(v1, 3, Compression.NONE, records(3, "b2")));
        at[2] = log.sizeInBytes();
        log.append(v(RecordBatch.MAGIC_VALUE_V2, 6, Compression.NONE, records(3, "b3")));
        at[3] = log.sizeInBytes();
        log.append(v(v1, 9, Compression.NONE, records(2, "b4")));
        log.close();
        OffsetIndex index = new OffsetIndex(new File(dir, "00000000000000000000.index"), 0L, 4096);
        index.append(4, at[0]);  // past A1, which ends at 2 before the next entry's position
        index.append(5, at[1]);  // A2's last offset at its first position: the old brokers' kind
        index.append(7, at[2]);  // a v2 batch ending at 8
        index.append(8, at[3]);  // below offset 9, A4's first
        index.close();
    }
}
