import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes the broker scenarios with Kafka's own clients, and reads them back as a consumer.
 *
 * Usage: java Scenarios BOOTSTRAP STEP [ARGS...] [-- STEP [ARGS...]]...
 * Steps:
 *   topic NAME PARTITIONS [k=v ...]              create a topic with these configs
 *   alter-topic NAME k=v ...                      incrementally alter a topic's configs
 *   produce TOPIC CODEC SMALL LARGE [plain|idempotent] [value-bytes] [noheaders]
 *                                                 SMALL batches of one record each, then LARGE records in big batches
 *   txn TOPIC                                     committed and aborted transactions, then a producer fenced by an epoch bump
 *   rounds TOPIC ROUNDS PER-ROUND SLEEP-MS KEYS [tombstones]
 *                                                 keyed rounds with pauses (segment.ms rolls, compaction)
 *   group GROUP PROTOCOL TOPIC                     a consumer group (classic|consumer) reads TOPIC and commits
 *   consume OUTDIR TOPIC...                        every partition, read_uncommitted and read_committed, as JSON lines
 *   compaction-tail TOPIC                          a producer's only record superseded by another producer's
 *                                                 (the cleaner keeps its batch empty), then a write that rolls the segment
 *   produce-forever TOPIC [ACKS]                   produce until killed (for the unclean shutdown), printing "acked N"
 *   topic-assigned NAME BROKER,BROKER,... [k=v ...] a topic of one partition on these replicas (the first leads)
 *   send TOPIC ACKS N                              N records with acks ACKS (0, 1 or all), every one acknowledged
 *   wait-isr TOPIC PARTITION SIZE                  until the partition's ISR has SIZE replicas
 *   wait-leader TOPIC PARTITION BROKER [unclean]   until BROKER leads the partition (an unclean election asked for)
 *   delete-records TOPIC PARTITION OFFSET          Admin.deleteRecords before OFFSET
 *   commit GROUP TOPIC PARTITION OFFSET           Admin.alterConsumerGroupOffsets: the group's committed offset
 *   describe OUT TOPIC...                          each partition's leader, replicas, ISR and ELR, a JSON line each
 *   txn-open TOPIC N                               a transaction of N records left open: the JVM halts before it ends
 *                                                 (the last step of its run; the coordinator aborts it after 15 minutes)
 *   sleep MS
 * Other steps (share groups) are in ShareSteps.java, compiled only against clients that have them.
 */
public class Scenarios {
    static String bootstrap;

    public static void main(String[] args) throws Exception {
        bootstrap = args[0];
        List<String> step = new ArrayList<>();
        for (int i = 1; i <= args.length; i++) {
            if (i == args.length || args[i].equals("--")) {
                if (!step.isEmpty()) run(step);
                step = new ArrayList<>();
            } else {
                step.add(args[i]);
            }
        }
    }

    static void run(List<String> s) throws Exception {
        String name = s.get(0);
        System.err.println("step: " + String.join(" ", s));
        switch (name) {
            case "topic": topic(s); break;
            case "alter-topic": alterTopic(s); break;
            case "produce": produce(s); break;
            case "txn": txn(s.get(1)); break;
            case "rounds": rounds(s); break;
            case "group": group(s.get(1), s.get(2), s.get(3)); break;
            case "consume": consume(Paths.get(s.get(1)), s.subList(2, s.size())); break;
            case "committed": committed(Paths.get(s.get(1)), s.subList(2, s.size())); break;
            case "produce-forever": produceForever(s.get(1), s.size() > 2 ? s.get(2) : "all"); break;
            case "topic-assigned": topicAssigned(s); break;
            case "send": send(s.get(1), s.get(2), Integer.parseInt(s.get(3))); break;
            case "wait-isr": waitIsr(s.get(1), Integer.parseInt(s.get(2)), Integer.parseInt(s.get(3))); break;
            case "wait-leader": waitLeader(s.get(1), Integer.parseInt(s.get(2)), Integer.parseInt(s.get(3)),
                                           s.size() > 4 && s.get(4).equals("unclean")); break;
            case "delete-records": deleteRecords(s.get(1), Integer.parseInt(s.get(2)), Long.parseLong(s.get(3))); break;
            case "commit": commit(s.get(1), s.get(2), Integer.parseInt(s.get(3)), Long.parseLong(s.get(4))); break;
            case "describe": describe(Paths.get(s.get(1)), s.subList(2, s.size())); break;
            case "compaction-tail": compactionTail(s.get(1)); break;
            case "sleep": Thread.sleep(Long.parseLong(s.get(1))); break;
            case "txn-open": txnOpen(s.get(1), Integer.parseInt(s.get(2))); break;
            case "commit-aborted": commitAborted(s.get(1), s.get(2), Integer.parseInt(s.get(3)), Long.parseLong(s.get(4))); break;
            case "reassign": reassign(s.get(1), Integer.parseInt(s.get(2)), s.get(3)); break;
            case "delete-topic": deleteTopic(s.get(1)); break;
            case "wait-reassigned": waitReassigned(s.get(1), Integer.parseInt(s.get(2))); break;
            default:
                // share steps live in ShareSteps (4.x clients only), found by reflection so this file
                // compiles against 3.9's clients too
                Class.forName("ShareSteps").getMethod("run", String.class, List.class).invoke(null, bootstrap, s);
        }
    }

    static Properties common() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return p;
    }

    static Admin admin() {
        return Admin.create(common());
    }

    static Map<String, String> configs(List<String> kvs) {
        Map<String, String> m = new HashMap<>();
        for (String kv : kvs) {
            int eq = kv.indexOf('=');
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return m;
    }

    static void topic(List<String> s) throws Exception {
        try (Admin a = admin()) {
            NewTopic t = new NewTopic(s.get(1), Integer.parseInt(s.get(2)), (short) 1).configs(configs(s.subList(3, s.size())));
            a.createTopics(List.of(t)).all().get();
        }
    }

    static void alterTopic(List<String> s) throws Exception {
        try (Admin a = admin()) {
            List<AlterConfigOp> ops = new ArrayList<>();
            for (Map.Entry<String, String> e : configs(s.subList(2, s.size())).entrySet())
                ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
            a.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, s.get(1)), ops)).all().get();
        }
    }

    static KafkaProducer<byte[], byte[]> producer(Properties extra) {
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.putAll(extra);
        return new KafkaProducer<>(p);
    }

    static final String WORDS = "apple banana cherry damson elder fig grape hazel ";

    static byte[] value(Random r, int n, int bytes) {
        StringBuilder b = new StringBuilder("record " + n + " ");
        while (b.length() < bytes) b.append(WORDS, r.nextInt(20), 20 + r.nextInt(28)).append(r.nextInt(1000));
        return b.substring(0, bytes).getBytes(StandardCharsets.UTF_8);
    }

    static boolean withHeaders = true;  // magic 0 and 1 messages have no headers

    static ProducerRecord<byte[], byte[]> record(String topic, Integer partition, Random r, int n, int bytes) {
        byte[] key = n % 7 == 3 ? null : ("key-" + (n % 50)).getBytes(StandardCharsets.UTF_8);
        byte[] val = n % 11 == 5 ? null : value(r, n, bytes);
        List<Header> headers = new ArrayList<>();
        if (!withHeaders) return new ProducerRecord<>(topic, partition, null, key, val);
        if (n % 3 == 0) headers.add(new RecordHeader("n", Integer.toString(n).getBytes(StandardCharsets.UTF_8)));
        if (n % 5 == 0) headers.add(new RecordHeader("null-header", null));
        return new ProducerRecord<>(topic, partition, null, key, val, headers);
    }

    static void produce(List<String> s) throws Exception {
        String topic = s.get(1);
        String codec = s.get(2);
        int small = Integer.parseInt(s.get(3));
        int large = Integer.parseInt(s.get(4));
        boolean idempotent = s.size() <= 5 || s.get(5).equals("idempotent");
        int bytes = s.size() > 6 ? Integer.parseInt(s.get(6)) : 100;
        withHeaders = !(s.size() > 7 && s.get(7).equals("noheaders"));
        Properties p = new Properties();
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(idempotent));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "50");
        Random r = new Random(topic.hashCode());
        int n = 0;
        try (KafkaProducer<byte[], byte[]> pr = producer(p)) {
            for (int i = 0; i < small; i++, n++) {
                pr.send(record(topic, null, r, n, bytes)).get();
            }
            for (int i = 0; i < large; i++, n++) pr.send(record(topic, null, r, n, bytes));
            pr.flush();
        }
    }

    static void txn(String topic) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "txn-" + topic);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        Random r = new Random(7);
        int n = 0;
        KafkaProducer<byte[], byte[]> a = producer(p);
        a.initTransactions();
        for (int t = 0; t < 6; t++) {
            a.beginTransaction();
            for (int i = 0; i < 10; i++, n++) a.send(record(topic, n % 2, r, n, 60));
            if (t % 3 == 1) a.abortTransaction(); else a.commitTransaction();
        }
        // leave a transaction open, then fence the producer: a second one with the same
        // transactional.id bumps the epoch, and the coordinator aborts the open transaction
        a.beginTransaction();
        for (int i = 0; i < 5; i++, n++) a.send(record(topic, n % 2, r, n, 60));
        a.flush();
        KafkaProducer<byte[], byte[]> b = producer(p);
        b.initTransactions();
        try {
            a.send(record(topic, 0, r, n++, 60)).get();
            a.commitTransaction();
            throw new IllegalStateException("the first producer was not fenced");
        } catch (ProducerFencedException | ExecutionException | IllegalStateException e) {
            if (e instanceof IllegalStateException && e.getMessage().startsWith("the first")) throw e;
            System.err.println("fenced as expected: " + e);
        } catch (org.apache.kafka.common.KafkaException e) {
            System.err.println("fenced as expected: " + e);
        }
        a.close(Duration.ZERO);
        b.beginTransaction();
        for (int i = 0; i < 6; i++, n++) b.send(record(topic, n % 2, r, n, 60));
        b.commitTransaction();
        b.close();
    }

    static void rounds(List<String> s) throws Exception {
        String topic = s.get(1);
        int rounds = Integer.parseInt(s.get(2));
        int per = Integer.parseInt(s.get(3));
        long sleep = Long.parseLong(s.get(4));
        int keys = Integer.parseInt(s.get(5));
        boolean tombstones = s.size() > 6 && s.get(6).equals("tombstones");
        Random r = new Random(topic.hashCode());
        int n = 0;
        Properties p = new Properties();
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<byte[], byte[]> pr = producer(p)) {
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < per; i++, n++) {
                    byte[] key = ("k" + (n % keys)).getBytes(StandardCharsets.UTF_8);
                    byte[] val = tombstones && round % 2 == 1 && n % 3 == 0 ? null : value(r, n, 80);
                    pr.send(new ProducerRecord<>(topic, null, null, key, val));
                }
                pr.flush();
                Thread.sleep(sleep);
            }
        }
    }

    static void group(String group, String protocol, String topic) throws Exception {
        Properties p = common();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
        if (!protocol.equals("classic")) p.put("group.protocol", protocol);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            int got = 0, commits = 0;
            long deadline = System.currentTimeMillis() + 60000;
            while (commits < 3 && System.currentTimeMillis() < deadline) {
                got += c.poll(Duration.ofMillis(500)).count();
                if (got > 0) { c.commitSync(); commits++; }
            }
            if (commits == 0) throw new IllegalStateException("group " + group + " read nothing from " + topic);
        }
    }

    static KafkaConsumer<byte[], byte[]> plainConsumer(String isolation) {
        Properties p = common();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "4194304");
        return new KafkaConsumer<>(p);
    }

    static void consume(Path out, List<String> topics) throws Exception {
        List<TopicPartition> tps = new ArrayList<>();
        try (Admin a = admin()) {
            for (TopicDescription d : a.describeTopics(topics).allTopicNames().get().values())
                for (var pi : d.partitions()) tps.add(new TopicPartition(d.name(), pi.partition()));
        }
        for (String isolation : List.of("read_uncommitted", "read_committed")) {
            Files.createDirectories(out.resolve(isolation));
            try (KafkaConsumer<byte[], byte[]> c = plainConsumer(isolation)) {
                for (TopicPartition tp : tps) {
                    c.assign(List.of(tp));
                    c.seekToBeginning(List.of(tp));
                    long end = c.endOffsets(List.of(tp)).get(tp);
                    long start = c.beginningOffsets(List.of(tp)).get(tp);
                    Path f = out.resolve(isolation).resolve(tp.topic() + "-" + tp.partition() + ".json");
                    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(f))) {
                        w.println("{\"log_start_offset\":" + start + ",\"end_offset\":" + end + "}");
                        long deadline = System.currentTimeMillis() + 60000;
                        while (c.position(tp) < end) {
                            if (System.currentTimeMillis() > deadline)
                                throw new IllegalStateException(tp + ": stuck at " + c.position(tp) + " of " + end);
                            for (ConsumerRecord<byte[], byte[]> rec : c.poll(Duration.ofMillis(200))) w.println(json(rec));
                        }
                    }
                }
            }
        }
    }

    /** The group coordinator's committed offsets of each group (Admin.listConsumerGroupOffsets), a JSON line each. */
    static void committed(Path out, List<String> groups) throws Exception {
        try (Admin a = admin(); PrintWriter w = new PrintWriter(Files.newBufferedWriter(out))) {
            for (String g : groups) {
                for (var e : a.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata().get().entrySet()) {
                    if (e.getValue() == null) continue;
                    w.println("{\"group\":\"" + g + "\",\"topic\":\"" + e.getKey().topic() + "\",\"partition\":"
                              + e.getKey().partition() + ",\"offset\":" + e.getValue().offset() + "}");
                }
            }
        }
    }

    static String b64(byte[] b) {
        return b == null ? "null" : "\"" + Base64.getEncoder().encodeToString(b) + "\"";
    }

    static String json(ConsumerRecord<byte[], byte[]> r) {
        StringBuilder b = new StringBuilder();
        b.append("{\"offset\":").append(r.offset())
         .append(",\"timestamp\":").append(r.timestamp())
         .append(",\"timestamp_type\":\"").append(r.timestampType().name()).append('"')
         .append(",\"key\":").append(b64(r.key()))
         .append(",\"value\":").append(b64(r.value()))
         .append(",\"leader_epoch\":").append(r.leaderEpoch().orElse(-1))
         .append(",\"headers\":[");
        boolean first = true;
        for (Header h : r.headers()) {
            if (!first) b.append(',');
            first = false;
            b.append("[").append(b64(h.key().getBytes(StandardCharsets.UTF_8))).append(',').append(b64(h.value())).append(']');
        }
        return b.append("]}").toString();
    }

    static void compactionTail(String topic) throws Exception {
        byte[] k0 = "k0".getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<byte[], byte[]> p3 = producer(new Properties())) {
            p3.send(new ProducerRecord<>(topic, k0, "superseded".getBytes(StandardCharsets.UTF_8))).get();
        }
        try (KafkaProducer<byte[], byte[]> p4 = producer(new Properties())) {
            p4.send(new ProducerRecord<>(topic, k0, "latest".getBytes(StandardCharsets.UTF_8))).get();
            Thread.sleep(400);
            p4.send(new ProducerRecord<>(topic, "z".getBytes(StandardCharsets.UTF_8), "rolls".getBytes(StandardCharsets.UTF_8))).get();
        }
    }

    static void produceForever(String topic, String acks) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        if (!acks.equals("all")) p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "1");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        Random r = new Random(3);
        try (KafkaProducer<byte[], byte[]> pr = producer(p)) {
            for (int n = 0; ; n++) {
                pr.send(record(topic, null, r, n, 200));
                if (n % 500 == 0) {
                    pr.flush();  // every record before n is acknowledged: written by the broker
                    System.out.println("acked " + n);
                    System.out.flush();
                }
            }
        }
    }

    static void topicAssigned(List<String> s) throws Exception {
        List<Integer> replicas = new ArrayList<>();
        for (String b : s.get(2).split(",")) replicas.add(Integer.parseInt(b));
        try (Admin a = admin()) {
            NewTopic t = new NewTopic(s.get(1), Map.of(0, replicas)).configs(configs(s.subList(3, s.size())));
            a.createTopics(List.of(t)).all().get();
        }
        waitIsr(s.get(1), 0, replicas.size());
    }

    static void send(String topic, String acks, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        if (!acks.equals("all")) p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        Random r = new Random(topic.hashCode() + n);
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> pr = producer(p)) {
            for (int i = 0; i < n; i++) sent.add(pr.send(record(topic, 0, r, i, 120)));
            pr.flush();
            for (var f : sent) f.get();
        }
    }

    static org.apache.kafka.common.TopicPartitionInfo partitionInfo(Admin a, String topic, int partition) throws Exception {
        // a topic just created may not be in the metadata of the broker asked yet: ask again
        for (long deadline = System.currentTimeMillis() + 60000; ; Thread.sleep(300)) {
            try {
                return a.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(partition);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
                        || System.currentTimeMillis() > deadline) throw e;
            }
        }
    }

    static void waitIsr(String topic, int partition, int size) throws Exception {
        long deadline = System.currentTimeMillis() + 120000;
        try (Admin a = admin()) {
            while (true) {
                var info = partitionInfo(a, topic, partition);
                if (info.isr().size() == size && info.leader() != null) return;
                if (System.currentTimeMillis() > deadline)
                    throw new IllegalStateException(topic + "-" + partition + ": ISR " + info.isr() + ", not " + size + " replicas");
                Thread.sleep(300);
            }
        }
    }

    static void waitLeader(String topic, int partition, int broker, boolean unclean) throws Exception {
        long start = System.currentTimeMillis();
        boolean asked = false;
        try (Admin a = admin()) {
            while (true) {
                var info = partitionInfo(a, topic, partition);
                if (info.leader() != null && info.leader().id() == broker) return;
                long waited = System.currentTimeMillis() - start;
                if (unclean && !asked && waited > 5000) {
                    // the controller elects uncleanly on its own when the topic allows it; ask, should it wait
                    try {
                        a.electLeaders(org.apache.kafka.common.ElectionType.UNCLEAN,
                                       java.util.Set.of(new TopicPartition(topic, partition))).all().get();
                    } catch (ExecutionException e) {
                        System.err.println("unclean election: " + e.getCause());
                    }
                    asked = true;
                }
                if (waited > 120000)
                    throw new IllegalStateException(topic + "-" + partition + ": leader " + info.leader() + ", not " + broker);
                Thread.sleep(300);
            }
        }
    }

    static void commit(String group, String topic, int partition, long offset) throws Exception {
        try (Admin a = admin()) {
            a.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, partition),
                new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset))).all().get();
        }
    }

    static String ids(List<org.apache.kafka.common.Node> nodes) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < nodes.size(); i++) b.append(i == 0 ? "" : ",").append(nodes.get(i).id());
        return b.append("]").toString();
    }

    static void describe(Path out, List<String> topics) throws Exception {
        try (Admin a = admin(); PrintWriter w = new PrintWriter(Files.newBufferedWriter(out))) {
            for (TopicDescription d : a.describeTopics(topics).allTopicNames().get().values())
                for (var pi : d.partitions())
                    w.println("{\"topic\":\"" + d.name() + "\",\"topic_id\":\"" + d.topicId() + "\",\"partition\":" + pi.partition()
                              + ",\"leader\":" + (pi.leader() == null ? -1 : pi.leader().id())
                              + ",\"replicas\":" + ids(pi.replicas()) + ",\"isr\":" + ids(pi.isr())
                              + ",\"elr\":" + ids(pi.elr() == null ? List.of() : pi.elr()) + "}");
        }
    }

    /** Admin.alterPartitionReassignments to these replicas, not waiting for it to complete (a replica added on a
     *  broker that is down keeps it in flight). */
    static void reassign(String topic, int partition, String replicas) throws Exception {
        List<Integer> target = new ArrayList<>();
        for (String b : replicas.split(",")) target.add(Integer.parseInt(b));
        try (Admin a = admin()) {
            a.alterPartitionReassignments(Map.of(new TopicPartition(topic, partition), java.util.Optional.of(
                new org.apache.kafka.clients.admin.NewPartitionReassignment(target)))).all().get();
        }
    }

    static void deleteTopic(String topic) throws Exception {
        try (Admin a = admin()) {
            a.deleteTopics(List.of(topic)).all().get();
        }
    }

    /** Until no reassignment of the partition is in flight. */
    static void waitReassigned(String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        long deadline = System.currentTimeMillis() + 120000;
        try (Admin a = admin()) {
            while (!a.listPartitionReassignments(java.util.Set.of(tp)).reassignments().get().isEmpty()) {
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException(tp + ": still reassigned");
                Thread.sleep(300);
            }
        }
    }

    static void deleteRecords(String topic, int partition, long offset) throws Exception {
        try (Admin a = admin()) {
            TopicPartition tp = new TopicPartition(topic, partition);
            long low = a.deleteRecords(Map.of(tp, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(offset)))
                        .lowWatermarks().get(tp).get().lowWatermark();
            if (low != offset) throw new IllegalStateException(tp + ": low watermark " + low + ", not " + offset);
        }
    }

    /** A transactional offset commit (sendOffsetsToTransaction), then aborted: a read_committed reader of
     *  __consumer_offsets never sees it, nor does the group coordinator. */
    static void commitAborted(String group, String topic, int partition, long offset) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "aborted-commit-" + group);
        try (KafkaProducer<byte[], byte[]> pr = producer(p)) {
            pr.initTransactions();
            pr.beginTransaction();
            pr.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, partition),
                new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset)),
                new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(group));
            pr.abortTransaction();
        }
    }

    static void txnOpen(String topic, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "open-" + topic);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "900000");  // the broker's largest: open while the tests read
        Random r = new Random(11);
        KafkaProducer<byte[], byte[]> pr = producer(p);
        pr.initTransactions();
        pr.beginTransaction();
        for (int i = 0; i < n; i++) pr.send(record(topic, 0, r, 1000 + i, 60));
        pr.flush();
        System.out.println("open transaction written");
        System.out.flush();
        Runtime.getRuntime().halt(0);  // as a producer killed: no commit, no abort, no close
    }
}
