import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

/**
 * A partition OUTDIR/TOPIC-0 of the keys and values given on stdin, written by Kafka's MemoryRecordsBuilder
 * through PartitionWriter: for tests of what a reader makes of values it is given (registry values, issue 30).
 * One record a line, "KEY VALUE", each base64 or "-" for null; an empty line ends the batch being built (a
 * batch holds the lines since the previous one). Options: --topic T (default "values"), --codec C.
 */
final class Values {
    static void main(File out, String[] args) throws IOException {
        String topic = "values";
        String codec = "none";
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--topic": topic = args[++i]; break;
                case "--codec": codec = args[++i]; break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        PartitionWriter w = new PartitionWriter(new File(out, topic + "-0"), 64 * 1024 * 1024, 4096, 10 * 1024 * 1024);
        MemoryRecordsBuilder b = null;
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) {
                if (b != null) w.append(b.build());
                b = null;
                continue;
            }
            String[] parts = line.split(" ");
            byte[] key = parts[0].equals("-") ? null : Base64.getDecoder().decode(parts[0]);
            byte[] value = parts[1].equals("-") ? null : Base64.getDecoder().decode(parts[1]);
            if (b == null) {
                int size = 1024 + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
                b = MemoryRecords.builder(ByteBuffer.allocate(Math.max(size * 4, 1 << 20)), RecordBatch.CURRENT_MAGIC_VALUE,
                    Util.codec(codec), TimestampType.CREATE_TIME, w.logEndOffset);
            }
            long o = w.logEndOffset + b.numRecords();
            b.appendWithOffset(o, Util.T0 + o, key, value, new Header[0]);
        }
        if (b != null) w.append(b.build());
        w.close();
    }
}
