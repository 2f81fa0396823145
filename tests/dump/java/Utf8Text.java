import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.apache.kafka.common.utils.Utils;

/**
 * Decodes byte strings as Kafka turns keys, values and header keys into text (`Utils.utf8`, that is
 * `new String(bytes, UTF_8)`). Each input line is a case, its bytes in hex; each output line the decoded
 * text, encoded back to UTF-8, in hex (lossless: the decoder leaves no lone surrogate).
 */
public class Utf8Text {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            byte[] bytes = hex.parseHex(line.trim());
            String text = Utils.utf8(ByteBuffer.wrap(bytes), bytes.length);
            out.append(hex.formatHex(text.getBytes(StandardCharsets.UTF_8))).append('\n');
        }
        System.out.print(out);
    }
}
