import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;

/**
 * Segments whose keys and values are the byte strings on stdin (one a line, in hex), written with Kafka's own
 * MemoryRecords and FileRecords (kafka-clients 3.9.2: 4.4 moved them): OUT/utf8-v2-0 (v2 batches of 20 records, uncompressed and gzip in turn) and
 * OUT/utf8-v1-0 (v1 messages, uncompressed, and gzip wrappers of 20). Record i has case i as its key and case
 * i + 1 as its value. Usage: Utf8Segments OUT_DIR < cases
 */
public class Utf8Segments {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        HexFormat hex = HexFormat.of();
        List<byte[]> cases = new ArrayList<>();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            cases.add(hex.parseHex(line.trim()));
        }
        write(new File(args[0], "utf8-v2-0"), RecordBatch.MAGIC_VALUE_V2, cases);
        write(new File(args[0], "utf8-v1-0"), RecordBatch.MAGIC_VALUE_V1, cases);
    }

    static void write(File dir, byte magic, List<byte[]> cases) throws Exception {
        dir.mkdirs();
        FileRecords log = FileRecords.open(new File(dir, "00000000000000000000.log"));
        long offset = 0;
        for (int start = 0, n = 0; start + 1 < cases.size(); start += 20, n++) {
            List<SimpleRecord> records = new ArrayList<>();
            for (int i = start; i < Math.min(start + 20, cases.size() - 1); i++) {
                records.add(new SimpleRecord(1700000000000L + i, cases.get(i), cases.get(i + 1)));
            }
            Compression c = n % 2 == 1 ? Compression.gzip().build() : Compression.NONE;
            log.append(MemoryRecords.withRecords(magic, offset, c, TimestampType.CREATE_TIME,
                                                 records.toArray(new SimpleRecord[0])));
            offset += records.size();
        }
        log.close();
    }
}
