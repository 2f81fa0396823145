import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * Hand-written compact JSON output (no JSON library: the only ones on the classpath are
 * shaded copies inside other jars). Strings are escaped like Python's json.dumps with its
 * default ensure_ascii=True, so the output is pure ASCII and Python can reproduce it exactly.
 */
final class Json {
    private final StringBuilder sb = new StringBuilder();
    private boolean first = true;

    static Json obj() {
        Json j = new Json();
        j.sb.append('{');
        return j;
    }

    private void key(String k) {
        if (!first) sb.append(',');
        first = false;
        str(sb, k);
        sb.append(':');
    }

    Json put(String k, String v) { key(k); if (v == null) sb.append("null"); else str(sb, v); return this; }
    Json put(String k, long v) { key(k); sb.append(v); return this; }
    Json put(String k, Long v) { key(k); sb.append(v == null ? "null" : v.toString()); return this; }
    Json put(String k, Integer v) { key(k); sb.append(v == null ? "null" : v.toString()); return this; }
    Json put(String k, boolean v) { key(k); sb.append(v); return this; }
    /** Raw, already-encoded JSON value. */
    Json raw(String k, String json) { key(k); sb.append(json); return this; }

    String end() { sb.append('}'); return sb.toString(); }

    static String quote(String s) {
        StringBuilder b = new StringBuilder();
        str(b, s);
        return b.toString();
    }

    static void str(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                case '\b': b.append("\\b"); break;
                case '\f': b.append("\\f"); break;
                default:
                    if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
            }
        }
        b.append('"');
    }

    static String b64(ByteBuffer buf) {
        if (buf == null) return null;
        ByteBuffer d = buf.duplicate();
        byte[] a = new byte[d.remaining()];
        d.get(a);
        return Base64.getEncoder().encodeToString(a);
    }

    static String b64(byte[] a) {
        return a == null ? null : Base64.getEncoder().encodeToString(a);
    }
}
