import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.utils.Exit;

/**
 * Runs kafka-metadata-quorum.sh (its main class, `org.apache.kafka.tools.MetadataQuorumCommand`) several times in
 * one JVM: each run's standard output goes to a file, and a run that fails is tried again (add-controller fails until
 * the new controller has caught up with the leader as an observer).
 *
 * Usage: java QuorumTool OUT RETRY-SECONDS TOOL-ARG... [-- OUT RETRY-SECONDS TOOL-ARG...]...
 * (OUT "-" throws the output away.)
 */
public class QuorumTool {
    static class Exited extends RuntimeException {
        final int code;

        Exited(int code) {
            super("exit " + code);
            this.code = code;
        }
    }

    public static void main(String[] args) throws Exception {
        // the tool ends with Exit.exit(code): a throw here, so that the next run goes on in this JVM
        Exit.setExitProcedure((code, message) -> { throw new Exited(code); });
        List<String> run = new ArrayList<>();
        for (int i = 0; i <= args.length; i++) {
            if (i == args.length || args[i].equals("--")) {
                if (!run.isEmpty()) run(run);
                run = new ArrayList<>();
            } else {
                run.add(args[i]);
            }
        }
    }

    static void run(List<String> run) throws Exception {
        String out = run.get(0);
        long deadline = System.nanoTime() + Long.parseLong(run.get(1)) * 1_000_000_000L;
        String[] toolArgs = run.subList(2, run.size()).toArray(new String[0]);
        System.err.println("kafka-metadata-quorum " + String.join(" ", toolArgs));
        while (true) {
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            PrintStream stdout = System.out;
            int code;
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                Class.forName("org.apache.kafka.tools.MetadataQuorumCommand").getMethod("main", String[].class)
                    .invoke(null, (Object) toolArgs);
                code = 0;
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (!(e.getCause() instanceof Exited)) throw e;
                code = ((Exited) e.getCause()).code;
            } finally {
                System.out.flush();
                System.setOut(stdout);
            }
            String text = captured.toString(StandardCharsets.UTF_8);
            System.err.print(text);
            if (code == 0) {
                if (!out.equals("-")) Files.write(Paths.get(out), text.getBytes(StandardCharsets.UTF_8));
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("kafka-metadata-quorum " + String.join(" ", toolArgs) + " exited " + code);
            }
            Thread.sleep(1000);
        }
    }
}
