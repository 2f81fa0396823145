import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.CompressionRatioEstimator;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.CloseableIterator;
import org.apache.kafka.common.utils.Utils;

/**
 * A large partition directory for benchmarks: OUTDIR/TOPIC-0 with N v2 records from one idempotent
 * producer, written batch by batch (streamed: one batch in memory at a time) through PartitionWriter,
 * i.e. with Kafka's LogSegment rules for segments, .index and .timeindex (index.interval.bytes 4096 and
 * segment.index.bytes 10 MiB, Kafka's defaults).
 *
 * Batches hold --batch-size records each (default 100), or, with --batch-bytes B, are filled the way
 * Kafka's producer fills a batch of batch.size B (RecordAccumulator / ProducerBatch in Kafka 3.9): a
 * MemoryRecordsBuilder whose write limit is B, appended to while hasRoomFor() says so (the first record
 * always fits), with the topic's CompressionRatioEstimator estimate set before and updated after each batch.
 * Values are --value-bytes MIN[:MAX] long (default 100), records carry --headers MIN[:MAX] headers (default 1);
 * both vary deterministically with the offset.
 * With --producers P (default 1), batch i is written by idempotent producer (i mod P): its id 1 + (i mod P), its
 * epoch (i mod P) mod 3, its own sequence, as a partition written by several producers at once holds them.
 * With --transactional T, the producers are transactional: each ends a transaction after T of its batches with
 * the marker the transaction coordinator has the leader write (MemoryRecords.withEndTransactionMarker, as
 * Partition.appendRecordsToLeader gets it: its own control batch of one record, uncompressed, at the next
 * offset), every third one an ABORT, the others COMMIT; their open transactions are committed at the end.
 */
final class Corpus {
    static int[] range(String s) {
        String[] p = s.split(":");
        int lo = Integer.parseInt(p[0]), hi = p.length > 1 ? Integer.parseInt(p[1]) : lo;
        if (lo < 0 || hi < lo) throw new IllegalArgumentException("bad range " + s);
        return new int[] {lo, hi};
    }

    static void main(File out, String[] args) throws IOException {
        long records = -1;
        String codec = "none", topic = "corpus";
        int batchSize = 100, batchBytes = -1, producers = 1, transactional = 0;
        int[] valueBytes = {100, 100}, headerCount = {1, 1};
        long segmentBytes = 1L << 30;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--records": records = Long.parseLong(args[++i]); break;
                case "--codec": codec = args[++i]; break;
                case "--batch-size": batchSize = Integer.parseInt(args[++i]); break;
                case "--batch-bytes": batchBytes = Integer.parseInt(args[++i]); break;
                case "--value-bytes": valueBytes = range(args[++i]); break;
                case "--headers": headerCount = range(args[++i]); break;
                case "--segment-bytes": segmentBytes = Long.parseLong(args[++i]); break;
                case "--topic": topic = args[++i]; break;
                case "--producers": producers = Integer.parseInt(args[++i]); break;
                case "--transactional": transactional = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (records < 0) throw new IllegalArgumentException("--records N is required");
        if (producers < 1) throw new IllegalArgumentException("--producers must be at least 1");
        if (segmentBytes > Integer.MAX_VALUE) segmentBytes = Integer.MAX_VALUE;
        long start = System.nanoTime();
        byte[] pool = Util.text(1 << 16, 42);
        Compression compression = Util.codec(codec);
        CompressionRatioEstimator.resetEstimation(topic);
        File dir = new File(out, topic + "-0");
        try (PartitionWriter w = new PartitionWriter(dir, (int) segmentBytes, 4096, 10 * 1024 * 1024)) {
            w.keepIndexEntries = false;
            long n = 0;
            int[] seqs = new int[producers];
            int[] open = new int[producers];  // batches of each producer's open transaction
            long batch = 0, markers = 0;
            while (n < records) {
                int p = (int) (batch++ % producers);
                int seq = seqs[p];
                int limit = batchBytes > 0 ? batchBytes : Math.max(1024, batchSize * (valueBytes[1] + 60 * headerCount[1] + 60));
                MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(limit),
                    RecordBatch.CURRENT_MAGIC_VALUE, compression, TimestampType.CREATE_TIME, n, RecordBatch.NO_TIMESTAMP,
                    1L + p, (short) (p % 3), seq, transactional > 0, 0);
                if (batchBytes > 0)
                    b.setEstimatedCompressionRatio(CompressionRatioEstimator.estimation(topic, compression.type()));
                int k = 0;
                while (n + k < records && (batchBytes > 0 || k < batchSize)) {
                    long o = n + k;
                    byte[] key = ("key-" + (o % 100_000)).getBytes(StandardCharsets.US_ASCII);
                    byte[] value = value(pool, o, valueBytes);
                    Header[] headers = headers(o, headerCount);
                    if (batchBytes > 0 && !b.hasRoomFor(Util.T0 + o, key, value, headers)) break;
                    b.appendWithOffset(o, Util.T0 + o, key, value, headers);
                    k++;
                }
                MemoryRecords built = b.build();
                if (batchBytes > 0)
                    CompressionRatioEstimator.updateEstimation(topic, compression.type(), (float) b.compressionRatio());
                w.append(built);
                n += k;
                seq += k;
                if (seq < 0) seq = 0; // wraps like DefaultRecordBatch.incrementSequence
                seqs[p] = seq;
                if (transactional > 0 && ++open[p] == transactional) {
                    w.append(marker(n, p, markers++ % 3 == 2 ? ControlRecordType.ABORT : ControlRecordType.COMMIT));
                    n++;
                    open[p] = 0;
                }
            }
            for (int p = 0; p < producers; p++)
                if (open[p] > 0) w.append(marker(n++, p, ControlRecordType.COMMIT));
            System.err.printf("wrote %d records in %d segment(s) to %s in %.1f s%n", n, w.segments.size(), dir,
                (System.nanoTime() - start) / 1e9);
        }
    }

    /** Producer p's end-of-transaction marker at `offset` (coordinator epoch 0). */
    static MemoryRecords marker(long offset, int p, ControlRecordType type) {
        return MemoryRecords.withEndTransactionMarker(offset, Util.T0 + offset, 0, 1L + p, (short) (p % 3),
            new EndTransactionMarker(type, 0));
    }

    /** "record N: " and text from the pool, MIN..MAX bytes (MIN for the default 100:100, as before). */
    static byte[] value(byte[] pool, long o, int[] size) {
        int len = size[0] + (int) ((o * 7907) % (size[1] - size[0] + 1));
        byte[] value = new byte[len];
        byte[] prefix = ("record " + o + ": ").getBytes(StandardCharsets.US_ASCII);
        int p = Math.min(prefix.length, len);
        System.arraycopy(prefix, 0, value, 0, p);
        int from = (int) ((o * 7919) % (pool.length - len));
        System.arraycopy(pool, from, value, p, len - p);
        return value;
    }

    static final Header SOURCE = Util.h("source", "kafkalog-corpus");

    /** source=kafkalog-corpus, then trace-id=<16 hex digits>, then more trace ids. */
    static Header[] headers(long o, int[] count) {
        int n = count[0] + (int) (o % (count[1] - count[0] + 1));
        Header[] hs = new Header[n];
        for (int i = 0; i < n; i++)
            hs[i] = i == 0 ? SOURCE : Util.h("trace-id", String.format("%016x", (o + i) * 0x9E3779B97F4A7C15L));
        return hs;
    }

    /**
     * Kafka's own reader, warm, for benchmarks: reads the files `repeat` times (FileRecords batches,
     * ensureValid() for the CRC, streamingIterator records with offset, timestamp, key, value and header
     * values copied to byte arrays, as a consumer's ByteArrayDeserializer does), then prints
     * {"records":N,"wall":S,"cpu":S} for the fastest pass.
     */
    static void readSpeed(String[] args) throws IOException {
        int repeat = 5;
        java.util.List<File> files = new java.util.ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--repeat")) repeat = Integer.parseInt(args[++i]);
            else files.add(new File(args[i]));
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        BufferSupplier buffers = BufferSupplier.create();
        long bestWall = Long.MAX_VALUE, bestCpu = 0, records = 0, sink = 0;
        for (int pass = 0; pass < repeat; pass++) {
            long wall = System.nanoTime(), cpu = mx.getCurrentThreadCpuTime();
            records = 0;
            for (File file : files) {
                try (FileRecords fr = FileRecords.open(file, false)) {
                    for (FileChannelRecordBatch b : fr.batches()) {
                        b.ensureValid();
                        try (CloseableIterator<Record> it = b.streamingIterator(buffers)) {
                            while (it.hasNext()) {
                                Record r = it.next();
                                byte[] key = r.hasKey() ? Utils.toArray(r.key()) : null;
                                byte[] value = r.hasValue() ? Utils.toArray(r.value()) : null;
                                sink += r.offset() + r.timestamp() + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
                                for (Header h : r.headers()) sink += h.key().length() + (h.value() == null ? 0 : h.value().length);
                                records++;
                            }
                        }
                    }
                }
            }
            wall = System.nanoTime() - wall;
            cpu = mx.getCurrentThreadCpuTime() - cpu;
            if (wall < bestWall) { bestWall = wall; bestCpu = cpu; }
        }
        System.out.println(Json.obj().put("records", records).raw("wall", Double.toString(bestWall / 1e9))
            .raw("cpu", Double.toString(bestCpu / 1e9)).put("repeat", (long) repeat).put("sink", sink).end());
    }
}
