import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.TopicPartition;

/**
 * Prints the order Scala 2.13's mutable.HashSet iterates TopicPartitions in, filled as Kafka 3.9's
 * TransactionMetadata.addPartitions fills it (`topicPartitions ++= partitions`, one topic's immutable set at
 * a time). Each input line is a case, `topic:p,p,p topic:p,...`; each output line its set, `topic-p,topic-p,...`.
 */
public class ScalaSetOrder {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            scala.collection.mutable.HashSet<TopicPartition> set = new scala.collection.mutable.HashSet<>();
            for (String arg : line.trim().split(" ")) {
                String[] tp = arg.split(":");
                List<TopicPartition> group = new ArrayList<>();
                for (String p : tp[1].split(",")) {
                    group.add(new TopicPartition(tp[0], Integer.parseInt(p)));
                }
                set.addAll(scala.jdk.javaapi.CollectionConverters.asScala(group).toSet());
            }
            System.out.println(set.mkString(","));
        }
    }
}
