/*
 * kafkalog: the custom process routine `kafkalog.compression.kafka_decompress(codec, magic)`
 * in JavaScript, for the Kaitai Web IDE (https://ide.kaitai.io/) and any other
 * JavaScript code generated from kafkalog's specs.
 *
 * The generated JavaScript calls `new KafkaDecompress_.KafkaDecompress(codec, magic).decode(bytes)`,
 * where `KafkaDecompress_` is `self.KafkaDecompress` in the Web IDE's worker (the global branch
 * of the generated UMD header); this file sets `self.KafkaDecompress.KafkaDecompress`.
 * Loaded before or after the generated code, and as often as the Web IDE re-evaluates it.
 *
 * Codecs, in the framing Kafka's Java client writes (as kafkalog/compression.py reads them):
 *   1 gzip:   gzip members, inflated by pako, the inflate library the Web IDE bundles
 *             (loaded the way KaitaiStream.processZlib loads it: KaitaiStream.depUrls.zlib);
 *   2 snappy: snappy-java's stream (\x82SNAPPY\0, two int32 versions, then
 *             [int32 big-endian length][raw snappy block]...), or one raw snappy block;
 *   3 lz4:    an LZ4 frame; for magic 0 the header checksum is ignored (KAFKA-3160);
 *   4 zstd:   frame after frame, each through fzstd (MIT, Arjun Barrett) when it was loaded
 *             before this file, as in webide/kafkalog-webide.js, and its content checksum
 *             (XXH64) checked here; without fzstd a zstd batch's `decompressed` instance fails
 *             with a message saying so and everything else still parses.
 *
 * Also fixes, where the loaded runtime has the bug, KaitaiStream's readS8be/readS8le, which
 * return wrong values for negative numbers whose low 32 bits are below 2^31
 * (kaitai_struct_javascript_runtime PR #16). JavaScript numbers stay exact only up to 2^53.
 *
 * Licence: Apache-2.0, as kafkalog.
 */
(function (root) {
  "use strict";

  var NONE = 0, GZIP = 1, SNAPPY = 2, LZ4 = 3, ZSTD = 4;
  var CODEC_NAMES = ["none", "gzip", "snappy", "lz4", "zstd"];
  // Same bound as kafkalog.compression.DEFAULT_MAX_DECOMPRESSED_BYTES.
  var MAX_BYTES = 256 * 1024 * 1024;

  function fail(msg) {
    var e = new Error(msg);
    e.name = "DecompressionError";
    throw e;
  }

  function tooLarge(codec, limit) {
    fail(codec + " data decompresses to more than " + limit + " bytes (the limit)");
  }

  // A growable byte buffer.
  function Out(limit, codec) {
    this.buf = new Uint8Array(1024);
    this.len = 0;
    this.limit = limit;
    this.codec = codec;
  }
  Out.prototype.reserve = function (n) {
    var need = this.len + n;
    if (need > this.limit) tooLarge(this.codec, this.limit);
    if (need <= this.buf.length) return;
    var size = this.buf.length;
    while (size < need) size *= 2;
    var b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  };
  Out.prototype.append = function (bytes) {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  };
  Out.prototype.bytes = function () {
    return this.buf.slice(0, this.len);
  };

  function u32be(d, p) {
    return ((d[p] << 24) | (d[p + 1] << 16) | (d[p + 2] << 8) | d[p + 3]) >>> 0;
  }
  function u32le(d, p) {
    return (d[p] | (d[p + 1] << 8) | (d[p + 2] << 16) | (d[p + 3] << 24)) >>> 0;
  }

  // ---------------------------------------------------------------- gzip

  function findPako() {
    if (root.pako && typeof root.pako.Inflate === "function") return root.pako;
    var ks = root.KaitaiStream;
    if (ks && ks.zlib && typeof ks.zlib.Inflate === "function") return ks.zlib;
    // In the Web IDE's worker: load the bundled inflate as KaitaiStream.processZlib does.
    if (ks && ks.depUrls && ks.depUrls.zlib && typeof root.importScripts === "function") {
      root.importScripts(ks.depUrls.zlib);
      if (root.pako && typeof root.pako.Inflate === "function") return root.pako;
    }
    fail("gzip needs pako (the Web IDE's bundled inflate), which is not loaded here");
  }

  function gunzip(data, magic, out) {
    var pako = findPako();
    var rest = data;
    for (;;) {
      var inf = new pako.Inflate({ windowBits: 16 + 15 });
      inf.push(rest, true);
      if (inf.err) fail("gzip data does not decompress: " + (inf.msg || "error " + inf.err));
      if (!inf.ended) fail("gzip stream ends before its end-of-stream marker (truncated)");
      if (inf.result) out.append(inf.result);
      var left = inf.strm.avail_in;
      rest = rest.subarray(rest.length - left);
      // Java's GZIPInputStream reads further members and ignores trailing bytes that are not one.
      if (rest.length < 10 || rest[0] !== 0x1f || rest[1] !== 0x8b) return;
    }
  }

  // -------------------------------------------------------------- snappy

  var XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];

  function unsnappyBlock(block, out) {
    // Preamble: the uncompressed length, a little-endian base-128 varint.
    var n = 0, shift = 0, p = 0;
    for (;;) {
      if (p >= block.length || p >= 5) fail("snappy block has no valid length preamble");
      var b = block[p++];
      n += (b & 0x7f) * Math.pow(2, shift);
      if (b < 0x80) break;
      shift += 7;
    }
    if (n > 0xffffffff) fail("snappy block has no valid length preamble");
    out.reserve(n);
    var start = out.len, end = start + n, o = start, buf = out.buf;
    while (p < block.length) {
      var tag = block[p++];
      var len, off;
      switch (tag & 3) {
        case 0: // literal
          len = tag >>> 2;
          if (len >= 60) {
            var nb = len - 59;
            if (p + nb > block.length) fail("snappy literal length is truncated");
            len = 0;
            for (var i = 0; i < nb; i++) len += block[p + i] * Math.pow(2, 8 * i);
            p += nb;
          }
          len += 1;
          if (p + len > block.length) fail("snappy literal runs past the block");
          if (o + len > end) fail("snappy data is longer than its declared length " + n);
          buf.set(block.subarray(p, p + len), o);
          p += len;
          o += len;
          continue;
        case 1: // copy, 1-byte offset
          if (p + 1 > block.length) fail("snappy copy is truncated");
          len = 4 + ((tag >>> 2) & 7);
          off = ((tag >>> 5) << 8) | block[p];
          p += 1;
          break;
        case 2: // copy, 2-byte offset
          if (p + 2 > block.length) fail("snappy copy is truncated");
          len = (tag >>> 2) + 1;
          off = block[p] | (block[p + 1] << 8);
          p += 2;
          break;
        default: // copy, 4-byte offset
          if (p + 4 > block.length) fail("snappy copy is truncated");
          len = (tag >>> 2) + 1;
          off = u32le(block, p);
          p += 4;
      }
      if (off === 0 || off > o - start) fail("snappy copy offset " + off + " is out of range");
      if (o + len > end) fail("snappy data is longer than its declared length " + n);
      for (var k = 0; k < len; k++, o++) buf[o] = buf[o - off];
    }
    if (o !== end) fail("snappy data is shorter (" + (o - start) + ") than its declared length " + n);
    out.len = end;
  }

  function unsnappy(data, magic, out) {
    var xerial = data.length >= 8;
    for (var i = 0; i < 8 && xerial; i++) xerial = data[i] === XERIAL_MAGIC[i];
    if (!xerial) {
      unsnappyBlock(data, out);
      return;
    }
    if (data.length < 16) fail("snappy stream header is truncated");
    var pos = 16;
    while (pos < data.length) {
      if (pos + 4 > data.length) fail("snappy block length at stream byte " + pos + " is truncated");
      var n = u32be(data, pos) | 0;
      pos += 4;
      if (n < 0 || pos + n > data.length)
        fail("snappy block at stream byte " + (pos - 4) + " declares " + n + " bytes, " + (data.length - pos) + " remain");
      unsnappyBlock(data.subarray(pos, pos + n), out);
      pos += n;
    }
  }

  // ----------------------------------------------------------------- lz4

  var P1 = 2654435761, P2 = 2246822519, P3 = 3266489917, P4 = 668265263, P5 = 374761393;

  function rotl(x, r) {
    return ((x << r) | (x >>> (32 - r))) >>> 0;
  }
  function mul(a, b) {
    return Math.imul(a, b) >>> 0;
  }
  function xxh32(d, start, end) {
    var i = start, n = end - start, h;
    if (n >= 16) {
      var v = [(P1 + P2) >>> 0, P2, 0, (0 - P1) >>> 0];
      for (; i + 16 <= end; i += 16) {
        for (var k = 0; k < 4; k++) {
          v[k] = mul(rotl((v[k] + mul(u32le(d, i + 4 * k), P2)) >>> 0, 13), P1);
        }
      }
      h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) >>> 0;
    } else {
      h = P5;
    }
    h = (h + n) >>> 0;
    for (; i + 4 <= end; i += 4) h = mul(rotl((h + mul(u32le(d, i), P3)) >>> 0, 17), P4);
    for (; i < end; i++) h = mul(rotl((h + mul(d[i], P5)) >>> 0, 11), P1);
    h = (h ^ (h >>> 15)) >>> 0;
    h = mul(h, P2);
    h = (h ^ (h >>> 13)) >>> 0;
    h = mul(h, P3);
    return (h ^ (h >>> 16)) >>> 0;
  }

  // One LZ4 block into `out`; matches may reach back into earlier blocks' output.
  function unlz4Block(d, p, end, out, maxOut) {
    var room = Math.min(maxOut, out.limit - out.len);
    out.reserve(room);
    var buf = out.buf, o = out.len, limit = o + room;
    function over() {
      if (room < maxOut) tooLarge(out.codec, out.limit);
      fail("lz4 block decompresses to more than its maximum block size " + maxOut);
    }
    while (p < end) {
      var token = d[p++];
      var len = token >>> 4;
      if (len === 15) {
        var b;
        do {
          if (p >= end) fail("lz4 literal length is truncated");
          b = d[p++];
          len += b;
        } while (b === 255);
      }
      if (p + len > end) fail("lz4 literals run past the block");
      if (o + len > limit) over();
      buf.set(d.subarray(p, p + len), o);
      p += len;
      o += len;
      if (p === end) break; // the last sequence has literals only
      if (p + 2 > end) fail("lz4 match offset is truncated");
      var off = d[p] | (d[p + 1] << 8);
      p += 2;
      if (off === 0 || off > o) fail("lz4 match offset " + off + " is out of range");
      var mlen = token & 15;
      if (mlen === 15) {
        var c;
        do {
          if (p >= end) fail("lz4 match length is truncated");
          c = d[p++];
          mlen += c;
        } while (c === 255);
      }
      mlen += 4;
      if (o + mlen > limit) over();
      for (var k = 0; k < mlen; k++, o++) buf[o] = buf[o - off];
    }
    out.len = o;
  }

  function unlz4(d, magic, out) {
    if (d.length < 7 || u32le(d, 0) !== 0x184d2204) fail("lz4 data does not start with an LZ4 frame magic");
    var flg = d[4], bd = d[5];
    if ((flg >>> 6) !== 1) fail("lz4 frame version " + (flg >>> 6) + " is not supported");
    if (flg & 0x01) fail("lz4 frame needs a dictionary");
    var blockChecksum = (flg & 0x10) !== 0, contentChecksum = (flg & 0x04) !== 0;
    var maxBlock = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20][(bd >>> 4) & 7];
    if (!maxBlock) fail("lz4 frame has an invalid block maximum size");
    var p = 6;
    if (flg & 0x08) p += 8; // content size
    if (p >= d.length) fail("lz4 frame descriptor is truncated");
    // Magic 0: Kafka hashed the wrong bytes (KAFKA-3160), so the checksum is ignored.
    if (magic !== 0 && d[p] !== ((xxh32(d, 4, p) >>> 8) & 0xff)) fail("lz4 frame header checksum does not match");
    p += 1;
    var start = out.len;
    for (;;) {
      if (p + 4 > d.length) fail("lz4 frame ends before its end mark (truncated)");
      var size = u32le(d, p);
      p += 4;
      if (size === 0) break; // end mark
      var raw = size >= 0x80000000, n = size & 0x7fffffff;
      if (n > maxBlock) fail("lz4 block declares " + n + " bytes, more than its maximum " + maxBlock);
      if (p + n > d.length) fail("lz4 frame ends before its end mark (truncated)");
      if (blockChecksum && p + n + 4 > d.length) fail("lz4 frame ends before its end mark (truncated)");
      if (blockChecksum && u32le(d, p + n) !== xxh32(d, p, p + n)) fail("lz4 block checksum does not match");
      if (raw) out.append(d.subarray(p, p + n));
      else unlz4Block(d, p, p + n, out, maxBlock);
      p += n + (blockChecksum ? 4 : 0);
    }
    if (contentChecksum) {
      if (p + 4 > d.length) fail("lz4 content checksum is truncated");
      if (u32le(d, p) !== xxh32(out.buf, start, out.len)) fail("lz4 content checksum does not match");
    }
  }

  // ---------------------------------------------------------------- zstd

  // XXH64 (with BigInt) for the content checksum of a zstd frame, which fzstd does not check.
  var X64 = typeof BigInt === "function" ? {
    P1: BigInt("11400714785074694791"), P2: BigInt("14029467366897019727"),
    P3: BigInt("1609587929392839161"), P4: BigInt("9650029242287828579"),
    P5: BigInt("2870177450012600261")
  } : null;

  function xxh64(d) {
    var B = BigInt, U = function (x) { return BigInt.asUintN(64, x); };
    var P1 = X64.P1, P2 = X64.P2, P3 = X64.P3, P4 = X64.P4, P5 = X64.P5;
    var rotl64 = function (x, r) { return U((x << B(r)) | (x >> B(64 - r))); };
    var lane = function (i) { return (B(u32le(d, i + 4)) << B(32)) | B(u32le(d, i)); };
    var round = function (acc, v) { return U(rotl64(U(acc + U(v * P2)), 31) * P1); };
    var merge = function (acc, v) { return U(U((acc ^ round(B(0), v)) * P1) + P4); };
    var n = d.length, i = 0, h;
    if (n >= 32) {
      var v1 = U(P1 + P2), v2 = P2, v3 = B(0), v4 = U(-P1);
      for (; i + 32 <= n; i += 32) {
        v1 = round(v1, lane(i)); v2 = round(v2, lane(i + 8));
        v3 = round(v3, lane(i + 16)); v4 = round(v4, lane(i + 24));
      }
      h = U(rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18));
      h = merge(merge(merge(merge(h, v1), v2), v3), v4);
    } else {
      h = P5;
    }
    h = U(h + B(n));
    for (; i + 8 <= n; i += 8) h = U(U(rotl64(h ^ round(B(0), lane(i)), 27) * P1) + P4);
    if (i + 4 <= n) {
      h = U(U(rotl64(h ^ U(B(u32le(d, i)) * P1), 23) * P2) + P3);
      i += 4;
    }
    for (; i < n; i++) h = U(rotl64(h ^ U(B(d[i]) * P5), 11) * P1);
    h = U((h ^ (h >> B(33))) * P2);
    h = U((h ^ (h >> B(29))) * P3);
    return h ^ (h >> B(32));
  }

  // The frames of a zstd stream: [start, end, has content checksum]; skippable frames left out.
  function zstdFrames(d) {
    var frames = [], p = 0;
    while (p < d.length) {
      if (p + 4 > d.length) fail("zstd frame at byte " + p + " is truncated");
      var m = u32le(d, p);
      if (((m & 0xfffffff0) >>> 0) === 0x184d2a50) { // skippable frame
        if (p + 8 > d.length) fail("zstd skippable frame at byte " + p + " is truncated");
        p += 8 + u32le(d, p + 4);
        continue;
      }
      if (m !== 0xfd2fb528) fail("zstd data has no frame magic at byte " + p);
      if (p + 5 > d.length) fail("zstd frame header is truncated");
      var fhd = d[p + 4], single = (fhd >>> 5) & 1, checksum = (fhd >>> 2) & 1;
      var q = p + 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3] + [single, 2, 4, 8][fhd >>> 6];
      for (;;) {
        if (q + 3 > d.length) fail("zstd frame ends before its last block (truncated)");
        var h = d[q] | (d[q + 1] << 8) | (d[q + 2] << 16), type = (h >>> 1) & 3;
        if (type === 3) fail("zstd block at byte " + q + " has the reserved type");
        q += 3 + (type === 1 ? 1 : h >>> 3);
        if (h & 1) break; // last block
      }
      q += checksum ? 4 : 0;
      if (q > d.length) fail("zstd frame ends before its last block (truncated)");
      frames.push([p, q, checksum]);
      p = q;
    }
    return frames;
  }

  function unzstd(d, magic, out) {
    if (magic < 2) fail("zstd compression in a magic " + magic + " message (Kafka allows it only in v2 batches)");
    var fzstd = root.fzstd;
    if (!fzstd || typeof fzstd.decompress !== "function")
      fail("zstd is not decoded here: load kafkalog-webide.js (with fzstd) rather than kafka_decompress.js alone");
    // Kafka's zstd-jni stream reads frame after frame; Java may omit the content size.
    var frames = zstdFrames(d);
    for (var k = 0; k < frames.length; k++) {
      var f = frames[k], r;
      try {
        r = fzstd.decompress(d.subarray(f[0], f[1]));
      } catch (e) {
        fail("zstd data does not decompress: " + (e && e.message ? e.message : String(e)));
      }
      if (f[2] && X64 && Number(BigInt.asUintN(32, xxh64(r))) !== u32le(d, f[1] - 4))
        fail("zstd frame content checksum does not match");
      out.append(r);
    }
  }

  var DECODERS = {};
  DECODERS[GZIP] = gunzip;
  DECODERS[SNAPPY] = unsnappy;
  DECODERS[LZ4] = unlz4;
  DECODERS[ZSTD] = unzstd;

  function decompress(codec, data, magic, limit) {
    codec = +codec;
    magic = magic === undefined ? 2 : +magic;
    limit = limit === undefined ? MAX_BYTES : limit;
    data = data instanceof Uint8Array ? data : new Uint8Array(data);
    if (codec === NONE) return data.slice();
    var decoder = DECODERS[codec];
    if (!decoder) fail("unknown compression codec " + codec);
    var out = new Out(limit, CODEC_NAMES[codec]);
    decoder(data, magic, out);
    return out.bytes();
  }

  // The custom process routine, as the generated code calls it.
  function KafkaDecompress(codec, magic) {
    this.codec = +codec;
    this.magic = +magic;
  }
  KafkaDecompress.prototype.decode = function (data) {
    return decompress(this.codec, data, this.magic);
  };
  KafkaDecompress.decompress = decompress;
  KafkaDecompress.xxh32 = function (d) { return xxh32(d, 0, d.length); };

  // A namespace object (kaitai_struct#1074): the generated code reads `.KafkaDecompress` on it.
  // Set a property of the existing object, which generated code loaded earlier already holds.
  var ns = root.KafkaDecompress || (root.KafkaDecompress = {});
  ns.KafkaDecompress = KafkaDecompress;

  // ------------------------------------------- KaitaiStream's signed 64-bit reads

  function fixReadS8(KS) {
    if (!KS || !KS.prototype || KS.prototype._kafkalogS8Fixed) return;
    var probe = new KS(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]));
    if (probe.readS8be() === -4294967296) return; // the runtime is right already
    function s8(hi, lo) {
      // hi, lo: unsigned 32-bit halves. Exact up to 2^53, nearest double beyond.
      return hi >= 0x80000000 ? (hi - 0x100000000) * 0x100000000 + lo : hi * 0x100000000 + lo;
    }
    KS.prototype.readS8be = function () {
      if (this.ensureBytesLeft) this.ensureBytesLeft(8);
      var hi = this.readU4be();
      return s8(hi, this.readU4be());
    };
    KS.prototype.readS8le = function () {
      if (this.ensureBytesLeft) this.ensureBytesLeft(8);
      var lo = this.readU4le();
      return s8(this.readU4le(), lo);
    };
    KS.prototype._kafkalogS8Fixed = true;
  }
  fixReadS8(root.KaitaiStream);
})(typeof self !== "undefined" ? self : typeof globalThis !== "undefined" ? globalThis : this);
