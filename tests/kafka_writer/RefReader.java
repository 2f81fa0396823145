import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.CloseableIterator;

/**
 * Kafka's own reading of a .log file, as JSON lines (the "reference read").
 *
 * Batches come from FileRecords.open(file).batchIterator() (for magic 0/1: one shallow entry per
 * uncompressed message or compressed wrapper); records from batch.streamingIterator(), i.e. deep
 * iteration as a consumer's CompletedFetch does it, without ensureValid() so that a batch whose
 * CRC does not match is still read (crc_valid reports the CRC check).
 */
final class RefReader {
    interface Sink {
        void batch(FileChannelRecordBatch batch, String json);
        void record(FileChannelRecordBatch batch, Record record, String json);
    }

    static List<String> read(File file) throws IOException {
        return read(file, null);
    }

    static List<String> read(File file, Sink sink) throws IOException {
        List<String> out = new ArrayList<>();
        long fileSize = file.length();
        try (FileRecords fr = FileRecords.open(file, false)) {
            Iterator<FileChannelRecordBatch> it = fr.batchIterator();
            int next = 0;
            boolean failed = false;
            while (true) {
                FileChannelRecordBatch b;
                try {
                    if (!it.hasNext()) break;
                    b = it.next();
                } catch (RuntimeException e) {
                    // Kafka's AbstractIterator is now in the FAILED state: iteration cannot continue.
                    out.add(error(next, e, file));
                    failed = true;
                    break;
                }
                next = b.position() + b.sizeInBytes();
                readBatch(b, out, file, sink);
            }
            if (!failed && next < fileSize)
                out.add(Json.obj().put("type", "error").put("position", next)
                    .put("message", "truncated: " + (fileSize - next) + " bytes left after the last complete entry").end());
        }
        out.add(Json.obj().put("type", "end").put("file_size", fileSize).end());
        return out;
    }

    static String error(long position, Throwable e, File file) {
        String msg = e.getClass().getName() + ": " + e.getMessage();
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause())
            msg += " (caused by " + c.getClass().getName() + ": " + c.getMessage() + ")";
        // Kafka puts the file path in some messages: keep only the file name so output is stable.
        msg = msg.replace(file.getAbsolutePath(), file.getName()).replace(file.getPath(), file.getName());
        return Json.obj().put("type", "error").put("position", position).put("message", msg).end();
    }

    static String batchJson(RecordBatch b, int position) {
        OptionalLong dh = b.deleteHorizonMs();
        return Json.obj()
            .put("type", "batch")
            .put("position", position)
            .put("size", b.sizeInBytes())
            .put("magic", b.magic())
            .put("base_offset", b.baseOffset())
            .put("last_offset", b.lastOffset())
            .put("count", b.countOrNull())
            .put("compression", b.compressionType().name.toLowerCase())
            .put("crc", b.checksum())
            .put("crc_valid", b.isValid())
            .put("timestamp_type", b.timestampType().name)
            .put("max_timestamp", b.maxTimestamp())
            .put("producer_id", b.producerId())
            .put("producer_epoch", b.producerEpoch())
            .put("base_sequence", b.baseSequence())
            .put("last_sequence", b.lastSequence())
            .put("partition_leader_epoch", b.partitionLeaderEpoch())
            .put("is_transactional", b.isTransactional())
            .put("is_control", b.isControlBatch())
            .put("delete_horizon_ms", dh.isPresent() ? Long.valueOf(dh.getAsLong()) : null)
            .end();
    }

    /** Record JSON without the closing brace, so callers can add fields. */
    static Json recordJson(Record r, boolean control) {
        StringBuilder h = new StringBuilder("[");
        Header[] headers = r.headers();
        for (int i = 0; i < headers.length; i++) {
            if (i > 0) h.append(',');
            h.append('[');
            Json.str(h, headers[i].key());
            h.append(',');
            byte[] v = headers[i].value();
            if (v == null) h.append("null"); else Json.str(h, Json.b64(v));
            h.append(']');
        }
        h.append(']');
        return Json.obj()
            .put("type", "record")
            .put("offset", r.offset())
            .put("timestamp", r.timestamp())
            .put("sequence", r.sequence())
            .put("key", Json.b64(r.key()))
            .put("value", Json.b64(r.value()))
            .raw("headers", h.toString())
            .put("control_type", control ? ControlRecordType.parse(r.key()).name() : null);
    }

    private static void readBatch(FileChannelRecordBatch b, List<String> out, File file, Sink sink) {
        String header;
        try {
            header = batchJson(b, b.position());
        } catch (RuntimeException e) {
            out.add(error(b.position(), e, file));
            return;
        }
        out.add(header);
        if (sink != null) sink.batch(b, header);
        boolean control = b.isControlBatch();
        CloseableIterator<Record> it = null;
        try {
            it = b.streamingIterator(BufferSupplier.create());
            while (it.hasNext()) {
                Record r = it.next();
                String json = recordJson(r, control).end();
                out.add(json);
                if (sink != null) sink.record(b, r, json);
            }
            it.close();
            it = null;
        } catch (RuntimeException e) {
            out.add(error(b.position(), e, file));
        } finally {
            if (it != null) {
                try { it.close(); } catch (RuntimeException ignored) { }
            }
        }
    }
}
