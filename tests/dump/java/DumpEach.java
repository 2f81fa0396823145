import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Many runs of a tool's main class (Kafka's DumpLogSegments) in one JVM: its start-up, not the dumping, is what a
 * run costs. Each line of stdin is one run, its arguments separated by tabs, the files last after "--files" (comma
 * separated), as on the command line. A run goes as `java <main class> <arguments>` would; where the tool dies with
 * an exception on a file, that file's lines end, the marker line "\u0001died <exception>" follows (the first line the
 * JVM would print on stderr), and the files after it are dumped by the same tool
 * called again, as a new JVM would. The marker line "\u0001end" ends each run. Usage: DumpEach MAIN_CLASS.
 */
public class DumpEach {
    /** Standard output, watched for the tool's "Dumping FILE" lines: the file being dumped when it dies. */
    static final class Watched extends OutputStream {
        private final OutputStream out;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        String dumping;

        /** Ends a line the tool left open, as the end of a JVM's output would. */
        void endLine() throws java.io.IOException {
            if (line.size() > 0) {
                write('\n');
            }
        }

        Watched(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            out.write(b);
            if (b == '\n') {
                String text = line.toString(StandardCharsets.UTF_8);
                if (text.startsWith("Dumping ")) {
                    dumping = text.substring("Dumping ".length());
                }
                line.reset();
            } else {
                line.write(b);
            }
        }

        @Override
        public void flush() throws java.io.IOException {
            out.flush();
        }
    }

    public static void main(String[] args) throws Exception {
        Watched watched = new Watched(new FileOutputStream(FileDescriptor.out));
        // (set before the tool's classes load: Scala's Console.out takes System.out when first used)
        PrintStream out = new PrintStream(watched, true, StandardCharsets.UTF_8);
        System.setOut(out);
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            List<String> argv = new ArrayList<>(Arrays.asList(line.split("\t")));
            int at = argv.indexOf("--files") + 1;
            List<String> pending = argv.get(at).isEmpty() ? new ArrayList<>()
                    : new ArrayList<>(Arrays.asList(argv.get(at).split(",")));
            while (!pending.isEmpty()) {
                argv.set(at, String.join(",", pending));
                watched.dumping = null;
                Throwable died = null;
                try {
                    main.invoke(null, (Object) argv.toArray(new String[0]));
                } catch (InvocationTargetException e) {
                    died = e.getCause();
                }
                out.flush();
                watched.endLine();
                if (died == null) {
                    break;
                }
                out.print("\u0001died Exception in thread \"main\" " + died.toString().lines().findFirst().orElse("") + "\n");
                int failed = watched.dumping == null ? -1 : pending.indexOf(watched.dumping);
                if (failed < 0) {
                    break;  // (died before a file: as a JVM would, for every file of the run)
                }
                pending = new ArrayList<>(pending.subList(failed + 1, pending.size()));
            }
            out.print("\u0001end\n");
            out.flush();
        }
    }
}
