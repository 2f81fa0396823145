import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.LegacyRecord;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.CloseableIterator;
import org.apache.kafka.common.utils.Crc32C;

/**
 * Writes tests/fixtures/hostile: small files that decode to very many records (issues 8 and 9: memory and
 * time must be bounded by bytes, not by counts), written by Kafka's own encoder (MemoryRecordsBuilder).
 * Where Kafka cannot write the damage itself, bytes are patched afterwards and the batch CRC-32C recomputed,
 * so that only the intended thing is wrong. index.json says what each file is and how Kafka's own reader
 * (FileRecords batches, streamingIterator records, as RefReader) reads it: counts and first/last offsets
 * instead of one line per record.
 *
 * "Minimal" records have a null key, a null value and no headers. Most are appended with
 * MemoryRecordsBuilder.appendUncheckedWithOffset at one offset (Kafka's encoder does not check the order
 * there): every record then has offset delta 0 and takes 7 bytes, and the payload is the same bytes over and
 * over, so it compresses to almost nothing. Kafka's reader returns all of them, at that one offset.
 */
final class Hostile {
    static final int MILLION = 1_000_000;
    // v2 batch header positions (DefaultRecordBatch)
    static final int CRC_OFFSET = 17, ATTRIBUTES_OFFSET = 21, RECORDS_COUNT_OFFSET = 57, RECORDS_OFFSET = 61;

    private final File dir;
    private final List<String> index = new ArrayList<>();

    Hostile(File dir) { this.dir = dir; }

    static void main(File out) throws IOException {
        Hostile h = new Hostile(out);
        h.write();
    }

    void write() throws IOException {
        dir.mkdirs();
        for (String codec : new String[] {"zstd", "lz4", "gzip", "snappy"}) {
            byte[] one = v2Minimal(codec, MILLION);
            add("v2-" + codec + "-1m-records", "one v2 " + codec + " batch of 1,000,000 minimal records (7 bytes each, "
                + "offset delta 0: appendUncheckedWithOffset), 7 MB decompressed", one);
            add("v2-" + codec + "-count-2g", "v2-" + codec + "-1m-records with the record count patched to 2^31-1 "
                + "(CRC-32C recomputed): the payload holds 1,000,000 records", withCount(one, Integer.MAX_VALUE));
        }
        add("v2-none-1m-records", "one uncompressed v2 batch of 1,000,000 minimal records (offset delta 0), 7 MB",
            v2Minimal("none", MILLION));
        // 300 * 30,000 records * ~40 bytes of Arrow columns each: 360 MB, from 30 KB (a chunk's groups held at once)
        add("v2-zstd-300-batches", "300 v2 zstd batches of 30,000 minimal records each (offset delta 0), about 100 "
            + "bytes a batch: 9,000,000 records, each batch small enough to be decoded with others in one group",
            repeated(v2Minimal("zstd", 30_000), 300));
        add("v1-gzip-300-wrappers", "300 magic 1 gzip wrappers of 30,000 inner messages each (null key and value, "
            + "all at offset 0), about 3 KB a wrapper: 9,000,000 messages", repeated(legacyMinimal(1, 30_000), 300));
        add("v2-zstd-1m-empty-headers", "one v2 zstd batch of one record with 1,000,000 empty headers (key \"\", "
            + "value null: 2 bytes each)", v2EmptyHeaders("zstd", MILLION));
        for (int magic = 0; magic <= 1; magic++)
            add("v" + magic + "-gzip-1m-messages", "one magic " + magic + " gzip wrapper holding 1,000,000 inner "
                + "messages with null key and value (appendUncheckedWithOffset, all at offset 0)", legacyMinimal(magic, MILLION));
        // 40,000,000 * 7 bytes = 280,000,000 > 256 MiB (kafkalog's default max_decompressed_bytes)
        add("v2-gzip-past-256mib", "one v2 gzip batch of 40,000,000 minimal records: 280,000,000 bytes decompressed, "
            + "past the default max_decompressed_bytes of 256 MiB", v2Minimal("gzip", 40 * MILLION));
        add("v2-gzip-bad-deflate-block", "one v2 gzip batch of 5,000,000 minimal records (35 MB decompressed) whose "
            + "deflate stream is damaged near its end (one byte inverted, CRC-32C recomputed): inflating fails with a "
            + "bad deflate block after more than 32 MB", badDeflateBlock(v2Minimal("gzip", 5 * MILLION), 32_000_000, 1736));
        writeIndex();
    }

    // ------------------------------------------------------------------ Kafka's encoder

    static MemoryRecordsBuilder v2Builder(String codec) {
        return MemoryRecords.builder(ByteBuffer.allocate(1 << 16), RecordBatch.MAGIC_VALUE_V2, Util.codec(codec),
            TimestampType.CREATE_TIME, 0L);
    }

    static byte[] v2Minimal(String codec, int n) throws IOException {
        MemoryRecordsBuilder b = v2Builder(codec);
        SimpleRecord minimal = new SimpleRecord(Util.T0, (byte[]) null, (byte[]) null);
        for (int i = 0; i < n; i++) b.appendUncheckedWithOffset(0, minimal);
        return bytes(b.build());
    }

    static byte[] repeated(byte[] batch, int times) {
        byte[] out = new byte[batch.length * times];
        for (int i = 0; i < times; i++) System.arraycopy(batch, 0, out, i * batch.length, batch.length);
        return out;
    }

    static byte[] v2EmptyHeaders(String codec, int n) {
        Header[] headers = new Header[n];
        Arrays.fill(headers, new RecordHeader("", (byte[]) null));
        MemoryRecordsBuilder b = v2Builder(codec);
        b.appendWithOffset(0, Util.T0, (byte[]) null, (byte[]) null, headers);
        return bytes(b.build());
    }

    static byte[] legacyMinimal(int magic, int n) {
        MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(1 << 16), (byte) magic, Util.codec("gzip"),
            TimestampType.CREATE_TIME, 0L);
        LegacyRecord minimal = LegacyRecord.create((byte) magic, magic == 0 ? RecordBatch.NO_TIMESTAMP : Util.T0,
            null, null);
        for (int i = 0; i < n; i++) b.appendUncheckedWithOffset(0, minimal);
        return bytes(b.build());
    }

    static byte[] bytes(MemoryRecords m) {
        ByteBuffer buf = m.buffer();
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return out;
    }

    // ------------------------------------------------------------------ patches Kafka cannot write itself

    static void fixCrc(byte[] batch) {
        ByteBuffer.wrap(batch).putInt(CRC_OFFSET, (int) Crc32C.compute(batch, ATTRIBUTES_OFFSET, batch.length - ATTRIBUTES_OFFSET));
    }

    static byte[] withCount(byte[] batch, int count) {
        byte[] out = batch.clone();
        ByteBuffer.wrap(out).putInt(RECORDS_COUNT_OFFSET, count);
        fixCrc(out);
        return out;
    }

    /**
     * Invert one byte of the deflate stream, searching back from its end for the first position where
     * java.util.zip's inflater fails (a bad deflate block, not just the gzip trailer's CRC) after at least
     * minInflated bytes. Deterministic: the same input gives the same position.
     * Each try inflates the whole stream, so the search starts fromEnd bytes before the end of the batch: where
     * a search from the very end stopped with Kafka 3.9.1's encoder (no byte after it fails), 1,700 tries earlier.
     */
    static byte[] badDeflateBlock(byte[] batch, int minInflated, int fromEnd) throws IOException {
        int start = RECORDS_OFFSET + 10, end = batch.length - 8; // gzip header (10 bytes, no name), trailer (8)
        for (int pos = Math.min(end - 1, batch.length - fromEnd); pos > start; pos--) {
            byte[] out = batch.clone();
            out[pos] = (byte) ~out[pos];
            long inflated = 0;
            String failure = null;
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(out, RECORDS_OFFSET, out.length - RECORDS_OFFSET), 1 << 16)) {
                byte[] buf = new byte[1 << 16];
                for (int k; (k = in.read(buf)) > 0; ) inflated += k;
            } catch (ZipException e) {
                failure = e.getMessage();
            }
            if (failure != null && !failure.contains("trailer") && !failure.contains("CRC") && inflated >= minInflated) {
                fixCrc(out);
                return out;
            }
        }
        throw new IllegalStateException("no byte of the deflate stream makes it fail");
    }

    // ------------------------------------------------------------------ output and Kafka's reading

    private long last = System.nanoTime();

    private void add(String name, String description, byte[] bytes) throws IOException {
        File f = new File(dir, name + ".log");
        Files.write(f.toPath(), bytes);
        long written = System.nanoTime();
        index.add(Json.obj().put("name", name).put("file", f.getName()).put("size", (long) bytes.length)
            .put("description", description).raw("kafka", kafkaReading(f)).end());
        if (System.getenv("HOSTILE_TIMES") != null)
            System.err.printf("%s: written in %.1f s, read in %.1f s%n", name, (written - last) / 1e9,
                (System.nanoTime() - written) / 1e9);
        last = System.nanoTime();
    }

    /** Kafka's reading, summarised: per batch its header fields, record count, first/last offset and the error. */
    static String kafkaReading(File file) throws IOException {
        StringBuilder batches = new StringBuilder("[");
        long total = 0;
        String fileError = null;
        try (FileRecords fr = FileRecords.open(file, false)) {
            Iterator<FileChannelRecordBatch> it = fr.batchIterator();
            int next = 0;
            while (true) {
                FileChannelRecordBatch b;
                try {
                    if (!it.hasNext()) break;
                    b = it.next();
                } catch (RuntimeException e) {
                    fileError = RefReader.error(next, e, file);
                    break;
                }
                next = b.position() + b.sizeInBytes();
                long records = 0, first = -1, last = -1;
                int maxHeaders = 0;
                String error = null;
                try (CloseableIterator<Record> r = b.streamingIterator(BufferSupplier.create())) {
                    while (r.hasNext()) {
                        Record rec = r.next();
                        if (records == 0) first = rec.offset();
                        last = rec.offset();
                        maxHeaders = Math.max(maxHeaders, rec.headers().length);
                        records++;
                    }
                } catch (RuntimeException e) {
                    error = RefReader.error(b.position(), e, file);
                }
                total += records;
                if (batches.length() > 1) batches.append(',');
                batches.append(Json.obj().put("position", (long) b.position()).put("size", (long) b.sizeInBytes())
                    .put("magic", (long) b.magic()).put("compression", b.compressionType().name.toLowerCase())
                    .put("count", b.countOrNull()).put("crc_valid", b.isValid())
                    .put("records", records).put("first_offset", first).put("last_offset", last)
                    .put("max_headers", (long) maxHeaders).raw("error", error == null ? "null" : error).end());
            }
        }
        batches.append(']');
        return Json.obj().put("records", total).raw("batches", batches.toString())
            .raw("error", fileError == null ? "null" : fileError).end();
    }

    private void writeIndex() throws IOException {
        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < index.size(); i++)
            sb.append("  ").append(index.get(i)).append(i + 1 < index.size() ? ",\n" : "\n");
        sb.append("]\n");
        Files.write(new File(dir, "index.json").toPath(), sb.toString().getBytes(UTF_8));
    }
}
