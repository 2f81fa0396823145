import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

/**
 * A large partition directory for benchmarks: OUTDIR/TOPIC-0 with N v2 records from one idempotent
 * producer, written batch by batch (streamed: one batch in memory at a time) through PartitionWriter,
 * i.e. with Kafka's LogSegment rules for segments, .index and .timeindex (index.interval.bytes 4096 and
 * segment.index.bytes 10 MiB, Kafka's defaults).
 */
final class Corpus {
    static void main(File out, String[] args) throws IOException {
        long records = -1;
        String codec = "none", topic = "corpus";
        int batchSize = 100;
        long segmentBytes = 1L << 30;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--records": records = Long.parseLong(args[++i]); break;
                case "--codec": codec = args[++i]; break;
                case "--batch-size": batchSize = Integer.parseInt(args[++i]); break;
                case "--segment-bytes": segmentBytes = Long.parseLong(args[++i]); break;
                case "--topic": topic = args[++i]; break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (records < 0) throw new IllegalArgumentException("--records N is required");
        if (segmentBytes > Integer.MAX_VALUE) segmentBytes = Integer.MAX_VALUE;
        long start = System.nanoTime();
        byte[] pool = Util.text(1 << 16, 42);
        Header[] headers = {Util.h("source", "kafkalog-corpus")};
        File dir = new File(out, topic + "-0");
        try (PartitionWriter w = new PartitionWriter(dir, (int) segmentBytes, 4096, 10 * 1024 * 1024)) {
            w.keepIndexEntries = false;
            long n = 0;
            int seq = 0;
            while (n < records) {
                int k = (int) Math.min(batchSize, records - n);
                MemoryRecordsBuilder b = MemoryRecords.builder(java.nio.ByteBuffer.allocate(Math.max(1024, k * 160)),
                    RecordBatch.CURRENT_MAGIC_VALUE, Util.codec(codec), TimestampType.CREATE_TIME, n, RecordBatch.NO_TIMESTAMP,
                    1L, (short) 0, seq, false, 0);
                for (int j = 0; j < k; j++) {
                    long o = n + j;
                    byte[] key = ("key-" + (o % 100_000)).getBytes(StandardCharsets.US_ASCII);
                    byte[] value = new byte[100];
                    byte[] prefix = ("record " + o + ": ").getBytes(StandardCharsets.US_ASCII);
                    System.arraycopy(prefix, 0, value, 0, prefix.length);
                    int from = (int) ((o * 7919) % (pool.length - 100));
                    System.arraycopy(pool, from, value, prefix.length, 100 - prefix.length);
                    b.appendWithOffset(o, Util.T0 + o, key, value, headers);
                }
                w.append(b.build());
                n += k;
                seq += k;
                if (seq < 0) seq = 0; // wraps like DefaultRecordBatch.incrementSequence
            }
            System.err.printf("wrote %d records in %d segment(s) to %s in %.1f s%n", n, w.segments.size(), dir,
                (System.nanoTime() - start) / 1e9);
        }
    }
}
