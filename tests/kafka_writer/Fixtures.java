import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.Function;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.KRaftVersionRecord;
import org.apache.kafka.common.message.LeaderChangeMessage;
import org.apache.kafka.common.message.SnapshotFooterRecord;
import org.apache.kafka.common.message.SnapshotHeaderRecord;
import org.apache.kafka.common.message.VotersRecord;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecords.RecordFilter;
import org.apache.kafka.common.record.MemoryRecords.RecordFilter.BatchRetention;
import org.apache.kafka.common.record.MemoryRecords.RecordFilter.BatchRetentionResult;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.Crc32C;

/**
 * Writes tests/fixtures/segments: .log files written by Kafka's own encoder
 * (MemoryRecordsBuilder, MemoryRecords.with*, MemoryRecords.filterTo, FileRecords.append), each
 * with Kafka's reading of it (RefReader) in NAME.kafka.jsonl, plus damaged copies made by
 * editing bytes of those files.
 */
final class Fixtures {
    private final File dir;
    private final List<String> index = new ArrayList<>();

    Fixtures(File outDir) {
        this.dir = new File(outDir, "segments");
    }

    static final String[][] CODECS = {
        {"none", "gzip", "snappy", "lz4"},           // magic 0
        {"none", "gzip", "snappy", "lz4"},           // magic 1
        {"none", "gzip", "snappy", "lz4", "zstd"},   // magic 2
    };

    // ------------------------------------------------------------------ output helpers

    private File add(String name, String description, List<MemoryRecords> parts) throws IOException {
        File f = new File(dir, name + ".log");
        Util.writeLog(f, parts);
        finish(name, description, false);
        return f;
    }

    private File addRaw(String name, String description, boolean damaged, byte[] bytes) throws IOException {
        dir.mkdirs();
        File f = new File(dir, name + ".log");
        Files.write(f.toPath(), bytes);
        finish(name, description, damaged);
        return f;
    }

    private void finish(String name, String description, boolean damaged) throws IOException {
        File f = new File(dir, name + ".log");
        List<String> lines = RefReader.read(f);
        Files.write(new File(dir, name + ".kafka.jsonl").toPath(), (String.join("\n", lines) + "\n").getBytes(UTF_8));
        index.add(Json.obj().put("name", name).put("description", description).put("damaged", damaged).end());
    }

    private void writeIndex() throws IOException {
        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < index.size(); i++) {
            sb.append("  ").append(index.get(i));
            sb.append(i + 1 < index.size() ? ",\n" : "\n");
        }
        sb.append("]\n");
        Files.write(new File(dir, "index.json").toPath(), sb.toString().getBytes(UTF_8));
    }

    static List<MemoryRecords> list1(MemoryRecords m) {
        return new ArrayList<>(Arrays.asList(m));
    }

    private static List<MemoryRecords> list(MemoryRecords... m) {
        return new ArrayList<>(Arrays.asList(m));
    }

    private byte[] bytes(String name) throws IOException {
        return Files.readAllBytes(new File(dir, name + ".log").toPath());
    }

    /** [position, size, magic] of each entry, as Kafka's FileRecords sees them. */
    private static List<int[]> entries(byte[] data) throws IOException {
        File tmp = File.createTempFile("kafka-writer", ".log");
        try {
            Files.write(tmp.toPath(), data);
            List<int[]> out = new ArrayList<>();
            try (FileRecords fr = FileRecords.open(tmp, false)) {
                for (FileChannelRecordBatch b : fr.batches())
                    out.add(new int[] {b.position(), b.sizeInBytes(), b.magic()});
            }
            return out;
        } finally {
            tmp.delete();
        }
    }

    private static int indexOf(byte[] data, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= data.length; i++) {
            for (int j = 0; j < needle.length; j++)
                if (data[i + j] != needle[j]) continue outer;
            return i;
        }
        throw new IllegalStateException("pattern not found");
    }

    // ------------------------------------------------------------------ record sets

    /** The standard record set of the codec matrix: 3 batches/wrappers, several records each. */
    static List<MemoryRecords> codecFile(int magic, String codec) {
        Util.Spec s = Util.spec().magic(magic).codec(codec).epoch(magic == 2 ? 4 : -1);
        long t = magic == 0 ? RecordBatch.NO_TIMESTAMP : Util.T0;
        long d = magic == 0 ? 0 : 1;
        List<MemoryRecords> out = new ArrayList<>();
        out.add(Util.build(s,
            Util.rec(0, t, "key-0", "value zero", Util.h("trace-id", "abc123")),
            Util.rec(1, t + d * 10, (String) null, "value with a null key"),
            Util.rec(2, t + d * 20, "key-2", (String) null),
            Util.rec(3, t + d * 30, "", "value with an empty key"),
            Util.rec(4, t + d * 40, "key-4", "")));
        out.add(Util.build(s,
            Util.rec(5, t + d * 1000, Util.text(100, 5), Util.text(largeValueSize(codec), 1)),
            Util.rec(6, t + d * 1001, "key-6", "after the large value")));
        out.add(Util.build(s,
            Util.rec(7, t + d * 2000, Util.text(100, 7), Util.text(8200, 8),
                Util.h("a", "1"), Util.h("null-value", (byte[]) null), Util.h("empty", new byte[0]),
                Util.h("cl\u00e9-\u00fc", "non-ascii key"), Util.h("\u65e5\u672c", "\u65e5\u672c\u8a9e")),
            Util.rec(8, t + d * 1500, (String) null, (String) null),
            Util.rec(9, t + d * 2500, "key-9", "last record")));
        return out;
    }

    /** 66000 bytes spans 3 snappy-java blocks (32 KiB) and 2 LZ4 blocks (64 KiB); smaller elsewhere to keep fixtures small. */
    static int largeValueSize(String codec) {
        switch (codec) {
            case "snappy": case "lz4": return 66_000;
            case "gzip": case "zstd": return 40_000;
            default: return 9000;
        }
    }

    // ------------------------------------------------------------------ compaction

    static MemoryRecords filter(MemoryRecords in, long now, long deleteRetentionMs,
                                Function<RecordBatch, BatchRetentionResult> retention,
                                BiPredicate<RecordBatch, Record> keep) {
        RecordFilter f = new RecordFilter(now, deleteRetentionMs) {
            @Override
            protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
                return retention.apply(batch);
            }

            @Override
            protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
                return keep.test(batch, record);
            }
        };
        ByteBuffer out = ByteBuffer.allocate(in.sizeInBytes() + 1024);
        MemoryRecords.FilterResult r = in.filterTo(new TopicPartition("fixtures", 0), f, out,
            Integer.MAX_VALUE, BufferSupplier.NO_CACHING);
        ByteBuffer ob = r.outputBuffer();
        ob.flip();
        return MemoryRecords.readableRecords(ob.slice());
    }

    /** A key-based "keep the latest value of each key" predicate, like the log cleaner's offset map. */
    static BiPredicate<RecordBatch, Record> latestPerKey(MemoryRecords in) {
        Map<ByteBuffer, Long> latest = new HashMap<>();
        for (MutableRecordBatch b : in.batches())
            for (Record r : b)
                if (r.key() != null) latest.put(r.key(), r.offset());
        return (b, r) -> r.key() == null || latest.get(r.key()) == r.offset();
    }

    static BatchRetentionResult result(BatchRetention r, boolean emptyTxnMarker) {
        return new BatchRetentionResult(r, emptyTxnMarker);
    }

    static MemoryRecords concat(List<MemoryRecords> parts) {
        return MemoryRecords.readableRecords(ByteBuffer.wrap(Util.concat(parts.toArray(new MemoryRecords[0]))));
    }

    static MemoryRecords keyedWrapper(Util.Spec s, long base, int n, int keys, long t) {
        List<Util.Rec> recs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long o = base + i;
            recs.add(Util.rec(o, t < 0 ? t : t + o, "user-" + (o % keys), "state " + o + " of user-" + (o % keys)));
        }
        return Util.build(s, recs);
    }

    // ------------------------------------------------------------------ the fixtures

    void writeAll() throws IOException {
        dir.mkdirs();
        for (File f : dir.listFiles()) f.delete();

        // every magic with every codec it allows
        for (int magic = 0; magic <= 2; magic++)
            for (String codec : CODECS[magic])
                add("v" + magic + "-" + codec,
                    "magic " + magic + ", " + codec + ": 3 " + (magic == 2 ? "batches" : codec.equals("none") ? "runs of messages" : "wrappers")
                        + "; null/empty keys and values, a value > 8191 bytes" + (codec.equals("none") ? "" : ", a " + largeValueSize(codec) + "-byte value" + (codec.equals("snappy") || codec.equals("lz4") ? " (several compression blocks)" : ""))
                        + (magic == 2 ? ", headers (null value, non-ASCII keys)" : ""),
                    codecFile(magic, codec));

        timestamps();
        offsetsAndLengths();
        producers();
        transactions();
        kraftControl();
        compaction();
        mixed();
        damaged();
        addRaw("empty", "an empty file (0 bytes)", false, new byte[0]);
        writeIndex();
    }

    private void timestamps() throws IOException {
        // v1 CreateTime / LogAppendTime, uncompressed messages and compressed wrappers
        Util.Spec ct = Util.spec().magic(1);
        Util.Spec lat = Util.spec().magic(1).logAppendTime(Util.T0 + 999_999);
        add("v1-timestamps",
            "magic 1: CreateTime messages, a CreateTime gzip wrapper, LogAppendTime messages and a LogAppendTime "
                + "gzip wrapper (inner messages take the wrapper's timestamp)",
            list(
                Util.build(ct, Util.rec(0, Util.T0, "a", "create time 1"), Util.rec(1, Util.T0 - 5000, "b", "create time 2 (older)")),
                Util.build(Util.spec().magic(1).codec("gzip"),
                    Util.rec(2, Util.T0 + 10, "c", "wrapped create time"), Util.rec(3, Util.T0 + 5, "d", "wrapped create time, smaller")),
                Util.build(lat, Util.rec(4, Util.T0 + 1, "e", "log append time message"), Util.rec(5, Util.T0 + 2, "f", "log append time message 2")),
                Util.build(Util.spec().magic(1).codec("gzip").logAppendTime(Util.T0 + 888_888),
                    Util.rec(6, Util.T0 + 100, "g", "inner create time replaced by the wrapper's"),
                    Util.rec(7, Util.T0 + 200, "h", "same"),
                    Util.rec(8, Util.T0 + 300, "i", "same again")),
                Util.build(Util.spec().magic(1).codec("snappy").logAppendTime(Util.T0 + 777_777),
                    Util.rec(9, Util.T0 + 400, "j", "snappy wrapper with log append time")),
                Util.build(Util.spec().magic(1), Util.rec(10, -1, "k", "v1 message without a timestamp (-1)"))));

        add("v0-timestamps", "magic 0: no timestamps (-1, NoTimestampType), uncompressed and a gzip wrapper",
            list(
                Util.build(Util.spec().magic(0), Util.rec(0, -1, "a", "v0 message"), Util.rec(1, -1, "b", "another")),
                Util.build(Util.spec().magic(0).codec("gzip"), Util.rec(2, -1, "c", "wrapped v0"), Util.rec(3, -1, "d", "wrapped v0 too"))));

        // v2 LogAppendTime
        add("v2-log-append-time", "magic 2 LogAppendTime batches (none, lz4): records report the batch max timestamp",
            list(
                Util.build(Util.spec().logAppendTime(Util.T0 + 12345).epoch(1),
                    Util.rec(0, Util.T0, "a", "create time overridden"), Util.rec(1, Util.T0 - 100000, "b", "also overridden")),
                Util.build(Util.spec().codec("lz4").logAppendTime(Util.T0 + 22345).epoch(1),
                    Util.rec(2, Util.T0, "c", "lz4 with log append time"), Util.rec(3, Util.T0 + 1, "d", "x"))));

        // the full varlong range of timestamp deltas
        long half = Long.MAX_VALUE / 2;
        add("v2-timestamp-deltas",
            "magic 2 timestamps across the varlong range: first timestamp Long.MAX_VALUE/2 then 0 (delta -2^62+1), "
                + "then Long.MAX_VALUE; a batch starting at 0 with a delta of Long.MAX_VALUE; small negative deltas",
            list(
                Util.build(Util.spec(), Util.rec(0, half, "a", "max/2"), Util.rec(1, 0, "b", "zero"), Util.rec(2, Long.MAX_VALUE, "c", "max")),
                Util.build(Util.spec().codec("zstd"), Util.rec(3, 0, "d", "zero"), Util.rec(4, Long.MAX_VALUE, "e", "max"), Util.rec(5, 1, "f", "one")),
                Util.build(Util.spec(), Util.rec(6, Util.T0, "g", "t0"), Util.rec(7, Util.T0 - 1, "h", "t0-1"),
                    Util.rec(8, Util.T0 - 64, "i", "t0-64"), Util.rec(9, Util.T0 + 8192, "j", "t0+8192"),
                    Util.rec(10, Util.T0 - 1_000_000_000_000L, "k", "t0-1e12"))));
    }

    private void offsetsAndLengths() throws IOException {
        long big = 5_000_000_000L;
        long huge = Long.MAX_VALUE / 2;
        add("v2-large-offsets",
            "magic 2 base offsets above 2^32 (5e9) and Long.MAX_VALUE/2, partition leader epochs 0, 7 and Integer.MAX_VALUE",
            list(
                Util.build(Util.spec().epoch(0), Util.rec(big, Util.T0, "a", "offset 5e9"), Util.rec(big + 1, Util.T0 + 1, "b", "5e9+1")),
                Util.build(Util.spec().codec("gzip").epoch(7), Util.rec(big + 2, Util.T0 + 2, "c", "gzip"), Util.rec(big + 3, Util.T0 + 3, "d", "gzip 2")),
                Util.build(Util.spec().epoch(Integer.MAX_VALUE), Util.rec(huge, Util.T0 + 4, "e", "offset max/2"), Util.rec(huge + 1, Util.T0 + 5, "f", "max/2+1"))));

        // offset deltas > 127: 300 records in one batch, and a batch with sparse offsets
        List<Util.Rec> many = new ArrayList<>();
        for (int i = 0; i < 300; i++) many.add(Util.rec(i, Util.T0 + i * 7L, "k" + i, "v" + i));
        List<Util.Rec> manyLz4 = new ArrayList<>();
        for (int i = 300; i < 600; i++) manyLz4.add(Util.rec(i, Util.T0 + i * 7L, "k" + i, "v" + i));
        add("v2-offset-deltas",
            "magic 2: 300-record batches (none, lz4: offset deltas > 127 need 2-byte varints) and a batch with "
                + "offset deltas 0, 200, 70000 (3-byte varint)",
            list(Util.build(Util.spec(), many), Util.build(Util.spec().codec("lz4"), manyLz4),
                Util.build(Util.spec(), Util.rec(600, Util.T0, "x", "delta 0"), Util.rec(800, Util.T0, "y", "delta 200"),
                    Util.rec(70600, Util.T0, "z", "delta 70000"))));

        add("v2-long-keys-values",
            "magic 2 key/value lengths 63, 64, 8191, 8192, 70000 (1-, 2-, 3-byte zigzag varints); uncompressed and snappy",
            list(
                Util.build(Util.spec(),
                    Util.rec(0, Util.T0, Util.repeat('a', 63), Util.repeat('b', 63)),
                    Util.rec(1, Util.T0, Util.repeat('c', 64), Util.repeat('d', 64)),
                    Util.rec(2, Util.T0, Util.repeat('e', 8191), Util.repeat('f', 8191)),
                    Util.rec(3, Util.T0, Util.repeat('g', 8192), Util.repeat('h', 8192))),
                Util.build(Util.spec().codec("snappy"),
                    Util.rec(4, Util.T0, Util.text(64, 3), Util.text(70000, 4),
                        Util.h("long-header", Util.text(8192, 9))))));

        List<MemoryRecords> hdr = new ArrayList<>();
        hdr.add(Util.build(Util.spec(),
            Util.rec(0, Util.T0, "no-headers", "none"),
            Util.rec(1, Util.T0, "one", "1", Util.h("content-type", "text/plain")),
            Util.rec(2, Util.T0, "several", "5",
                Util.h("a", "1"), Util.h("b", "2"), Util.h("a", "duplicate key"), Util.h("", "empty key"), Util.h("z", "26")),
            Util.rec(3, Util.T0, "null-value", "x", Util.h("tombstone-header", (byte[]) null)),
            Util.rec(4, Util.T0, "empty-value", "x", Util.h("empty", new byte[0])),
            Util.rec(5, Util.T0, "non-ascii", "x", Util.h("\u00e9t\u00e9", "summer"), Util.h("\u65e5\u672c\u8a9e", "\u3053\u3093\u306b\u3061\u306f"),
                Util.h("emoji-\ud83d\ude00", "\ud83d\ude00"))));
        hdr.add(Util.build(Util.spec().codec("gzip"),
            Util.rec(6, Util.T0, "gzip", "x", Util.h("k1", "v1"), Util.h("k2", (byte[]) null))));
        add("v2-headers", "magic 2 headers: none, one, several with a duplicate and an empty key, null and empty values, "
            + "non-ASCII keys (UTF-8, one outside the BMP)", hdr);
    }

    private void producers() throws IOException {
        long pid = 424242L;
        add("v2-idempotent",
            "magic 2 idempotent producer 424242 epoch 3: sequences 0-4, 5-9 (gzip), then a batch with base sequence "
                + "Integer.MAX_VALUE-2 whose last sequence wraps to 1; another producer at epoch 0",
            list(
                keyed(Util.spec().producer(pid, 3, 0).epoch(2), 0, 5),
                keyed(Util.spec().codec("gzip").producer(pid, 3, 5).epoch(2), 5, 5),
                keyed(Util.spec().producer(pid, 3, Integer.MAX_VALUE - 2).epoch(2), 10, 5),
                keyed(Util.spec().codec("zstd").producer(77L, 0, 0).epoch(2), 15, 3)));
    }

    private static MemoryRecords keyed(Util.Spec s, long base, int n) {
        List<Util.Rec> recs = new ArrayList<>();
        for (int i = 0; i < n; i++)
            recs.add(Util.rec(base + i, Util.T0 + base + i, "key-" + (base + i), "value " + (base + i)));
        return Util.build(s, recs);
    }

    private static MemoryRecords marker(long offset, long ts, int ple, long pid, int epoch, ControlRecordType type, int coordinatorEpoch) {
        return MemoryRecords.withEndTransactionMarker(offset, ts, ple, pid, (short) epoch,
            new EndTransactionMarker(type, coordinatorEpoch));
    }

    static List<MemoryRecords> transactionParts() {
        long p1 = 9001L, p2 = 9002L;
        List<MemoryRecords> l = new ArrayList<>();
        l.add(keyed(Util.spec().producer(p1, 1, 0).txn().epoch(5), 0, 3));          // txn 1 of p1: 0-2
        l.add(keyed(Util.spec().codec("lz4").producer(p2, 0, 0).txn().epoch(5), 3, 2));  // txn of p2: 3-4
        l.add(keyed(Util.spec().epoch(5), 5, 2));                                       // non-transactional 5-6
        l.add(marker(7, Util.T0 + 7, 5, p1, 1, ControlRecordType.COMMIT, 11));         // commit p1
        l.add(keyed(Util.spec().producer(p1, 1, 3).txn().epoch(5), 8, 3));            // txn 2 of p1: 8-10
        l.add(marker(11, Util.T0 + 11, 5, p2, 0, ControlRecordType.COMMIT, 11));       // commit p2
        l.add(marker(12, Util.T0 + 12, 5, p1, 1, ControlRecordType.ABORT, 11));        // abort p1 txn 2
        l.add(keyed(Util.spec().codec("zstd").producer(p1, 2, 0).txn().epoch(6), 13, 2)); // new epoch 13-14
        l.add(marker(15, Util.T0 + 15, 6, p1, 2, ControlRecordType.COMMIT, 12));
        return l;
    }

    private void transactions() throws IOException {
        add("v2-transactions",
            "magic 2 transactions: producers 9001 and 9002 interleaved, COMMIT and ABORT markers "
                + "(MemoryRecords.withEndTransactionMarker), aborted data at offsets 8-10, an epoch bump",
            transactionParts());
    }

    private void kraftControl() throws IOException {
        Uuid dir1 = new Uuid(0x0102030405060708L, 0x1112131415161718L);
        Uuid dir2 = new Uuid(0x2122232425262728L, 0x3132333435363738L);
        List<MemoryRecords> l = new ArrayList<>();
        l.add(MemoryRecords.withSnapshotHeaderRecord(0, Util.T0, 3, ByteBuffer.allocate(512),
            new SnapshotHeaderRecord().setVersion((short) 0).setLastContainedLogTimestamp(Util.T0 - 1)));
        l.add(MemoryRecords.withKRaftVersionRecord(1, Util.T0, 3, ByteBuffer.allocate(512),
            new KRaftVersionRecord().setVersion((short) 0).setKRaftVersion((short) 1)));
        VotersRecord.EndpointCollection eps = new VotersRecord.EndpointCollection();
        eps.add(new VotersRecord.Endpoint().setName("CONTROLLER").setHost("controller-1.example").setPort(9093));
        VotersRecord.EndpointCollection eps2 = new VotersRecord.EndpointCollection();
        eps2.add(new VotersRecord.Endpoint().setName("CONTROLLER").setHost("controller-2.example").setPort(9093));
        l.add(MemoryRecords.withVotersRecord(2, Util.T0, 3, ByteBuffer.allocate(512),
            new VotersRecord().setVersion((short) 0).setVoters(Arrays.asList(
                new VotersRecord.Voter().setVoterId(1).setVoterDirectoryId(dir1).setEndpoints(eps)
                    .setKRaftVersionFeature(new VotersRecord.KRaftVersionFeature().setMinSupportedVersion((short) 0).setMaxSupportedVersion((short) 1)),
                new VotersRecord.Voter().setVoterId(2).setVoterDirectoryId(dir2).setEndpoints(eps2)
                    .setKRaftVersionFeature(new VotersRecord.KRaftVersionFeature().setMinSupportedVersion((short) 0).setMaxSupportedVersion((short) 1))))));
        l.add(keyed(Util.spec().epoch(3), 3, 2));
        l.add(MemoryRecords.withLeaderChangeMessage(5, Util.T0 + 5, 4, ByteBuffer.allocate(512),
            new LeaderChangeMessage().setLeaderId(2)
                .setVoters(Arrays.asList(new LeaderChangeMessage.Voter().setVoterId(1), new LeaderChangeMessage.Voter().setVoterId(2)))
                .setGrantingVoters(Arrays.asList(new LeaderChangeMessage.Voter().setVoterId(2)))));
        l.add(MemoryRecords.withSnapshotFooterRecord(6, Util.T0 + 6, 4, ByteBuffer.allocate(512),
            new SnapshotFooterRecord().setVersion((short) 0)));
        add("v2-kraft-control",
            "magic 2 KRaft control batches: SNAPSHOT_HEADER, KRAFT_VERSION, KRAFT_VOTERS, data, LEADER_CHANGE, SNAPSHOT_FOOTER",
            l);
    }

    private void compaction() throws IOException {
        BatchRetentionResult deleteEmpty = result(BatchRetention.DELETE_EMPTY, false);

        // (a) v2: superseded keys removed -> offset gaps; a fully superseded batch is deleted
        MemoryRecords srcA = concat(list(
            withKeys(Util.spec().epoch(1), 0, Util.T0, "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9"),
            withKeys(Util.spec().codec("gzip").epoch(1), 10, Util.T0, "u1", "u3", "u5", "u10", "u11", "u12"),
            withKeys(Util.spec().codec("zstd").epoch(1), 16, Util.T0, "u13", "u14"),
            withKeys(Util.spec().codec("lz4").epoch(1), 18, Util.T0, "u0", "u13", "u14", "u2", "u15", "u10"),
            withKeys(Util.spec().codec("snappy").epoch(2), 24, Util.T0, "u16", "u17", "u5", "u18")));
        add("v2-compacted-gaps",
            "magic 2 compacted with MemoryRecords.filterTo (latest value per key): offset gaps inside none/gzip/snappy batches, "
                + "a fully superseded zstd batch dropped, an lz4 batch kept whole",
            list(filter(srcA, Util.T0 + 100_000, 86_400_000L, b -> deleteEmpty, latestPerKey(srcA))));

        // (b) an idempotent batch whose records are all superseded, retained empty for producer state
        MemoryRecords srcB = concat(list(
            keyedWrapper(Util.spec().producer(555L, 2, 0).epoch(1), 0, 4, 4, Util.T0),
            keyedWrapper(Util.spec().producer(555L, 2, 4).codec("snappy").epoch(1), 4, 4, 4, Util.T0),
            keyedWrapper(Util.spec().producer(666L, 0, 0).epoch(1), 8, 2, 2, Util.T0)));
        add("v2-compacted-retain-empty",
            "magic 2 compacted: a batch of producer 555 whose records were all removed, kept empty (BatchRetention.RETAIN_EMPTY, count 0)",
            list(filter(srcB, Util.T0 + 100_000, 86_400_000L,
                b -> result(b.hasProducerId() ? BatchRetention.RETAIN_EMPTY : BatchRetention.DELETE_EMPTY, false),
                latestPerKey(srcB))));

        // (c) tombstones and a marker of an emptied aborted transaction -> delete horizon set
        List<MemoryRecords> c = new ArrayList<>();
        c.add(keyedWrapper(Util.spec().epoch(1), 0, 4, 4, Util.T0));
        c.add(Util.build(Util.spec().codec("gzip").epoch(1),
            Util.rec(4, Util.T0 + 4, "user-1", null), Util.rec(5, Util.T0 + 5, "user-2", (String) null),
            Util.rec(6, Util.T0 + 6, "user-3", "alive")));
        c.add(keyed(Util.spec().producer(888L, 0, 0).txn().epoch(1), 7, 2));
        c.add(marker(9, Util.T0 + 9, 1, 888L, 0, ControlRecordType.ABORT, 3));
        c.add(Util.build(Util.spec().epoch(1), Util.rec(10, Util.T0 + 10, "user-0", null)));
        MemoryRecords srcC = concat(c);
        BiPredicate<RecordBatch, Record> latestC = latestPerKey(srcC);
        long now = Util.T0 + 3_600_000L;
        MemoryRecords pass1 = filter(srcC, now, 86_400_000L,
            b -> b.isControlBatch() ? result(BatchRetention.DELETE_EMPTY, true) : deleteEmpty,
            (b, r) -> !(b.isTransactional() && !b.isControlBatch()) && latestC.test(b, r));
        add("v2-compacted-delete-horizon",
            "magic 2 compacted: batches holding tombstones and the ABORT marker of an emptied transaction are rewritten "
                + "with the delete-horizon bit (base timestamp = now + delete.retention.ms); aborted data removed",
            list(pass1));
        // second cleaning after the delete horizon: tombstones and the marker go, a batch keeps its horizon
        long later = now + 86_400_000L + 1;
        add("v2-compacted-second-pass",
            "v2-compacted-delete-horizon cleaned again after the delete horizon passed: tombstones and the marker removed, "
                + "the surviving record's batch rewritten (its delete horizon as Kafka keeps it)",
            list(filter(pass1, later, 86_400_000L,
                b -> b.isControlBatch() ? result(BatchRetention.DELETE, false) : deleteEmpty,
                (b, r) -> !b.isControlBatch() && (r.hasValue() || !b.deleteHorizonMs().isPresent() || later < b.deleteHorizonMs().getAsLong()))));

        // (d) v1 wrappers compacted -> relative inner offsets with gaps
        String[][] keysD = {
            {"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7"},
            {"u1", "u3", "u8", "u9", "u10", "u11"},
            {"u6", "u9", "u12", "u13", "u0", "u15"},
            {"u8", "u12", "u16", "u17"}};
        MemoryRecords srcD = concat(list(
            withKeys(Util.spec().magic(1).codec("gzip"), 0, Util.T0, keysD[0]),
            withKeys(Util.spec().magic(1).codec("lz4"), 8, Util.T0, keysD[1]),
            withKeys(Util.spec().magic(1).codec("snappy"), 14, Util.T0, keysD[2]),
            withKeys(Util.spec().magic(1), 20, Util.T0, keysD[3])));
        add("v1-compacted",
            "magic 1 compacted with filterTo: gzip/lz4/snappy wrappers rebuilt with gaps in the relative inner offsets "
                + "(wrapper offset = last inner offset); uncompressed messages, all still current, kept",
            list(filter(srcD, Util.T0 + 100_000, 86_400_000L, b -> deleteEmpty, latestPerKey(srcD))));

        // (e) v0 wrappers compacted -> absolute inner offsets with gaps
        MemoryRecords srcE = concat(list(
            withKeys(Util.spec().magic(0).codec("gzip"), 0, -1, keysD[0]),
            withKeys(Util.spec().magic(0).codec("snappy"), 8, -1, keysD[1]),
            withKeys(Util.spec().magic(0).codec("lz4"), 14, -1, keysD[2]),
            withKeys(Util.spec().magic(0), 20, -1, keysD[3])));
        add("v0-compacted",
            "magic 0 compacted with filterTo: gzip/snappy/lz4 wrappers rebuilt with gaps in the absolute inner offsets",
            list(filter(srcE, Util.T0 + 100_000, 86_400_000L, b -> deleteEmpty, latestPerKey(srcE))));
    }

    static MemoryRecords withKeys(Util.Spec s, long base, long t, String... keys) {
        List<Util.Rec> recs = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            long o = base + i;
            recs.add(Util.rec(o, t < 0 ? t : t + o, keys[i], "state " + o + " of " + keys[i]));
        }
        return Util.build(s, recs);
    }

    static List<MemoryRecords> mixedParts() {
        List<MemoryRecords> l = new ArrayList<>();
        l.add(keyedWrapper(Util.spec().magic(0), 0, 2, 10, -1));
        l.add(keyedWrapper(Util.spec().magic(0).codec("gzip"), 2, 3, 10, -1));
        l.add(keyedWrapper(Util.spec().magic(1), 5, 2, 10, Util.T0));
        l.add(keyedWrapper(Util.spec().magic(1).codec("snappy"), 7, 3, 10, Util.T0));
        l.add(keyedWrapper(Util.spec().magic(1).codec("lz4").logAppendTime(Util.T0 + 50), 10, 2, 10, Util.T0));
        l.add(keyedWrapper(Util.spec().epoch(0), 12, 3, 10, Util.T0));
        l.add(keyedWrapper(Util.spec().codec("zstd").epoch(1), 15, 3, 10, Util.T0));
        return l;
    }

    private void mixed() throws IOException {
        add("mixed-formats",
            "v0 entries (plain, gzip), then v1 (plain, snappy, lz4 LogAppendTime), then v2 (none, zstd), as after message format upgrades",
            mixedParts());
    }

    // ------------------------------------------------------------------ damaged copies

    private static byte[] copy(byte[] a, int n) { return Arrays.copyOf(a, n); }

    private static void putInt(byte[] a, int pos, int v) { ByteBuffer.wrap(a).putInt(pos, v); }

    private void damaged() throws IOException {
        // the base file: 3 small uncompressed v2 batches
        add("v2-small", "base file of the damaged copies: 3 uncompressed magic 2 batches",
            list(keyed(Util.spec().epoch(0), 0, 3),
                Util.build(Util.spec().epoch(0), Util.rec(3, Util.T0 + 3, "key-3", "FLIP-ME-VALUE"), Util.rec(4, Util.T0 + 4, "key-4", "v")),
                keyed(Util.spec().epoch(0), 5, 4)));
        byte[] base = bytes("v2-small");
        List<int[]> e = entries(base);
        int last = e.get(2)[0];
        addRaw("damaged-truncated-entry-header", "v2-small cut 7 bytes into the last batch (inside the 12-byte offset+length header)",
            true, copy(base, last + 7));
        addRaw("damaged-truncated-v2-header", "v2-small cut 30 bytes into the last batch (inside the 61-byte v2 batch header)",
            true, copy(base, last + 30));
        addRaw("damaged-truncated-records", "v2-small cut in the middle of the last batch's records",
            true, copy(base, last + 61 + (e.get(2)[1] - 61) / 2));

        byte[] flip = base.clone();
        int p = indexOf(flip, "FLIP-ME-VALUE".getBytes(UTF_8));
        flip[p + 5] ^= 0x20;
        addRaw("damaged-v2-value-flip", "v2-small with one byte of an uncompressed record value changed (CRC-32C mismatch, still readable)",
            true, flip);

        byte[] len = base.clone();
        putInt(len, e.get(1)[0] + 8, 10);
        addRaw("damaged-length-too-small", "v2-small with the second batch's length field set to 10 (below the minimum overhead)",
            true, len);
        byte[] huge = base.clone();
        putInt(huge, e.get(1)[0] + 8, 0x7ffffff0);
        addRaw("damaged-length-huge", "v2-small with the second batch's length field set to 0x7ffffff0 (past the end of the file)",
            true, huge);

        byte[] magic = base.clone();
        magic[e.get(1)[0] + 16] = 3;
        addRaw("damaged-bad-magic", "v2-small with the second batch's magic byte set to 3", true, magic);

        byte[] count = base.clone();
        int b2 = e.get(2)[0];
        ByteBuffer cb = ByteBuffer.wrap(count);
        cb.putInt(b2 + 57, cb.getInt(b2 + 57) + 2);
        long crc = Crc32C.compute(count, b2 + 21, e.get(2)[1] - 21);
        cb.putInt(b2 + 17, (int) crc);
        addRaw("damaged-record-count", "v2-small with the last batch's record count raised by 2 (CRC recomputed, so only the count is wrong)",
            true, count);

        byte[] shortCount = base.clone();
        ByteBuffer sb = ByteBuffer.wrap(shortCount);
        sb.putInt(b2 + 57, sb.getInt(b2 + 57) - 1);
        sb.putInt(b2 + 17, (int) Crc32C.compute(shortCount, b2 + 21, e.get(2)[1] - 21));
        addRaw("damaged-record-count-short", "v2-small with the last batch's record count lowered by 1 (CRC recomputed)",
            true, shortCount);

        byte[] pad = Arrays.copyOf(base, base.length + 4096);
        addRaw("damaged-zero-padding", "v2-small followed by 4096 zero bytes, like a preallocated segment after an unclean shutdown",
            true, pad);

        // v1 message with a changed byte
        add("v1-small", "base file of the v1 damaged copies: uncompressed magic 1 messages and a gzip wrapper",
            list(Util.build(Util.spec().magic(1), Util.rec(0, Util.T0, "a", "first"), Util.rec(1, Util.T0 + 1, "b", "FLIP-ME-VALUE"),
                    Util.rec(2, Util.T0 + 2, "c", "third")),
                Util.build(Util.spec().magic(1).codec("gzip"), Util.rec(3, Util.T0 + 3, Util.text(40, 1), Util.text(3000, 2)),
                    Util.rec(4, Util.T0 + 4, "e", "wrapped"))));
        byte[] v1 = bytes("v1-small");
        byte[] v1flip = v1.clone();
        int q = indexOf(v1flip, "FLIP-ME-VALUE".getBytes(UTF_8));
        v1flip[q + 5] ^= 0x20;
        addRaw("damaged-v1-value-flip", "v1-small with one byte of a message value changed (CRC32 mismatch)", true, v1flip);
        List<int[]> ev1 = entries(v1);
        int[] w = ev1.get(ev1.size() - 1);
        byte[] v1gz = v1.clone();
        v1gz[w[0] + w[1] / 2 + 20] ^= (byte) 0xff;
        addRaw("damaged-v1-gzip-flip", "v1-small with one byte inside the gzip wrapper's compressed value changed", true, v1gz);

        // compressed v2 data with a changed byte
        for (String codec : new String[] {"gzip", "snappy", "lz4", "zstd"}) {
            String name = "v2-" + codec + "-small";
            add(name, "base file of the damaged-" + codec + "-flip copy: two magic 2 " + codec + " batches",
                list(keyed(Util.spec().codec(codec).epoch(0), 0, 3),
                    Util.build(Util.spec().codec(codec).epoch(0),
                        Util.rec(3, Util.T0, Util.text(50, 3), Util.text(6000, 4)),
                        Util.rec(4, Util.T0, Util.text(50, 5), Util.text(6000, 6)))));
            byte[] src = bytes(name);
            List<int[]> es = entries(src);
            int[] lb = es.get(1);
            byte[] d = src.clone();
            d[lb[0] + 61 + (lb[1] - 61) / 2] ^= (byte) 0xff;
            addRaw("damaged-" + codec + "-flip", name + " with one byte in the middle of the last batch's compressed records changed",
                true, d);
            if (codec.equals("lz4")) {
                byte[] cnt = src.clone();
                ByteBuffer cbb = ByteBuffer.wrap(cnt);
                cbb.putInt(lb[0] + 57, cbb.getInt(lb[0] + 57) + 2);
                cbb.putInt(lb[0] + 17, (int) Crc32C.compute(cnt, lb[0] + 21, lb[1] - 21));
                addRaw("damaged-record-count-lz4", name + " with the last batch's record count raised by 2 (CRC recomputed)",
                    true, cnt);
                // byte 7 of the records area is the high byte of the first LZ4 block size
                byte[] bs = src.clone();
                bs[lb[0] + 61 + 10] ^= (byte) 0x40;
                addRaw("damaged-lz4-block-size", name + " with the first LZ4 block size of the last batch changed", true, bs);
            }
        }
    }

    public static void main(File outDir) throws IOException {
        new Fixtures(outDir).writeAll();
    }
}
