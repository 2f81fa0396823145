meta:
  id: kafka_varint
  title: Kafka zigzag variable-length integer (varint / varlong)
  license: Apache-2.0
  ks-version: 0.11
  endian: le
  xref:
    wikidata: Q16235208
doc: |
  A signed integer in Kafka's variable-length encoding, as used by every
  length and delta inside a v2 record: the value is zigzag-encoded
  (0 → 0, -1 → 1, 1 → 2, -2 → 3, ...) and the result is written as a
  little-endian base-128 number, 7 bits per byte, the high bit of each byte
  saying that another byte follows.

  Kafka writes int32 fields (`varint`, at most 5 bytes) and int64 fields
  (`varlong`, at most 10 bytes) the same way, so one type reads both; a
  continuation bit on the 10th byte is rejected, as Kafka rejects it.

  The bytes are read one field each (`b0`..`b9`) rather than as a repeated
  group so that a parser makes one object per number, not one per byte.

  In JavaScript (the Web IDE) numbers are doubles: `value` and
  `unsigned_value` are exact only up to 2^53 in magnitude. Lengths, counts
  and offset deltas always fit; a timestamp delta of more than about
  285,000 years does not.
doc-ref:
  - https://github.com/apache/kafka/blob/3.9/clients/src/main/java/org/apache/kafka/common/utils/ByteUtils.java
  - https://protobuf.dev/programming-guides/encoding/#signed-ints
-webide-representation: '{value:dec}'
seq:
  - id: b0
    type: u1
    doc: First byte; bit 7 set means `b1` follows.
  - id: b1
    type: u1
    if: b0 >= 0x80
    doc: Bits 7..13 of the zigzag value.
  - id: b2
    type: u1
    if: b0 >= 0x80 and b1 >= 0x80
    doc: Bits 14..20 of the zigzag value.
  - id: b3
    type: u1
    if: b0 >= 0x80 and b1 >= 0x80 and b2 >= 0x80
    doc: Bits 21..27 of the zigzag value.
  - id: b4
    type: u1
    if: b0 >= 0x80 and b1 >= 0x80 and b2 >= 0x80 and b3 >= 0x80
    doc: Bits 28..34 of the zigzag value (the last byte of an int32 varint).
  - id: b5
    type: u1
    if: b0 >= 0x80 and b1 >= 0x80 and b2 >= 0x80 and b3 >= 0x80 and b4 >= 0x80
    doc: Bits 35..41 of the zigzag value.
  - id: b6
    type: u1
    if: b0 >= 0x80 and b1 >= 0x80 and b2 >= 0x80 and b3 >= 0x80 and b4 >= 0x80 and b5 >= 0x80
    doc: Bits 42..48 of the zigzag value.
  - id: b7
    type: u1
    if: b0 >= 0x80 and b1 >= 0x80 and b2 >= 0x80 and b3 >= 0x80 and b4 >= 0x80 and b5 >= 0x80 and b6 >= 0x80
    doc: Bits 49..55 of the zigzag value.
  - id: b8
    type: u1
    if: b0 >= 0x80 and b1 >= 0x80 and b2 >= 0x80 and b3 >= 0x80 and b4 >= 0x80 and b5 >= 0x80 and b6 >= 0x80 and b7 >= 0x80
    doc: Bits 56..62 of the zigzag value.
  - id: b9
    type: u1
    if: b0 >= 0x80 and b1 >= 0x80 and b2 >= 0x80 and b3 >= 0x80 and b4 >= 0x80 and b5 >= 0x80 and b6 >= 0x80 and b7 >= 0x80 and b8 >= 0x80
    valid:
      max: 0x7f
    doc: |
      Bit 63 of the zigzag value. Its continuation bit must be clear: Kafka
      throws "Varlong is too long" after ten bytes.
instances:
  len:
    value: |
      b0 < 0x80 ? 1 :
      b1 < 0x80 ? 2 :
      b2 < 0x80 ? 3 :
      b3 < 0x80 ? 4 :
      b4 < 0x80 ? 5 :
      b5 < 0x80 ? 6 :
      b6 < 0x80 ? 7 :
      b7 < 0x80 ? 8 :
      b8 < 0x80 ? 9 : 10
    doc: Number of bytes this number takes.
  unsigned_value:
    # Nested so that a short number stops at its last byte; multiplication
    # rather than `<<` because JavaScript shifts are 32-bit.
    value: |
      (b0 & 0x7f) + (b0 < 0x80 ? 0 :
      (b1 & 0x7f) * 0x80 + (b1 < 0x80 ? 0 :
      (b2 & 0x7f) * 0x4000 + (b2 < 0x80 ? 0 :
      (b3 & 0x7f) * 0x20_0000 + (b3 < 0x80 ? 0 :
      (b4 & 0x7f) * 0x1000_0000 + (b4 < 0x80 ? 0 :
      (b5 & 0x7f) * 0x8_0000_0000 + (b5 < 0x80 ? 0 :
      (b6 & 0x7f) * 0x400_0000_0000 + (b6 < 0x80 ? 0 :
      (b7 & 0x7f) * 0x2_0000_0000_0000 + (b7 < 0x80 ? 0 :
      (b8 & 0x7f) * 0x100_0000_0000_0000 + (b8 < 0x80 ? 0 :
      (b9 & 0x01) * 0x8000_0000_0000_0000)))))))))
    doc: The zigzag-encoded value, before sign decoding.
  value:
    # Zigzag decoding with arithmetic only, exact in any language with
    # integers wide enough (and up to 2^53 with JavaScript numbers). The sign
    # is bit 0 of the zigzag value, taken from `b0` rather than from
    # `unsigned_value`, whose low bits a JavaScript double loses beyond 2^53:
    # a negative varlong stays negative there, its magnitude rounded.
    value: '(b0 & 1) == 0 ? unsigned_value / 2 : -((unsigned_value + 1) / 2)'
    doc: The signed value, as Kafka's `ByteUtils.readVarint` / `readVarlong` returns it.
