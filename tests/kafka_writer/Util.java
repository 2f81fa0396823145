import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

/** Small helpers around Kafka's MemoryRecordsBuilder. All inputs are fixed: output is deterministic. */
final class Util {
    static final long T0 = 1_700_000_000_000L; // 2023-11-14T22:13:20Z, fixed base timestamp
    static final Header[] NO_HEADERS = new Header[0];

    static byte[] b(String s) { return s == null ? null : s.getBytes(StandardCharsets.UTF_8); }

    static Header h(String k, String v) { return new RecordHeader(k, b(v)); }
    static Header h(String k, byte[] v) { return new RecordHeader(k, v); }
    static Header[] hs(Header... hs) { return hs; }

    static Compression codec(String name) {
        return Compression.of(CompressionType.forName(name)).build();
    }

    /** One record to append with an explicit offset. */
    static final class Rec {
        final long offset;
        final long timestamp;
        final byte[] key;
        final byte[] value;
        final Header[] headers;
        Rec(long offset, long timestamp, byte[] key, byte[] value, Header[] headers) {
            this.offset = offset; this.timestamp = timestamp; this.key = key; this.value = value;
            this.headers = headers == null ? NO_HEADERS : headers;
        }
    }

    static Rec rec(long offset, long ts, String key, String value, Header... headers) {
        return new Rec(offset, ts, b(key), b(value), headers);
    }

    static Rec rec(long offset, long ts, byte[] key, byte[] value, Header... headers) {
        return new Rec(offset, ts, key, value, headers);
    }

    /** Batch parameters (defaults: plain producer, CreateTime). */
    static final class Spec {
        byte magic = RecordBatch.MAGIC_VALUE_V2;
        String codec = "none";
        TimestampType tsType = TimestampType.CREATE_TIME;
        long logAppendTime = RecordBatch.NO_TIMESTAMP;
        long producerId = RecordBatch.NO_PRODUCER_ID;
        short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        int baseSequence = RecordBatch.NO_SEQUENCE;
        boolean transactional = false;
        int partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;

        Spec magic(int m) { magic = (byte) m; if (m == 0) tsType = TimestampType.CREATE_TIME; return this; }
        Spec codec(String c) { codec = c; return this; }
        Spec logAppendTime(long t) { tsType = TimestampType.LOG_APPEND_TIME; logAppendTime = t; return this; }
        Spec producer(long id, int epoch, int seq) { producerId = id; producerEpoch = (short) epoch; baseSequence = seq; return this; }
        Spec txn() { transactional = true; return this; }
        Spec epoch(int e) { partitionLeaderEpoch = e; return this; }
    }

    static Spec spec() { return new Spec(); }

    /**
     * Build one batch (v2) or, for magic 0/1, one compressed wrapper or a run of uncompressed
     * messages, with Kafka's MemoryRecordsBuilder.
     */
    static MemoryRecords build(Spec s, List<Rec> recs) {
        ByteBuffer buf = ByteBuffer.allocate(1024);
        MemoryRecordsBuilder builder = MemoryRecords.builder(buf, s.magic, codec(s.codec), s.tsType,
            recs.get(0).offset, s.logAppendTime, s.producerId, s.producerEpoch, s.baseSequence,
            s.transactional, s.partitionLeaderEpoch);
        for (Rec r : recs) {
            if (s.magic < RecordBatch.MAGIC_VALUE_V2)
                builder.appendWithOffset(r.offset, r.timestamp, r.key, r.value);
            else
                builder.appendWithOffset(r.offset, r.timestamp, r.key, r.value, r.headers);
        }
        return builder.build();
    }

    static MemoryRecords build(Spec s, Rec... recs) {
        List<Rec> l = new ArrayList<>();
        for (Rec r : recs) l.add(r);
        return build(s, l);
    }

    /** Write the given MemoryRecords one after another with FileRecords.append. */
    static void writeLog(File file, List<MemoryRecords> parts) throws IOException {
        Files.deleteIfExists(file.toPath());
        file.getParentFile().mkdirs();
        try (FileRecords fr = FileRecords.open(file)) {
            for (MemoryRecords m : parts) fr.append(m);
            fr.flush();
        }
    }

    /** Deterministic pseudo-random readable text (compressible, but not trivially). */
    static byte[] text(int n, long seed) {
        String[] words = {"kafka", "log", "segment", "offset", "batch", "record", "broker", "topic",
            "partition", "replica", "leader", "epoch", "producer", "consumer", "index", "time",
            "compaction", "tombstone", "header", "value", "key", "snappy", "gzip", "lz4", "zstd"};
        StringBuilder sb = new StringBuilder(n + 16);
        long x = seed * 6364136223846793005L + 1442695040888963407L;
        while (sb.length() < n) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            int w = (int) ((x >>> 33) % words.length);
            sb.append(words[w]);
            int r = (int) ((x >>> 20) & 0xff);
            if (r < 20) sb.append((r & 0xf));
            sb.append(r < 40 ? ". " : " ");
        }
        return sb.substring(0, n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] repeat(char c, int n) {
        byte[] a = new byte[n];
        java.util.Arrays.fill(a, (byte) c);
        return a;
    }

    static byte[] concat(MemoryRecords... parts) {
        int n = 0;
        for (MemoryRecords m : parts) n += m.sizeInBytes();
        ByteBuffer out = ByteBuffer.allocate(n);
        for (MemoryRecords m : parts) out.put(m.buffer().duplicate());
        return out.array();
    }
}
