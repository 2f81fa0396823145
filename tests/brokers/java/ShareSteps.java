import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Share-group steps (KIP-932), for clients of Kafka 4.x only. Called by Scenarios for steps it does not know. */
public class ShareSteps {
    /** share-group GROUP TOPIC: read TOPIC from the start, accept most records, release and reject some. */
    public static void run(String bootstrap, List<String> s) throws Exception {
        if (!s.get(0).equals("share-group")) throw new IllegalArgumentException("unknown step " + s);
        String group = s.get(1), topic = s.get(2);
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(p)) {
            a.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
        }
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put("share.acknowledgement.mode", "explicit");
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p)) {
            c.subscribe(List.of(topic));
            int got = 0;
            long deadline = System.currentTimeMillis() + 60000;
            while (got < 20 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    AcknowledgeType t = r.offset() % 10 == 3 ? AcknowledgeType.REJECT
                        : r.offset() % 10 == 7 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
                    c.acknowledge(r, t);
                    got++;
                }
                c.commitSync();
            }
            if (got == 0) throw new IllegalStateException("share group " + group + " read nothing from " + topic);
        }
    }
}
