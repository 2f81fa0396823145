import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolAssignmentJsonConverter;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.ConsumerProtocolSubscriptionJsonConverter;
import org.apache.kafka.common.message.KRaftVersionRecord;
import org.apache.kafka.common.message.KRaftVersionRecordJsonConverter;
import org.apache.kafka.common.message.LeaderChangeMessage;
import org.apache.kafka.common.message.LeaderChangeMessageJsonConverter;
import org.apache.kafka.common.message.SnapshotFooterRecord;
import org.apache.kafka.common.message.SnapshotFooterRecordJsonConverter;
import org.apache.kafka.common.message.SnapshotHeaderRecord;
import org.apache.kafka.common.message.SnapshotHeaderRecordJsonConverter;
import org.apache.kafka.common.message.VotersRecord;
import org.apache.kafka.common.message.VotersRecordJsonConverter;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteUtils;

/**
 * Kafka's internal topics (issue 10): records of __consumer_offsets, __transaction_state,
 * __share_group_state, __cluster_metadata (log and snapshot) and __remote_log_metadata.
 *
 * KRaft control records are kafka-clients' own message classes, written with MemoryRecords'
 * control-record builders; the expected decoding is their *JsonConverter's output. The other
 * families have no classes in kafka-clients: their records are built from the field lists of
 * Kafka's message schemas (message-schemas.json, written by scripts/message_specs.py) with
 * Kafka's generic protocol types (Schema, Struct, CompactArrayOf, TaggedFields, ByteUtils), every
 * valid version, once with every nullable field null and every tagged field absent and once with
 * every field set (tagged fields included, plus an unknown tag on flexible top-level messages).
 * The expected decoding is written beside, as JSON lines {"offset", "key_decoded", "value_decoded"}
 * in kafkalog's form (Kafka's field names; UUIDs as Uuid.toString(); bytes in base64).
 */
final class InternalTopics {
    static final int UNKNOWN_TAG = 1000;
    static long seed = 1;
    static final Map<JsonNode, Map<String, Schema>> SCHEMAS = new java.util.IdentityHashMap<>();

    /** message-schemas.json, found on the classpath (scripts/kafka_fixtures.py puts tests/kafka_writer there). */
    static java.net.URL schemaFile() {
        java.net.URL u = InternalTopics.class.getResource("/message-schemas.json");
        if (u == null) throw new IllegalStateException("message-schemas.json is not on the classpath");
        return u;
    }

    static void main(File dir, java.net.URL schemaFile) throws IOException {
        JsonNode schemas = new ObjectMapper().readTree(schemaFile);
        File expected = new File(dir, "expected");
        expected.mkdirs();
        Map<String, String> dirs = new TreeMap<>();
        dirs.put("kafka_group_coordinator_record", "__consumer_offsets-0");
        dirs.put("kafka_transaction_log_record", "__transaction_state-0");
        dirs.put("kafka_share_coordinator_record", "__share_group_state-0");
        for (Map.Entry<String, String> e : dirs.entrySet()) {
            List<Rec> recs = new ArrayList<>();
            for (JsonNode rt : schemas.get("coordinator").get(e.getKey())) coordinator(rt, recs);
            if (e.getKey().equals("kafka_group_coordinator_record")) consumerProtocol(schemas, recs);
            write(dir, e.getValue(), "00000000000000000000.log", recs, expected);
        }
        List<Rec> meta = new ArrayList<>();
        for (JsonNode api : schemas.get("framed").get("kafka_metadata_record")) framed(api, meta);
        List<Rec> control = raftControl(meta.size());
        List<Rec> log = new ArrayList<>(control.subList(0, 3));
        log.addAll(meta);
        write(dir, "__cluster_metadata-0", "00000000000000000000.log", log, expected);
        // A snapshot: header, the metadata records, footer (as KRaft's RecordsSnapshotWriter lays it out).
        List<Rec> snap = new ArrayList<>();
        snap.add(control.get(3));
        for (Rec r : meta) snap.add(r);
        snap.add(control.get(4));
        write(dir, "__cluster_metadata-0", "00000000000000000100-0000000001.checkpoint", snap, expected);
        List<Rec> remote = new ArrayList<>();
        for (JsonNode api : schemas.get("framed").get("kafka_remote_log_metadata_record")) framed(api, remote);
        write(dir, "__remote_log_metadata-0", "00000000000000000000.log", remote, expected);
        write(dir, "__consumer_offsets-1", "00000000000000000000.log", undecodable(), expected);
    }

    /** Small segments for the Web IDE samples: a few offset commits and group records, a few metadata records. */
    static void samples(File dir, java.net.URL schemaFile) throws IOException {
        JsonNode schemas = new ObjectMapper().readTree(schemaFile);
        List<Rec> offsets = new ArrayList<>();
        for (JsonNode rt : schemas.get("coordinator").get("kafka_group_coordinator_record")) {
            int t = rt.get("recordType").asInt();
            if (t == 1 || t == 2) coordinator(rt, offsets);
        }
        offsets.addAll(commits(schemas));
        List<Rec> meta = new ArrayList<>();
        for (JsonNode api : schemas.get("framed").get("kafka_metadata_record")) {
            String n = api.get("message").get("name").asText();
            if (n.equals("TopicRecord") || n.equals("PartitionRecord") || n.equals("FeatureLevelRecord")
                || n.equals("RegisterBrokerRecord")) framed(api, meta);
        }
        write(dir, "__consumer_offsets-0", "00000000000000000000.log", offsets, null);
        write(dir, "__cluster_metadata-0", "00000000000000000000.log", meta, null);
    }

    // ------------------------------------------------------------------ records and their expectations

    /** A record to write: key and value bytes (value null for a tombstone), control type, and the expectation. */
    static final class Rec {
        byte[] key, value;
        Short controlType; // for control records
        ByteBuffer controlBatch; // a whole control batch written by kafka-clients
        String keyJson = "null", valueJson = "null", error;
    }

    static void coordinator(JsonNode rt, List<Rec> out) {
        int recordType = rt.get("recordType").asInt();
        JsonNode key = rt.get("key"), value = rt.get("value");
        int[] vr = versions(value == null ? null : value.get("validVersions").asText());
        for (int v = vr[0]; value != null && v <= vr[1]; v++) {
            for (int variant = 0; variant < 2; variant++) {
                Rec r = new Rec();
                Encoded k = encode(key, recordType, 1, false);
                r.key = prefixed((short) recordType, k.bytes);
                r.keyJson = envelope(key.get("name").asText(), recordType, k.json);
                Encoded e = encode(value, v, variant, variant == 1);
                r.value = prefixed((short) v, e.bytes);
                r.valueJson = envelope(value.get("name").asText(), v, e.json);
                out.add(r);
            }
        }
        // and a tombstone
        Rec t = new Rec();
        Encoded k = encode(key, recordType, 0, false);
        t.key = prefixed((short) recordType, k.bytes);
        t.keyJson = envelope(key.get("name").asText(), recordType, k.json);
        out.add(t);
    }

    static void framed(JsonNode api, List<Rec> out) {
        int apiKey = api.get("apiKey").asInt();
        JsonNode msg = api.get("message");
        int[] vr = versions(msg.get("validVersions").asText());
        for (int v = vr[0]; v <= vr[1]; v++) {
            for (int variant = 0; variant < 2; variant++) {
                Encoded e = encode(msg, v, variant, variant == 1);
                ByteBuffer buf = ByteBuffer.allocate(e.bytes.length + 15);
                ByteUtils.writeUnsignedVarint(1, buf);
                ByteUtils.writeUnsignedVarint(apiKey, buf);
                ByteUtils.writeUnsignedVarint(v, buf);
                buf.put(e.bytes);
                Rec r = new Rec();
                r.value = Arrays.copyOf(buf.array(), buf.position());
                r.valueJson = envelope(msg.get("name").asText(), v, e.json);
                out.add(r);
            }
        }
    }

    /** A consumer group committing offsets as it reads (OffsetCommitValue v3, as Kafka 2.1 to 3.x write it). */
    static List<Rec> commits(JsonNode schemas) {
        JsonNode oc = schemas.get("coordinator").get("kafka_group_coordinator_record").get(1);
        List<Rec> out = new ArrayList<>();
        long[][] commits = {{0, 120}, {1, 95}, {0, 240}, {1, 180}, {0, 360}, {2, 40}};
        for (int i = 0; i < commits.length; i++) {
            Map<String, Object[]> over = new TreeMap<>();
            over.put("group", new Object[] {"billing", Json.quote("billing")});
            over.put("topic", new Object[] {"orders", Json.quote("orders")});
            over.put("partition", new Object[] {(int) commits[i][0], Long.toString(commits[i][0])});
            over.put("offset", new Object[] {commits[i][1], Long.toString(commits[i][1])});
            over.put("leaderEpoch", new Object[] {3, "3"});
            over.put("metadata", new Object[] {"", "\"\""});
            over.put("commitTimestamp", new Object[] {Util.T0 + 5000 * i, Long.toString(Util.T0 + 5000 * i)});
            overrides = over;
            Rec r = new Rec();
            Encoded k = encode(oc.get("key"), 1, 1, false);
            r.key = prefixed((short) 1, k.bytes);
            r.keyJson = envelope("OffsetCommitKey", 1, k.json);
            Encoded e = encode(oc.get("value"), 3, 1, false);
            r.value = prefixed((short) 3, e.bytes);
            r.valueJson = envelope("OffsetCommitValue", 3, e.json);
            overrides = null;
            out.add(r);
        }
        return out;
    }

    /** GroupMetadataValue of a classic consumer group: members' subscription and assignment in the consumer protocol. */
    static void consumerProtocol(JsonNode schemas, List<Rec> out) {
        JsonNode gm = null;
        for (JsonNode rt : schemas.get("coordinator").get("kafka_group_coordinator_record"))
            if (rt.get("recordType").asInt() == 2) gm = rt;
        for (short sv = 0; sv <= ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION; sv++) {
            short av = (short) Math.min(sv, ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION);
            ConsumerProtocolSubscription sub = new ConsumerProtocolSubscription()
                .setTopics(Arrays.asList("orders", "payments")).setUserData(ByteBuffer.wrap(new byte[] {1, 2, 3}))
                .setGenerationId(7).setRackId("rack-" + sv);
            ConsumerProtocolSubscription.TopicPartitionCollection owned = new ConsumerProtocolSubscription.TopicPartitionCollection();
            owned.add(new ConsumerProtocolSubscription.TopicPartition().setTopic("orders").setPartitions(Arrays.asList(0, 2)));
            sub.setOwnedPartitions(owned);
            ConsumerProtocolAssignment asg = new ConsumerProtocolAssignment().setUserData(null);
            ConsumerProtocolAssignment.TopicPartitionCollection parts = new ConsumerProtocolAssignment.TopicPartitionCollection();
            parts.add(new ConsumerProtocolAssignment.TopicPartition().setTopic("orders").setPartitions(Arrays.asList(0, 1)));
            asg.setAssignedPartitions(parts);
            Map<String, Object[]> over = new TreeMap<>();
            over.put("protocolType", new Object[] {"consumer", Json.quote("consumer")});
            over.put("subscription", new Object[] {ByteBuffer.wrap(MessageUtil.toVersionPrefixedBytes(sv, sub)),
                envelope("ConsumerProtocolSubscription", sv, ConsumerProtocolSubscriptionJsonConverter.write(sub, sv).toString())});
            over.put("assignment", new Object[] {ByteBuffer.wrap(MessageUtil.toVersionPrefixedBytes(av, asg)),
                envelope("ConsumerProtocolAssignment", av, ConsumerProtocolAssignmentJsonConverter.write(asg, av).toString())});
            overrides = over;
            int v = Math.min(sv + 1, 4);
            Rec r = new Rec();
            Encoded k = encode(gm.get("key"), 2, 1, false);
            r.key = prefixed((short) 2, k.bytes);
            r.keyJson = envelope("GroupMetadataKey", 2, k.json);
            Encoded e = encode(gm.get("value"), v, 1, false);
            r.value = prefixed((short) v, e.bytes);
            r.valueJson = envelope("GroupMetadataValue", v, e.json);
            overrides = null;
            out.add(r);
        }
    }

    /** KRaft control records with kafka-clients' classes: leader change, kraft.version, voters, snapshot header and footer. */
    static List<Rec> raftControl(int metadataRecords) {
        List<Rec> out = new ArrayList<>();
        LeaderChangeMessage lc = new LeaderChangeMessage().setVersion((short) 0).setLeaderId(1)
            .setVoters(Arrays.asList(new org.apache.kafka.common.message.LeaderChangeMessage.Voter().setVoterId(1),
                new org.apache.kafka.common.message.LeaderChangeMessage.Voter().setVoterId(2)))
            .setGrantingVoters(Arrays.asList(new org.apache.kafka.common.message.LeaderChangeMessage.Voter().setVoterId(2)));
        out.add(control(MemoryRecords.withLeaderChangeMessage(0, Util.T0, 3, ByteBuffer.allocate(256), lc),
            "LeaderChangeMessage", LeaderChangeMessageJsonConverter.write(lc, (short) 0).toString()));
        KRaftVersionRecord kv = new KRaftVersionRecord().setVersion((short) 0).setKRaftVersion((short) 1);
        out.add(control(MemoryRecords.withKRaftVersionRecord(1, Util.T0, 3, ByteBuffer.allocate(256), kv),
            "KRaftVersionRecord", KRaftVersionRecordJsonConverter.write(kv, (short) 0).toString()));
        VotersRecord.Voter voter = new VotersRecord.Voter().setVoterId(1)
            .setVoterDirectoryId(new Uuid(0x1234567890abcdefL, 0x0fedcba987654321L))
            .setKRaftVersionFeature(new VotersRecord.KRaftVersionFeature().setMinSupportedVersion((short) 0).setMaxSupportedVersion((short) 1));
        VotersRecord.EndpointCollection eps = new VotersRecord.EndpointCollection();
        eps.add(new VotersRecord.Endpoint().setName("CONTROLLER").setHost("controller-1.example").setPort(9093));
        voter.setEndpoints(eps);
        VotersRecord vr = new VotersRecord().setVersion((short) 0).setVoters(Arrays.asList(voter));
        out.add(control(MemoryRecords.withVotersRecord(2, Util.T0, 3, ByteBuffer.allocate(512), vr),
            "VotersRecord", VotersRecordJsonConverter.write(vr, (short) 0).toString()));
        SnapshotHeaderRecord sh = new SnapshotHeaderRecord().setVersion((short) 0).setLastContainedLogTimestamp(Util.T0 + 99);
        out.add(control(MemoryRecords.withSnapshotHeaderRecord(0, Util.T0, 3, ByteBuffer.allocate(256), sh),
            "SnapshotHeaderRecord", SnapshotHeaderRecordJsonConverter.write(sh, (short) 0).toString()));
        SnapshotFooterRecord sf = new SnapshotFooterRecord().setVersion((short) 0);
        out.add(control(MemoryRecords.withSnapshotFooterRecord(metadataRecords + 1, Util.T0, 3, ByteBuffer.allocate(256), sf),
            "SnapshotFooterRecord", SnapshotFooterRecordJsonConverter.write(sf, (short) 0).toString()));
        return out;
    }

    static Rec control(MemoryRecords batch, String name, String kafkaJson) {
        Rec r = new Rec();
        r.controlBatch = batch.buffer();
        r.valueJson = envelope(name, 0, kafkaJson);
        return r;
    }

    /** Records whose bytes Kafka's deserializers reject, and what kafkalog must say. */
    static List<Rec> undecodable() {
        List<Rec> out = new ArrayList<>();
        Rec unknown = new Rec();
        unknown.key = prefixed((short) 99, new byte[] {0, 1, 'g'});
        unknown.value = prefixed((short) 0, new byte[0]);
        unknown.error = "unknown record type 99";
        out.add(unknown);
        Rec cut = new Rec();
        ByteBuffer k = ByteBuffer.allocate(64);
        k.putShort((short) 1);
        Type.STRING.write(k, "group");
        Type.STRING.write(k, "topic");
        k.putInt(3);
        cut.key = Arrays.copyOf(k.array(), k.position());
        ByteBuffer v = ByteBuffer.allocate(64);
        v.putShort((short) 3);
        v.putLong(42);
        v.putInt(5);
        cut.value = Arrays.copyOf(v.array(), v.position() + 1); // metadata string length cut short
        cut.error = "OffsetCommitValue version 3: the bytes end before the message does";
        out.add(cut);
        return out;
    }

    // ------------------------------------------------------------------ generic encoding from Kafka's field lists

    static final class Encoded {
        byte[] bytes;
        String json;
    }

    /** Field overrides (name -> {value, expected JSON}) for the next encode, or null. */
    static Map<String, Object[]> overrides;

    /**
     * Encode message `msg` at `version`. variant 0: nullable fields null, tagged fields absent;
     * variant 1: every field set, tagged ones included. `unknownTag`: add a tag no schema knows.
     */
    static Encoded encode(JsonNode msg, int version, int variant, boolean unknownTag) {
        boolean flex = inVersions(msg.get("flexibleVersions").asText(), version);
        Object[] built = struct(msg.get("fields"), version, flex, variant, unknownTag, null);
        Schema schema = (Schema) built[0];
        Struct s = (Struct) built[1];
        ByteBuffer buf = ByteBuffer.allocate(schema.sizeOf(s));
        schema.write(buf, s);
        Encoded e = new Encoded();
        e.bytes = buf.array();
        e.json = (String) built[2];
        return e;
    }

    /** {Schema, Struct, expected JSON} of a struct's fields at `version`. */
    static Object[] struct(JsonNode fields, int version, boolean flex, int variant, boolean unknownTag, Schema reuse) {
        List<Field> schemaFields = new ArrayList<>();
        List<Object[]> values = new ArrayList<>(); // name, value
        StringBuilder json = new StringBuilder("{");
        List<Object> tagDefs = new ArrayList<>();
        TreeMap<Integer, Object> tagValues = new TreeMap<>();
        StringBuilder tagJson = new StringBuilder();
        for (JsonNode f : fields) {
            String name = f.get("name").asText();
            String jname = Character.toLowerCase(name.charAt(0)) + name.substring(1);
            // A tagged field may give only taggedVersions (TransactionLogValue's).
            String versions = f.has("versions") ? text(f, "versions") : text(f, "taggedVersions");
            if (!inVersions(versions, version)) continue;
            boolean tagged = f.has("tag");
            if (tagged && !inVersions(text(f, "taggedVersions"), version)) continue;
            boolean nullable = inVersions(text(f, "nullableVersions"), version);
            boolean fflex = flex || tagged;
            Object[] tv = typeAndValue(f, version, fflex, nullable, variant);
            if (overrides != null && overrides.containsKey(jname)) {
                tv[1] = overrides.get(jname)[0];
                tv[2] = overrides.get(jname)[1];
            }
            if (tagged) {
                int tag = Integer.parseInt(f.get("tag").asText());
                tagDefs.add(tag);
                tagDefs.add(new Field(name, (Type) tv[0]));
                String valueJson = (String) tv[2];
                if (variant == 1) tagValues.put(tag, tv[1]);
                else valueJson = defaultJson(f);
                tagJson.append(',').append(Json.quote(jname)).append(':').append(valueJson);
                continue;
            }
            schemaFields.add(new Field(name, (Type) tv[0]));
            values.add(new Object[] {name, tv[1]});
            if (json.length() > 1) json.append(',');
            json.append(Json.quote(jname)).append(':').append(tv[2]);
        }
        if (tagJson.length() > 0) {
            if (json.length() == 1) json.append(tagJson.substring(1));
            else json.append(tagJson);
        }
        if (flex) {
            if (unknownTag) {
                byte[] data = {(byte) 0xca, (byte) 0xfe};
                tagValues.put(UNKNOWN_TAG, new RawTaggedField(UNKNOWN_TAG, data));
                if (json.length() > 1) json.append(',');
                json.append("\"unknownTaggedFields\":[{\"tag\":" + UNKNOWN_TAG + ",\"data\":\"" + Base64.getEncoder().encodeToString(data) + "\"}]");
            }
            schemaFields.add(new Field("_tagged_fields", TaggedFields.of(tagDefs.toArray())));
            values.add(new Object[] {"_tagged_fields", tagValues});
        }
        json.append('}');
        // A Struct must be built on the very Schema instance its parent's type holds: one Schema per
        // field list, version and flexibility.
        Schema schema = SCHEMAS.computeIfAbsent(fields, k -> new java.util.HashMap<>())
            .computeIfAbsent(version + ":" + flex, k -> new Schema(schemaFields.toArray(new Field[0])));
        Struct s = new Struct(schema);
        for (Object[] nv : values) s.set((String) nv[0], nv[1]);
        return new Object[] {schema, s, json.toString()};
    }

    static final java.util.Map<Schema, Schema> WRAPPERS = new java.util.IdentityHashMap<>();

    /** {Type, value, expected JSON} of one field. */
    static Object[] typeAndValue(JsonNode f, int version, boolean flex, boolean nullable, int variant) {
        String t = f.get("type").asText();
        if (t.startsWith("[]")) {
            String elem = t.substring(2);
            if (nullable && variant == 0) {
                Type at = arrayType(elemType(f, elem, version, flex), flex, true);
                return new Object[] {at, null, "null"};
            }
            Object[] vals = new Object[2];
            StringBuilder json = new StringBuilder("[");
            Type et = null;
            for (int i = 0; i < 2; i++) {
                Object[] e = element(f, elem, version, flex, variant, et instanceof Schema ? (Schema) et : null);
                et = (Type) e[0];
                vals[i] = e[1];
                if (i > 0) json.append(',');
                json.append(e[2]);
            }
            return new Object[] {arrayType(et, flex, nullable), vals, json.append(']').toString()};
        }
        if (nullable && variant == 0 && (t.equals("string") || t.equals("bytes") || f.has("fields"))) {
            if (t.equals("string")) return new Object[] {flex ? Type.COMPACT_NULLABLE_STRING : Type.NULLABLE_STRING, null, "null"};
            if (t.equals("bytes")) return new Object[] {flex ? Type.COMPACT_NULLABLE_BYTES : Type.NULLABLE_BYTES, null, "null"};
        }
        Object[] e = element(f, t, version, flex, variant, null);
        if (nullable && e[0] instanceof Schema) {
            // A nullable struct is written after a presence marker, 1 when present: an int8 (negative
            // for null), or in a tagged field an unsigned varint (0 for null), as Kafka's generated
            // write() does (the byte is 0x01 either way).
            // one wrapper per struct schema: the parent's cached Schema holds it
            Schema wrapper = WRAPPERS.computeIfAbsent((Schema) e[0],
                k -> new Schema(new Field("_present", Type.INT8), new Field("_struct", k)));
            Struct w = new Struct(wrapper);
            w.set("_present", (byte) 1);
            w.set("_struct", e[1]);
            return new Object[] {wrapper, w, e[2]};
        }
        if (t.equals("string") && nullable) e[0] = flex ? Type.COMPACT_NULLABLE_STRING : Type.NULLABLE_STRING;
        if (t.equals("bytes") && nullable) e[0] = flex ? Type.COMPACT_NULLABLE_BYTES : Type.NULLABLE_BYTES;
        return e;
    }

    static Type arrayType(Type elem, boolean flex, boolean nullable) {
        if (flex) return nullable ? CompactArrayOf.nullable(elem) : new CompactArrayOf(elem);
        return nullable ? ArrayOf.nullable(elem) : new ArrayOf(elem);
    }

    static Type elemType(JsonNode f, String t, int version, boolean flex) {
        return (Type) element(f, t, version, flex, 0, null)[0];
    }

    /** {Type, value, expected JSON} of one value of type t (not an array). */
    static Object[] element(JsonNode f, String t, int version, boolean flex, int variant, Schema reuse) {
        long x = seed++;
        switch (t) {
            case "int8": return new Object[] {Type.INT8, (byte) (x % 100), Long.toString(x % 100)};
            case "int16": return new Object[] {Type.INT16, (short) (x * 3 % 30000), Long.toString(x * 3 % 30000)};
            case "int32": return new Object[] {Type.INT32, (int) (x * 7), Long.toString(x * 7)};
            case "int64": return new Object[] {Type.INT64, x * 1000003L + Util.T0, Long.toString(x * 1000003L + Util.T0)};
            case "uint16": return new Object[] {Type.UINT16, (int) (x * 11 % 65536), Long.toString(x * 11 % 65536)};
            case "uint32": return new Object[] {Type.UNSIGNED_INT32, x * 13L + 3_000_000_000L, Long.toString(x * 13L + 3_000_000_000L)};
            case "float64": return new Object[] {Type.FLOAT64, x + 0.5, Double.toString(x + 0.5)};
            case "bool": return new Object[] {Type.BOOLEAN, x % 2 == 1, Boolean.toString(x % 2 == 1)};
            case "uuid": {
                Uuid u = new Uuid(0x0123456789abcdefL ^ (x << 32), x * 0x9e3779b97f4a7c15L);
                return new Object[] {Type.UUID, u, Json.quote(u.toString())};
            }
            case "string": {
                String s = f.get("name").asText().toLowerCase() + "-" + x + (x % 5 == 0 ? "-\u00e9\u4e2d" : "");
                return new Object[] {flex ? Type.COMPACT_STRING : Type.STRING, s, Json.quote(s)};
            }
            case "bytes": {
                byte[] b = {(byte) x, (byte) (x >> 8), (byte) 0xff};
                return new Object[] {flex ? Type.COMPACT_BYTES : Type.BYTES, ByteBuffer.wrap(b),
                    Json.quote(Base64.getEncoder().encodeToString(b))};
            }
            default: {
                return struct(f.get("fields"), version, flex, variant, false, reuse);
            }
        }
    }

    static String defaultJson(JsonNode f) {
        String t = f.get("type").asText();
        String d = f.has("default") ? f.get("default").asText() : null;
        if ("null".equals(d)) return "null";
        if (t.startsWith("[]")) return "[]";
        switch (t) {
            case "bool": return Boolean.toString("true".equalsIgnoreCase(d));
            case "string": return Json.quote(d == null ? "" : d);
            case "uuid": return Json.quote(Uuid.ZERO_UUID.toString());
            case "bytes": return "\"\"";
            case "float64": return Double.toString(d == null || d.isEmpty() ? 0.0 : Double.parseDouble(d));
            case "int8": case "int16": case "int32": case "int64": case "uint16": case "uint32":
                if (d == null || d.isEmpty()) return "0";
                return Long.toString(d.startsWith("0x") ? Long.parseLong(d.substring(2), 16) : Long.parseLong(d));
            default: return "null";
        }
    }

    static String text(JsonNode f, String k) {
        return f.has(k) ? f.get(k).asText() : null;
    }

    static int[] versions(String s) {
        if (s == null) return new int[] {0, -1};
        String[] p = s.split("-");
        return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[p.length - 1])};
    }

    static boolean inVersions(String spec, int v) {
        if (spec == null || spec.equals("none")) return false;
        if (spec.endsWith("+")) return v >= Integer.parseInt(spec.substring(0, spec.length() - 1));
        int[] r = versions(spec);
        return r[0] <= v && v <= r[1];
    }

    static byte[] prefixed(short version, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(body.length + 2);
        b.putShort(version);
        b.put(body);
        return b.array();
    }

    static String envelope(String type, int version, String data) {
        return "{\"type\":" + Json.quote(type) + ",\"version\":" + version + ",\"data\":" + data + "}";
    }

    // ------------------------------------------------------------------ files

    /** Write `recs` into dir/partition/file, ten data records a batch, control records in their own batches. */
    static void write(File dir, String partition, String file, List<Rec> recs, File expectedDir) throws IOException {
        List<MemoryRecords> parts = new ArrayList<>();
        StringBuilder expected = new StringBuilder();
        long offset = 0;
        List<Util.Rec> pending = new ArrayList<>();
        for (Rec r : recs) {
            if (r.controlBatch != null) {
                if (!pending.isEmpty()) { parts.add(Util.build(Util.spec(), pending)); pending = new ArrayList<>(); }
                // Rewrite the control batch's base offset to this position in the log.
                ByteBuffer b = ByteBuffer.allocate(r.controlBatch.remaining());
                b.put(r.controlBatch.duplicate());
                b.flip();
                MemoryRecords m = MemoryRecords.readableRecords(b);
                m.batches().iterator().next().setLastOffset(offset);
                parts.add(m);
            } else {
                pending.add(Util.rec(offset, Util.T0 + offset, r.key, r.value));
                if (pending.size() == 10) { parts.add(Util.build(Util.spec(), pending)); pending = new ArrayList<>(); }
            }
            expected.append("{\"offset\":").append(offset).append(",\"key_decoded\":").append(r.keyJson)
                .append(",\"value_decoded\":").append(r.valueJson)
                .append(",\"error\":").append(r.error == null ? "null" : Json.quote(r.error)).append("}\n");
            offset++;
        }
        if (!pending.isEmpty()) parts.add(Util.build(Util.spec(), pending));
        Util.writeLog(new File(new File(dir, partition), file), parts);
        if (expectedDir != null)
            Files.write(new File(expectedDir, partition + "-" + file + ".jsonl").toPath(),
                expected.toString().getBytes(StandardCharsets.UTF_8));
    }
}
