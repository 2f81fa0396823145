import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecords.RecordFilter.BatchRetention;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;

/**
 * tests/fixtures/partitions: partition directories laid out like a broker's (see PartitionWriter for the
 * LogSegment / index / snapshot / txnindex rules, cited from Kafka 3.9's storage module) and expected.json.
 */
final class Partitions {
    static final int SEGMENT_BYTES = 16384;
    static final int INDEX_INTERVAL_BYTES = 1024;
    static final int SEGMENT_INDEX_BYTES = 1024;

    final File root;
    final List<String> partitionsJson = new ArrayList<>();

    Partitions(File root) { this.root = root; }

    static String orderValue(long o, int seed) {
        String base = "{\"order_id\":" + (100000 + o) + ",\"customer\":\"c-" + (o * 7919 % 97) + "\",\"total_cents\":"
            + (o * 104729 % 100000) + ",\"note\":\"";
        String pad = new String(Util.text(30 + (int) (o % 40), o + seed), UTF_8);
        return base + pad + "\"}";
    }

    /** Appends for orders-style partitions: plain, idempotent and transactional producers, epoch changes. */
    static void writeOrders(PartitionWriter w, int appends, String codecA, String codecB, int seed) throws IOException {
        long off = 0;
        int idemSeq = 0, txnSeq = 0;
        boolean txnOpen = false;
        for (int i = 0; i < appends; i++) {
            int ple = i < appends / 3 ? 0 : i < 2 * appends / 3 ? 1 : 3;
            long t = Util.T0 + i * 1000L;
            if (i % 7 == 3) t -= 50_000; // a late batch: max timestamp so far stays
            int kind = i % 10;
            MemoryRecords m;
            if (kind == 9 && txnOpen) {
                m = MemoryRecords.withEndTransactionMarker(off, t, ple, 2000L, (short) 0,
                    new EndTransactionMarker(ControlRecordType.COMMIT, 3));
                txnOpen = false;
            } else {
                Util.Spec s = Util.spec().epoch(ple).codec(i % 3 == 0 ? codecB : codecA);
                int n = 1 + (int) ((i * 31L + seed) % 6);
                if (kind == 6 || kind == 7) { s.producer(1000L, 0, idemSeq); idemSeq += n; }
                else if (kind == 8 || kind == 9) { s.producer(2000L, 0, txnSeq).txn(); txnSeq += n; txnOpen = true; }
                List<Util.Rec> recs = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    long o = off + j;
                    recs.add(Util.rec(o, t + j, "order-" + (o % 50), orderValue(o, seed),
                        Util.h("source", kind >= 6 ? (kind >= 8 ? "txn-app" : "idempotent-app") : "web")));
                }
                m = Util.build(s, recs);
            }
            w.append(m);
            off = w.logEndOffset;
        }
    }

    /** Transactional partition: two transactional producers interleaved, one in three transactions aborted. */
    static void writePayments(PartitionWriter w, int rounds) throws IOException {
        long off = 0;
        int[] seq = {0, 0};
        long[] pids = {3000L, 3001L};
        int txnNo = 0;
        for (int r = 0; r < rounds; r++) {
            long t = Util.T0 + r * 10_000L;
            // both producers open a transaction and write two batches each, interleaved
            for (int k = 0; k < 2; k++) {
                for (int p = 0; p < 2; p++) {
                    int n = 2 + (r + k + p) % 4;
                    List<Util.Rec> recs = new ArrayList<>();
                    for (int j = 0; j < n; j++) {
                        long o = off + j;
                        recs.add(Util.rec(o, t + k * 100 + p * 10 + j, "payment-" + (o % 40),
                            "{\"payment\":" + o + ",\"amount_cents\":" + (o * 7727 % 50000) + ",\"status\":\"captured\"}",
                            Util.h("producer", "p" + pids[p])));
                    }
                    w.append(Util.build(Util.spec().epoch(2).codec(p == 0 ? "none" : "snappy").producer(pids[p], 1, seq[p]).txn(), recs));
                    seq[p] += n;
                    off = w.logEndOffset;
                }
            }
            if (r % 3 == 1) {
                // a non-transactional write in the middle of the open transactions
                w.append(Util.build(Util.spec().epoch(2), Util.rec(off, t + 500, "audit", "plain write between transactions")));
                off = w.logEndOffset;
            }
            for (int p = 0; p < 2; p++) {
                boolean abort = (txnNo++ % 3) == 2;
                w.append(MemoryRecords.withEndTransactionMarker(off, t + 900 + p, 2, pids[p], (short) 1,
                    new EndTransactionMarker(abort ? ControlRecordType.ABORT : ControlRecordType.COMMIT, 7)));
                off = w.logEndOffset;
            }
        }
    }

    // ------------------------------------------------------------------ expected.json

    static String entriesJson(List<long[]> entries, String a, String b) {
        StringBuilder sb = new StringBuilder("[");
        for (long[] e : entries) {
            if (sb.length() > 1) sb.append(',');
            sb.append(Json.obj().put(a, e[0]).put(b, e[1]).end());
        }
        return sb.append(']').toString();
    }

    /** Entries as they are on disk (the first count entries of the file; after them only zero-filled slots). */
    static String indexJson(File f, List<long[]> written, String a, String b, int entrySize, long baseOffset) throws IOException {
        long len = f.length();
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(f.toPath()));
        List<long[]> entries = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            if (entrySize == 8) entries.add(new long[] {baseOffset + buf.getInt(i * 8), buf.getInt(i * 8 + 4)});
            else entries.add(new long[] {buf.getLong(i * 12), baseOffset + buf.getInt(i * 12 + 8)});
        }
        return Json.obj().put("file", f.getName()).put("file_size", len).put("entry_size", entrySize)
            .put("entries_count", entries.size()).put("slots", len / entrySize)
            .put("preallocated_empty_slots", len / entrySize - entries.size())
            .raw("entries", entriesJson(entries, a, b)).end();
    }

    static String txnJson(List<long[]> entries) {
        StringBuilder sb = new StringBuilder("[");
        for (long[] e : entries) {
            if (sb.length() > 1) sb.append(',');
            sb.append(Json.obj().put("version", 0).put("producer_id", e[0]).put("first_offset", e[1])
                .put("last_offset", e[2]).put("last_stable_offset", e[3]).end());
        }
        return sb.append(']').toString();
    }

    /** Kafka's reading of every live segment (RefReader), with the segment and batch position added. */
    static List<String> records(PartitionWriter w) throws IOException {
        List<String> out = new ArrayList<>();
        for (PartitionWriter.Segment s : w.segments) {
            File log = new File(w.dir, PartitionWriter.name(s.baseOffset) + ".log");
            if (!log.exists()) continue;
            List<String> lines = RefReader.read(log, new RefReader.Sink() {
                public void batch(FileChannelRecordBatch b, String json) { }
                public void record(FileChannelRecordBatch b, Record r, String json) {
                    out.add(json.substring(0, json.length() - 1) + ",\"segment\":" + Json.quote(log.getName())
                        + ",\"batch_position\":" + b.position() + "}");
                }
            });
            for (String l : lines)
                if (l.startsWith("{\"type\":\"error\"")) throw new IllegalStateException(log + ": " + l);
        }
        return out;
    }

    static String list(List<String> items, String indent) {
        if (items.isEmpty()) return "[]";
        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < items.size(); i++)
            sb.append(indent).append("  ").append(items.get(i)).append(i + 1 < items.size() ? ",\n" : "\n");
        return sb.append(indent).append(']').toString();
    }

    void describe(String name, String description, PartitionWriter w, long logStartOffset,
                  List<String> leftovers, List<String> problems) throws IOException {
        List<String> segs = new ArrayList<>();
        for (PartitionWriter.Segment s : w.segments) {
            String n = PartitionWriter.name(s.baseOffset);
            File log = new File(w.dir, n + ".log");
            if (!log.exists()) continue;
            File txn = new File(w.dir, n + ".txnindex");
            segs.add(Json.obj().put("base_offset", s.baseOffset).put("log", log.getName()).put("log_size", log.length())
                .put("active", s == w.active)
                .raw("index", indexJson(new File(w.dir, n + ".index"), s.offsetIndexEntries, "offset", "position", 8, s.baseOffset))
                .raw("timeindex", indexJson(new File(w.dir, n + ".timeindex"), s.timeIndexEntries, "timestamp", "offset", 12, s.baseOffset))
                .raw("txnindex", txn.exists() ? Json.obj().put("file", txn.getName()).put("file_size", txn.length())
                    .raw("entries", txnJson(s.txnEntries)).end() : "null")
                .end());
        }
        StringBuilder epochs = new StringBuilder("[");
        for (java.util.Map.Entry<Integer, Long> e : w.epochs.entrySet()) {
            if (epochs.length() > 1) epochs.append(',');
            epochs.append(Json.obj().put("epoch", e.getKey()).put("start_offset", e.getValue()).end());
        }
        epochs.append(']');
        List<String> aborted = new ArrayList<>();
        for (long[] t : w.abortedTxns)
            if (t[2] >= logStartOffset)
                aborted.add(Json.obj().put("producer_id", t[0]).put("first_offset", t[1]).put("last_offset", t[2]).end());
        String ind = "    ";
        StringBuilder sb = new StringBuilder();
        sb.append("  ").append(Json.quote(name)).append(": {\n");
        sb.append(ind).append("\"description\": ").append(Json.quote(description)).append(",\n");
        sb.append(ind).append("\"log_start_offset\": ").append(logStartOffset).append(",\n");
        sb.append(ind).append("\"log_end_offset\": ").append(w.logEndOffset).append(",\n");
        sb.append(ind).append("\"segments\": ").append(list(segs, ind)).append(",\n");
        sb.append(ind).append("\"snapshots\": ").append(list(w.snapshotJson, ind)).append(",\n");
        sb.append(ind).append("\"leader_epoch_checkpoint\": ").append(Json.obj().put("file", "leader-epoch-checkpoint")
            .put("version", 0).raw("entries", epochs.toString()).end()).append(",\n");
        sb.append(ind).append("\"leftover_files\": ").append(list(leftovers, ind)).append(",\n");
        sb.append(ind).append("\"index_problems\": ").append(list(problems, ind)).append(",\n");
        sb.append(ind).append("\"aborted_transactions\": ").append(list(aborted, ind)).append(",\n");
        sb.append(ind).append("\"records\": ").append(list(records(w), ind)).append("\n");
        sb.append("  }");
        partitionsJson.add(sb.toString());
    }

    // ------------------------------------------------------------------ the partitions

    void writeAll() throws IOException {
        root.mkdirs();
        for (File d : root.listFiles()) {
            if (d.isDirectory()) { for (File f : d.listFiles()) f.delete(); }
            d.delete();
        }

        PartitionWriter o0 = new PartitionWriter(new File(root, "orders-0"), SEGMENT_BYTES, INDEX_INTERVAL_BYTES, SEGMENT_INDEX_BYTES);
        writeOrders(o0, 160, "none", "lz4", 0);
        o0.close();
        describe("orders-0", "v2 none/lz4; plain, idempotent (1000) and transactional (2000, committed) producers; "
            + "leader epochs 0, 1, 3; late batches; 4+ segments, the active one with preallocated indexes", o0, 0,
            new ArrayList<>(), new ArrayList<>());

        // orders-1: compressed, first segment deleted by retention, a compaction left over
        PartitionWriter o1 = new PartitionWriter(new File(root, "orders-1"), 8192, INDEX_INTERVAL_BYTES, SEGMENT_INDEX_BYTES);
        writeOrders(o1, 80, "zstd", "gzip", 1);
        o1.close();
        List<String> leftovers = new ArrayList<>();
        PartitionWriter.Segment first = o1.segments.get(0), second = o1.segments.get(1);
        for (String ext : new String[] {".log", ".index", ".timeindex"}) {
            File f = new File(o1.dir, PartitionWriter.name(first.baseOffset) + ext);
            File g = new File(o1.dir, f.getName() + ".deleted");
            Files.move(f.toPath(), g.toPath());
            leftovers.add(Json.obj().put("file", g.getName()).put("kind", "deleted")
                .put("description", "segment removed by retention, renamed with .deleted before async deletion").end());
        }
        File secondLog = new File(o1.dir, PartitionWriter.name(second.baseOffset) + ".log");
        MemoryRecords src = MemoryRecords.readableRecords(ByteBuffer.wrap(Files.readAllBytes(secondLog.toPath())));
        BiPredicate<RecordBatch, Record> latest = Fixtures.latestPerKey(src);
        MemoryRecords cleaned = Fixtures.filter(src, Util.T0 + 3_600_000L, 86_400_000L,
            b -> Fixtures.result(b.hasProducerId() ? BatchRetention.RETAIN_EMPTY : BatchRetention.DELETE_EMPTY, false), latest);
        File cleanedFile = new File(o1.dir, secondLog.getName() + ".cleaned");
        Util.writeLog(cleanedFile, Fixtures.list1(cleaned));
        leftovers.add(Json.obj().put("file", cleanedFile.getName()).put("kind", "cleaned")
            .put("description", "log cleaner output (filterTo, latest value per key) not yet swapped in").end());
        File swapFile = new File(o1.dir, PartitionWriter.name(second.baseOffset) + ".timeindex.swap");
        Files.copy(new File(o1.dir, PartitionWriter.name(second.baseOffset) + ".timeindex").toPath(), swapFile.toPath(),
            StandardCopyOption.REPLACE_EXISTING);
        leftovers.add(Json.obj().put("file", swapFile.getName()).put("kind", "swap")
            .put("description", "a .swap file left by an interrupted segment replacement").end());
        describe("orders-1", "v2 zstd/gzip; same producers as orders-0; the first segment was deleted (.deleted files), "
            + "leftover .cleaned and .swap files", o1, second.baseOffset, leftovers, new ArrayList<>());

        PartitionWriter p0 = new PartitionWriter(new File(root, "payments-0"), 8192, INDEX_INTERVAL_BYTES, SEGMENT_INDEX_BYTES);
        writePayments(p0, 14);
        p0.close();
        describe("payments-0", "transactional producers 3000 and 3001 interleaved (none/snappy), one transaction in three "
            + "aborted: .txnindex files with last stable offsets; producer snapshots with ongoing transactions", p0, 0,
            new ArrayList<>(), new ArrayList<>());

        // broken-index-0: a small partition whose index files were damaged afterwards
        PartitionWriter b0 = new PartitionWriter(new File(root, "broken-index-0"), 8192, INDEX_INTERVAL_BYTES, SEGMENT_INDEX_BYTES);
        writeOrders(b0, 50, "none", "none", 2);
        b0.close();
        List<String> problems = new ArrayList<>();
        problems.add(damageIndex(b0, 0, 2, "position_past_end_of_log"));
        problems.add(damageIndex(b0, 1, 3, "offset_not_increasing"));
        problems.add(damageIndex(b0, 2, 1, "timestamp_not_increasing"));
        describe("broken-index-0", "like orders-0 but smaller, with damaged index files (see index_problems; "
            + "segments[].index/timeindex list the entries as they are on disk, damage included)", b0, 0, new ArrayList<>(), problems);

        StringBuilder sb = new StringBuilder();
        sb.append("{\n");
        sb.append("  \"config\": ").append(Json.obj().put("kafka_version", "3.9.1")
            .put("index_interval_bytes", INDEX_INTERVAL_BYTES).put("segment_index_bytes", SEGMENT_INDEX_BYTES)
            .put("segment_bytes", "orders-0: " + SEGMENT_BYTES + ", others: 8192")
            .put("state", "as a running broker leaves it: the active segment's .index/.timeindex are preallocated "
                + "(zero-filled slots) and have no final time index entry; rolled segments are trimmed")
            .end()).append(",\n");
        sb.append("  \"partitions\": {\n");
        sb.append(String.join(",\n", partitionsJson));
        sb.append("\n  }\n}\n");
        Files.write(new File(root, "expected.json").toPath(), sb.toString().getBytes(UTF_8));
    }

    static String damageIndex(PartitionWriter w, int segment, int entry, String kind) throws IOException {
        PartitionWriter.Segment s = w.segments.get(segment);
        String n = PartitionWriter.name(s.baseOffset);
        String detail;
        File f;
        if (kind.equals("timestamp_not_increasing")) {
            f = new File(w.dir, n + ".timeindex");
            if (s.timeIndexEntries.size() <= entry) throw new IllegalStateException("not enough time index entries");
            long prev = s.timeIndexEntries.get(entry - 1)[0];
            long bad = prev - 5000;
            patch(f, entry * 12, ByteBuffer.allocate(8).putLong(bad).array());
            detail = "entry " + entry + " timestamp set to " + bad + ", below entry " + (entry - 1) + "'s " + prev;
        } else if (kind.equals("offset_not_increasing")) {
            f = new File(w.dir, n + ".index");
            if (s.offsetIndexEntries.size() <= entry) throw new IllegalStateException("not enough index entries");
            long prev = s.offsetIndexEntries.get(entry - 1)[0];
            long bad = prev - 1;
            patch(f, entry * 8, ByteBuffer.allocate(4).putInt((int) (bad - s.baseOffset)).array());
            detail = "entry " + entry + " offset set to " + bad + ", below entry " + (entry - 1) + "'s " + prev;
        } else {
            f = new File(w.dir, n + ".index");
            if (s.offsetIndexEntries.size() <= entry) throw new IllegalStateException("not enough index entries");
            int bad = (int) new File(w.dir, n + ".log").length() + 1000;
            patch(f, entry * 8 + 4, ByteBuffer.allocate(4).putInt(bad).array());
            detail = "entry " + entry + " position set to " + bad + ", past the end of the " + new File(w.dir, n + ".log").length() + "-byte log";
        }
        return Json.obj().put("file", f.getName()).put("entry", entry).put("kind", kind).put("detail", detail).end();
    }

    static void patch(File f, int pos, byte[] bytes) throws IOException {
        byte[] a = Files.readAllBytes(f.toPath());
        System.arraycopy(bytes, 0, a, pos, bytes.length);
        Files.write(f.toPath(), a);
    }

    static void main(File root) throws IOException {
        new Partitions(root).writeAll();
    }
}
