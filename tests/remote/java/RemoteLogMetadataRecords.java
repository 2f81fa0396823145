import java.io.FileOutputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;

/**
 * Writes a `__remote_log_metadata` segment: for each remote segment, its COPY_SEGMENT_FINISHED metadata as the
 * broker's TopicBasedRemoteLogMetadataManager writes it (Kafka's RemoteLogMetadataSerde), with the custom
 * metadata Aiven's remote storage manager returns (its SegmentCustomMetadataField schema: a Kafka tagged-fields
 * section of remote_size, object_prefix and object_key, built with Kafka's own types).
 *
 * Arguments: OUT.log, then per segment: topic partition topicId segmentId start end size prefix key
 */
public class RemoteLogMetadataRecords {
    static final Schema CUSTOM_METADATA = new Schema(Field.TaggedFieldsSection.of(
        0, new Field("remote_size", Type.VARLONG),
        1, new Field("object_prefix", Type.COMPACT_STRING),
        2, new Field("object_key", Type.COMPACT_STRING)));

    public static void main(String[] args) throws Exception {
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        int n = (args.length - 1) / 9;
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            int a = 1 + i * 9;
            TopicIdPartition tip = new TopicIdPartition(Uuid.fromString(args[a + 2]),
                new TopicPartition(args[a], Integer.parseInt(args[a + 1])));
            RemoteLogSegmentId id = new RemoteLogSegmentId(tip, Uuid.fromString(args[a + 3]));
            long start = Long.parseLong(args[a + 4]);
            long end = Long.parseLong(args[a + 5]);
            int size = Integer.parseInt(args[a + 6]);
            TreeMap<Integer, Object> fields = new TreeMap<>();
            fields.put(0, (long) size);
            fields.put(1, args[a + 7]);
            fields.put(2, args[a + 8]);
            Struct struct = new Struct(CUSTOM_METADATA);
            struct.set(CUSTOM_METADATA.fields()[0].def.name, fields);
            ByteBuffer buf = ByteBuffer.allocate(struct.sizeOf());
            struct.writeTo(buf);
            Map<Integer, Long> epochs = Map.of(0, start);
            RemoteLogSegmentMetadata metadata = new RemoteLogSegmentMetadata(id, start, end, 1700000000000L, 1,
                1700000000000L, size, Optional.of(new CustomMetadata(buf.array())),
                RemoteLogSegmentState.COPY_SEGMENT_FINISHED, epochs);
            records[i] = new SimpleRecord(1700000000000L + i, null, serde.serialize(metadata));
        }
        MemoryRecords memory = MemoryRecords.withRecords(Compression.NONE, records);
        try (FileOutputStream out = new FileOutputStream(args[0])) {
            out.getChannel().write(memory.buffer());
        }
    }
}
