import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;

/** Small sample segments (a few hundred bytes each) to open in the Kaitai Web IDE. */
final class Samples {
    static final String[] FRUIT = {"apple", "banana", "cherry", "damson", "elderberry", "fig"};

    static List<MemoryRecords> sample(int magic, String codec) {
        Util.Spec s = Util.spec().magic(magic).codec(codec).epoch(magic == 2 ? 0 : -1);
        long t = magic == 0 ? -1 : Util.T0;
        List<MemoryRecords> out = new ArrayList<>();
        for (int b = 0; b < 2; b++) {
            List<Util.Rec> recs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int o = b * 3 + i;
                recs.add(Util.rec(o, t < 0 ? t : t + o * 1000L, "key-" + o, "hello " + FRUIT[o] + ", this is record " + o,
                    Util.h("color", o % 2 == 0 ? "red" : "green"), Util.h("seq", Integer.toString(o))));
            }
            out.add(Util.build(s, recs));
        }
        return out;
    }

    static void main(File dir) throws IOException {
        dir.mkdirs();
        StringBuilder readme = new StringBuilder();
        readme.append("# Sample Kafka log segments\n\n")
            .append("Written by Kafka 3.9.1's own encoder (`python scripts/kafka_fixtures.py samples`), small enough to open\n")
            .append("in the Kaitai Web IDE (https://ide.kaitai.io/) together with the specs in `schemas/`.\n\n");
        for (int magic = 0; magic <= 2; magic++) {
            for (String codec : Fixtures.CODECS[magic]) {
                String name = "v" + magic + "-" + codec + ".log";
                Util.writeLog(new File(dir, name), sample(magic, codec));
                readme.append("- `").append(name).append("`: magic ").append(magic).append(", ").append(codec)
                    .append(magic == 2 ? ": 2 batches" : codec.equals("none") ? ": 6 plain messages" : ": 2 compressed wrappers")
                    .append(" of 3 records with keys and text values").append(magic == 2 ? " and 2 headers each" : "")
                    .append(magic == 0 ? ", no timestamps" : "").append("\n");
            }
        }
        List<MemoryRecords> txn = new ArrayList<>();
        List<Util.Rec> recs = new ArrayList<>();
        for (int i = 0; i < 3; i++)
            recs.add(Util.rec(i, Util.T0 + i, "key-" + i, "hello " + FRUIT[i] + " (in a transaction)", Util.h("txn", "1")));
        txn.add(Util.build(Util.spec().producer(4000L, 0, 0).txn().epoch(0), recs));
        txn.add(MemoryRecords.withEndTransactionMarker(3, Util.T0 + 10, 0, 4000L, (short) 0,
            new EndTransactionMarker(ControlRecordType.COMMIT, 1)));
        Util.writeLog(new File(dir, "v2-transaction.log"), txn);
        readme.append("- `v2-transaction.log`: magic 2, a transactional batch of producer 4000 (3 records) and its COMMIT control batch\n");

        List<MemoryRecords> mixed = new ArrayList<>();
        mixed.add(Util.build(Util.spec().magic(0), Util.rec(0, -1, "key-0", "hello apple, v0 message")));
        mixed.add(Util.build(Util.spec().magic(0).codec("gzip"), Util.rec(1, -1, "key-1", "hello banana, v0 in gzip"),
            Util.rec(2, -1, "key-2", "hello cherry, v0 in gzip")));
        mixed.add(Util.build(Util.spec().magic(1), Util.rec(3, Util.T0 + 3, "key-3", "hello damson, v1 message")));
        mixed.add(Util.build(Util.spec().magic(1).codec("snappy"), Util.rec(4, Util.T0 + 4, "key-4", "hello elderberry, v1 in snappy"),
            Util.rec(5, Util.T0 + 5, "key-5", "hello fig, v1 in snappy")));
        mixed.add(Util.build(Util.spec().epoch(0), Util.rec(6, Util.T0 + 6, "key-6", "hello grape, v2 record", Util.h("format", "v2"))));
        mixed.add(Util.build(Util.spec().codec("lz4").epoch(0), Util.rec(7, Util.T0 + 7, "key-7", "hello honeydew, v2 in lz4", Util.h("format", "v2")),
            Util.rec(8, Util.T0 + 8, "key-8", "hello kiwi, v2 in lz4")));
        Util.writeLog(new File(dir, "mixed-formats.log"), mixed);
        readme.append("- `mixed-formats.log`: v0 (plain, gzip), then v1 (plain, snappy), then v2 (none, lz4) entries, as after message format upgrades\n");
        Files.write(new File(dir, "README.md").toPath(), readme.toString().getBytes(UTF_8));
    }
}
