import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

/**
 * A partition directory that grows while it is read, for streaming tests: OUTDIR/TOPIC-0 written through
 * PartitionWriter (Kafka's LogSegment rules: a roll when the next append would pass --segment-bytes, the rolled
 * segment's indexes written then, the active segment's .log appended in place). Commands on stdin, one per line:
 *   append K    one v2 batch of K records at the log end offset (key "key-O", value "value O", timestamp T0 + O)
 *   txn K       the same, as transactional data of producer 7000 (its transaction stays open)
 *   commit      the COMMIT marker of producer 7000's open transaction (abort: its ABORT marker)
 *   close       stop as a running broker is seen (active segment's indexes preallocated)
 * After each command it prints "ok <log end offset> <segments>" once the bytes are in the files.
 */
final class Tail {
    static void main(File out, String[] args) throws IOException {
        String topic = "stream";
        int segmentBytes = 4096;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--topic": topic = args[++i]; break;
                case "--segment-bytes": segmentBytes = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        PrintStream stdout = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Header[] headers = {Util.h("source", "tail")};
        PartitionWriter w = new PartitionWriter(new File(out, topic + "-0"), segmentBytes, 256, 10 * 1024 * 1024);
        String line;
        int txnSeq = 0;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.equals("close")) break;
            long base = w.logEndOffset;
            if (line.equals("commit") || line.equals("abort")) {
                w.append(MemoryRecords.withEndTransactionMarker(base, Util.T0 + base, 0, 7000L, (short) 0,
                    new EndTransactionMarker(line.equals("commit") ? ControlRecordType.COMMIT : ControlRecordType.ABORT, 1)));
                stdout.println("ok " + w.logEndOffset + " " + w.segments.size());
                continue;
            }
            boolean txn = line.startsWith("txn ");
            if (!txn && !line.startsWith("append ")) throw new IllegalArgumentException("unknown command " + line);
            int k = Integer.parseInt(line.substring(line.indexOf(' ') + 1).trim());
            MemoryRecordsBuilder b = txn
                ? MemoryRecords.builder(java.nio.ByteBuffer.allocate(Math.max(1024, k * 128)), RecordBatch.CURRENT_MAGIC_VALUE,
                    Util.codec("none"), TimestampType.CREATE_TIME, base, RecordBatch.NO_TIMESTAMP, 7000L, (short) 0, txnSeq, true,
                    0)
                : MemoryRecords.builder(java.nio.ByteBuffer.allocate(Math.max(1024, k * 128)),
                    RecordBatch.CURRENT_MAGIC_VALUE, Util.codec("none"), TimestampType.CREATE_TIME, base);
            if (txn) txnSeq += k;
            for (int j = 0; j < k; j++) {
                long o = base + j;
                b.appendWithOffset(o, Util.T0 + o, ("key-" + o).getBytes(StandardCharsets.US_ASCII),
                    ("value " + o).getBytes(StandardCharsets.US_ASCII), headers);
            }
            w.append(b.build());
            stdout.println("ok " + w.logEndOffset + " " + w.segments.size());
        }
        w.close();
        stdout.println("ok " + w.logEndOffset + " " + w.segments.size());
    }
}
