import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.KRaftVersionRecordJsonConverter;
import org.apache.kafka.common.message.SnapshotFooterRecordJsonConverter;
import org.apache.kafka.common.message.SnapshotHeaderRecordJsonConverter;
import org.apache.kafka.common.message.VotersRecordJsonConverter;
import org.apache.kafka.common.record.AbstractLegacyRecordBatch;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.ControlRecordUtils;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.utils.Utils;

/**
 * What `kafka-dump-log.sh --deep-iteration --print-data-log --files FILE` prints for a record-batch file,
 * for the tests of `kafkalog dump --format kafka`.
 *
 * The broker's tool (kafka.tools.DumpLogSegments, Scala, in kafka core) is not in kafka-clients, so its
 * dumpLog and printBatchLevel of Kafka 3.9 are transcribed here statement for statement, over kafka-clients'
 * own reading of the file (FileRecords, its batches and records, ControlRecordUtils and the
 * *JsonConverter classes). Where the tool would die with an exception, this prints
 * "EXCEPTION: <message>" and stops. For a file whose name does not start with an offset the tool
 * throws NumberFormatException; this leaves the "Log starting offset" line out instead.
 *
 * Usage: java -cp kafka-clients.jar:jackson-*.jar:... DumpLogReference FILE [MAX_BYTES]
 */
public final class DumpLogReference {
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        File file = new File(args[0]);
        int maxBytes = args.length > 1 ? Integer.parseInt(args[1]) : Integer.MAX_VALUE;
        out.print("Dumping " + file + "\n");
        try {
            dumpLog(file, maxBytes, out);
        } catch (Exception e) {
            out.print("EXCEPTION: " + e.getMessage() + "\n");
        }
        out.flush();
    }

    static void dumpLog(File file, int maxBytes, PrintStream out) throws Exception {
        String stem = file.getName().split("\\.")[0];
        if (file.getName().endsWith(".log") && stem.matches("\\d+"))
            out.print("Log starting offset: " + Long.parseLong(stem) + "\n");
        FileRecords fileRecords = FileRecords.open(file, false).slice(0, maxBytes);
        try {
            long validBytes = 0L;
            for (FileChannelRecordBatch batch : fileRecords.batches()) {
                printBatchLevel(batch, validBytes, out);
                for (Record record : batch) {
                    StringBuilder line = new StringBuilder();
                    String prefix = "| ";
                    line.append(prefix + "offset: " + record.offset() + " " + batch.timestampType() + ": "
                        + record.timestamp() + " keySize: " + record.keySize() + " valueSize: " + record.valueSize());
                    prefix = " ";
                    if (batch.magic() >= RecordBatch.MAGIC_VALUE_V2) {
                        List<String> keys = new ArrayList<>();
                        for (Header h : record.headers()) keys.add(h.key());
                        line.append(" sequence: " + record.sequence() + " headerKeys: [" + String.join(",", keys) + "]");
                    }
                    if (record instanceof AbstractLegacyRecordBatch) {
                        AbstractLegacyRecordBatch r = (AbstractLegacyRecordBatch) record;
                        line.append(" isValid: " + r.isValid() + " crc: " + r.checksum() + "}");
                    }
                    if (batch.isControlBatch()) {
                        short controlTypeId = ControlRecordType.parseTypeId(record.key());
                        ControlRecordType type = ControlRecordType.fromTypeId(controlTypeId);
                        switch (type) {
                            case ABORT:
                            case COMMIT: {
                                EndTransactionMarker m = EndTransactionMarker.deserialize(record);
                                line.append(" endTxnMarker: " + m.controlType() + " coordinatorEpoch: " + m.coordinatorEpoch());
                                break;
                            }
                            case SNAPSHOT_HEADER: {
                                var header = ControlRecordUtils.deserializeSnapshotHeaderRecord(record);
                                line.append(" SnapshotHeader " + SnapshotHeaderRecordJsonConverter.write(header, header.version()));
                                break;
                            }
                            case SNAPSHOT_FOOTER: {
                                var footer = ControlRecordUtils.deserializeSnapshotFooterRecord(record);
                                line.append(" SnapshotFooter " + SnapshotFooterRecordJsonConverter.write(footer, footer.version()));
                                break;
                            }
                            case KRAFT_VERSION: {
                                var v = ControlRecordUtils.deserializeKRaftVersionRecord(record);
                                line.append(" KRaftVersion " + KRaftVersionRecordJsonConverter.write(v, v.version()));
                                break;
                            }
                            case KRAFT_VOTERS: {
                                var v = ControlRecordUtils.deserializeVotersRecord(record);
                                line.append(" KRaftVoters " + VotersRecordJsonConverter.write(v, v.version()));
                                break;
                            }
                            default:
                                line.append(" controlType: " + type + "(" + controlTypeId + ")");
                        }
                    }
                    if (!batch.isControlBatch()) {
                        if (record.hasKey()) {
                            line.append(prefix + "key: " + new String(Utils.readBytes(record.key()), StandardCharsets.UTF_8));
                            prefix = " ";
                        }
                        if (record.hasValue())
                            line.append(" payload: " + new String(Utils.readBytes(record.value()), StandardCharsets.UTF_8));
                    }
                    out.print(line + "\n");
                }
                validBytes += batch.sizeInBytes();
            }
            long trailingBytes = fileRecords.sizeInBytes() - validBytes;
            if (trailingBytes > 0 && maxBytes == Integer.MAX_VALUE)
                out.print("Found " + trailingBytes + " invalid bytes at the end of " + file.getName() + "\n");
        } finally {
            fileRecords.closeHandlers();
        }
    }

    static void printBatchLevel(FileChannelRecordBatch batch, long accumulativeBytes, PrintStream out) {
        StringBuilder line = new StringBuilder();
        if (batch.magic() >= RecordBatch.MAGIC_VALUE_V2)
            line.append("baseOffset: " + batch.baseOffset() + " lastOffset: " + batch.lastOffset() + " count: " + batch.countOrNull()
                + " baseSequence: " + batch.baseSequence() + " lastSequence: " + batch.lastSequence()
                + " producerId: " + batch.producerId() + " producerEpoch: " + batch.producerEpoch()
                + " partitionLeaderEpoch: " + batch.partitionLeaderEpoch() + " isTransactional: " + batch.isTransactional()
                + " isControl: " + batch.isControlBatch() + " deleteHorizonMs: " + batch.deleteHorizonMs());
        else
            line.append("offset: " + batch.lastOffset());
        line.append(" position: " + accumulativeBytes + " " + batch.timestampType() + ": " + batch.maxTimestamp()
            + " size: " + batch.sizeInBytes() + " magic: " + batch.magic()
            + " compresscodec: " + batch.compressionType().name + " crc: " + batch.checksum() + " isvalid: " + batch.isValid());
        out.print(line + "\n");
    }
}
