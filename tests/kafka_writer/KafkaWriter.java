import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Entry point. Modes:
 *   fixtures OUTDIR    tests/fixtures: segments/*.log + *.kafka.jsonl + index.json, partitions/...
 *   samples OUTDIR     small sample segments for the Kaitai Web IDE
 *   corpus OUTDIR --records N --codec C [--batch-size K] [--segment-bytes B] [--topic T]
 *   read FILE          Kafka's reading of a .log file (JSON lines) on stdout
 *   tail OUTDIR [--topic T] [--segment-bytes B]   a partition that grows on commands from stdin (Tail.java)
 *   hostile OUTDIR     tests/fixtures/hostile: tiny files that decode to millions of records, + index.json
 *   values OUTDIR [--topic T] [--codec C]   a partition of the keys and values on stdin (Values.java)
 *   read-speed FILE... [--repeat N]   Kafka's own reader, warm, timed (benchmarks/fast_path.py)
 */
public final class KafkaWriter {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: KafkaWriter fixtures|samples|corpus|read|tail|hostile|values|read-speed PATH [options]");
            System.exit(2);
        }
        File path = new File(args[1]);
        switch (args[0]) {
            case "fixtures":
                Fixtures.main(path);
                Partitions.main(new File(path, "partitions"));
                InternalTopics.main(new File(path, "internal"), InternalTopics.schemaFile());
                break;
            case "samples":
                Samples.main(path);
                InternalTopics.samples(path, InternalTopics.schemaFile());
                break;
            case "corpus":
                Corpus.main(path, args);
                break;
            case "tail":
                Tail.main(path, args);
                break;
            case "hostile":
                Hostile.main(path);
                break;
            case "values":
                Values.main(path, args);
                break;
            case "read-speed":
                Corpus.readSpeed(args);
                break;
            case "read": {
                PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
                List<String> lines = RefReader.read(path);
                for (String l : lines) out.print(l + "\n");
                out.flush();
                break;
            }
            default:
                System.err.println("unknown mode " + args[0]);
                System.exit(2);
        }
    }
}
