import com.github.luben.zstd.ZstdCompressCtx;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Security;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Writes a segment's three Aiven objects (.log, .indexes, .rsm-manifest) with the libraries Aiven's remote
 * storage manager uses (JCE's AES/GCM/NoPadding, Bouncy Castle's RSA/NONE/OAEPWithSHA3-512AndMGF1Padding,
 * zstd-jni), driving them as its sources at 8fb15816 do (KafkaRemoteStorageManager, the transform
 * enumerations, TransformFinisher, ChunkSizesBinaryCodec, TransformedChunksSerializer, SegmentIndexesV1Builder,
 * SegmentManifestV1 in Jackson's field order). kafkalog's tests read what it writes.
 *
 * Usage: AivenObjects OUT_STEM CHUNK_SIZE COMPRESS(true|false) PUBLIC_KEY_DER|- KEY_ID METADATA_JSON
 *        SEGMENT OFFSET_INDEX TIME_INDEX PRODUCER_SNAPSHOT|- LEADER_EPOCH [TXN_INDEX]
 */
public final class AivenObjects {
    private static final SecureRandom RANDOM = new SecureRandom();  // Aiven: getInstanceStrong(), may block here

    public static void main(String[] args) throws Exception {
        Security.addProvider(new BouncyCastleProvider());
        String stem = args[0];
        int chunkSize = Integer.parseInt(args[1]);
        boolean compression = Boolean.parseBoolean(args[2]);
        PublicKey publicKey = args[3].equals("-") ? null
            : KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Files.readAllBytes(Path.of(args[3]))));
        String keyId = args[4];
        String metadata = args[5];
        byte[] segment = Files.readAllBytes(Path.of(args[6]));

        SecretKey dataKey = null;
        byte[] aad = null;
        if (publicKey != null) {  // AesEncryptionProvider.createDataKeyAndAAD
            KeyGenerator generator = KeyGenerator.getInstance("AES");
            generator.init(256, RANDOM);
            dataKey = generator.generateKey();
            aad = generator.generateKey().getEncoded();
        }

        // uploadSegmentLog: BaseTransformChunkEnumeration, then Compression-, then EncryptionChunkEnumeration
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<Integer> transformed = new ArrayList<>();
        for (int pos = 0; pos < segment.length; pos += chunkSize) {
            byte[] chunk = java.util.Arrays.copyOfRange(segment, pos, Math.min(segment.length, pos + chunkSize));
            if (compression) {
                chunk = zstd(chunk);
            }
            if (dataKey != null) {
                chunk = encrypt(chunk, dataKey, aad);
            }
            transformed.add(chunk.length);
            log.write(chunk);
        }
        Files.write(Path.of(stem + ".log"), log.toByteArray());
        String chunkIndex;
        if (compression) {  // a transformation of unknown sizes: VariableSizeChunkIndex
            chunkIndex = "{\"type\":\"variable\",\"originalChunkSize\":" + chunkSize + ",\"originalFileSize\":"
                + segment.length + ",\"transformedChunks\":\""
                + Base64.getEncoder().encodeToString(zstd(encodeChunkSizes(transformed))) + "\"}";
        } else {  // FixedSizeChunkIndex: the encrypted size of a full chunk is IV + Cipher.getOutputSize
            int fixed = dataKey == null ? chunkSize : 12 + cipher(dataKey, aad).getOutputSize(chunkSize);
            chunkIndex = "{\"type\":\"fixed\",\"originalChunkSize\":" + chunkSize + ",\"originalFileSize\":"
                + segment.length + ",\"transformedChunkSize\":" + fixed + ",\"finalTransformedChunkSize\":"
                + (transformed.isEmpty() ? 0 : transformed.get(transformed.size() - 1)) + "}";
        }

        // uploadIndexes: each index one piece, encrypted when encrypting, never compressed; concatenated
        String[] names = {"offset", "timestamp", "producerSnapshot", "leaderEpoch", "transaction"};
        StringBuilder indexes = new StringBuilder("{");
        ByteArrayOutputStream blob = new ByteArrayOutputStream();
        int position = 0;
        for (int i = 0; i < names.length; i++) {
            if (i > 0) {
                indexes.append(',');
            }
            String file = 7 + i < args.length ? args[7 + i] : null;
            if (file == null) {
                indexes.append("\"").append(names[i]).append("\":null");
                continue;
            }
            byte[] data = file.equals("-") ? new byte[0] : Files.readAllBytes(Path.of(file));
            if (data.length > 0 && dataKey != null) {
                data = encrypt(data, dataKey, aad);
            }
            indexes.append("\"").append(names[i]).append("\":{\"position\":").append(position)
                .append(",\"size\":").append(data.length).append('}');
            position += data.length;
            blob.write(data);
        }
        indexes.append('}');
        Files.write(Path.of(stem + ".indexes"), blob.toByteArray());

        StringBuilder manifest = new StringBuilder("{\"version\":\"1\",\"chunkIndex\":").append(chunkIndex)
            .append(",\"segmentIndexes\":").append(indexes).append(",\"compression\":").append(compression);
        if (dataKey != null) {  // DataKeySerializer: "<key id>:" + base64(RSA of the key); aad as Jackson's base64
            Cipher rsa = Cipher.getInstance("RSA/NONE/OAEPWithSHA3-512AndMGF1Padding", "BC");
            rsa.init(Cipher.ENCRYPT_MODE, publicKey, RANDOM);
            manifest.append(",\"encryption\":{\"dataKey\":\"").append(keyId).append(':')
                .append(Base64.getEncoder().encodeToString(rsa.doFinal(dataKey.getEncoded())))
                .append("\",\"aad\":\"").append(Base64.getEncoder().encodeToString(aad)).append("\"}");
        }
        manifest.append(",\"remoteLogSegmentMetadata\":").append(metadata).append('}');
        Files.write(Path.of(stem + ".rsm-manifest"), manifest.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static Cipher cipher(SecretKey key, byte[] aad) throws Exception {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, key, RANDOM);
        cipher.updateAAD(aad);
        return cipher;
    }

    /** EncryptionChunkEnumeration.nextElement: the IV, then the ciphertext with its tag. */
    private static byte[] encrypt(byte[] chunk, SecretKey key, byte[] aad) throws Exception {
        Cipher cipher = cipher(key, aad);
        byte[] iv = cipher.getIV();
        byte[] out = new byte[iv.length + cipher.getOutputSize(chunk.length)];
        System.arraycopy(iv, 0, out, 0, iv.length);
        cipher.doFinal(chunk, 0, chunk.length, out, iv.length);
        return out;
    }

    /** CompressionChunkEnumeration and TransformedChunksSerializer: a frame with its content size. */
    private static byte[] zstd(byte[] data) {
        try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
            ctx.setPledgedSrcSize(data.length);
            ctx.setContentSize(true);
            return ctx.compress(data);
        }
    }

    /** ChunkSizesBinaryCodec.encode. */
    private static byte[] encodeChunkSizes(List<Integer> values) {
        int count = values.size();
        if (count == 0) {
            return ByteBuffer.allocate(4).putInt(0).array();
        }
        int last = values.get(count - 1);
        if (count == 1) {
            return ByteBuffer.allocate(8).putInt(1).putInt(last).array();
        }
        int base = values.subList(0, count - 1).stream().mapToInt(Integer::intValue).min().getAsInt();
        int bytes = values.subList(0, count - 1).stream().mapToInt(v -> {
            int d = v - base;
            return d <= 0xFF ? 1 : d <= 0xFFFF ? 2 : d <= 0xFFFFFF ? 3 : 4;
        }).max().getAsInt();
        ByteBuffer buf = ByteBuffer.allocate(4 + 4 + 1 + (count - 1) * bytes + 4);
        buf.putInt(count).putInt(base).put((byte) bytes);
        ByteBuffer value = ByteBuffer.allocate(4);
        for (int i = 0; i < count - 1; i++) {
            value.rewind();
            value.putInt(values.get(i) - base);
            buf.put(value.array(), 4 - bytes, bytes);
        }
        return buf.putInt(last).array();
    }
}
