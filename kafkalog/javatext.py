"""Bytes decoded as Java's `new String(bytes, StandardCharsets.UTF_8)` decodes them.

Kafka turns keys, values and header keys into text with `Utils.utf8`, that is `new String(bytes, UTF_8)`,
whose decoder (`java.lang.String.decodeUTF8_UTF16` in JDK 17+, the array path of `sun.nio.cs.UTF_8` before)
replaces malformed input with U+FFFD, but does not cut it where Python's "replace" does (Unicode's maximal
subparts): an encoded surrogate (`ED A0..BF 80..BF`) is one U+FFFD, not three; `ED A0..BF` followed by a
byte that does not continue it is one, not two; and a sequence cut short by the end of the bytes is one
U+FFFD for all that is left. Valid UTF-8 is read the same by both, so Python's decoder finds each
malformed sequence and Java's rules say how many bytes one U+FFFD stands for. `kafkalog.fast.line_parts`
holds the compiled twin of these rules.
"""
from __future__ import annotations

import codecs

REPLACEMENT = "\ufffd"
_HANDLER = "kafkalog-java-replace"


def _continues(b: int) -> bool:
    return b & 0xC0 == 0x80


def malformed_length(data: bytes, i: int) -> int:
    """How many bytes from data[i], where a malformed sequence starts, Java's decoder replaces with one
    U+FFFD (the rest of `data` where Java stops decoding at a cut-off sequence)."""
    end = len(data)
    b1 = data[i]
    if 0xE0 <= b1 <= 0xEF:  # a three-byte lead
        if i + 2 < end:
            b2, b3 = data[i + 1], data[i + 2]
            if (b1 == 0xE0 and b2 & 0xE0 == 0x80) or not _continues(b2):  # overlong, or b2 does not continue
                return 1
            return 2 if not _continues(b3) else 3  # else: b1 b2 b3 encode a surrogate, one U+FFFD for the three
        if i + 1 < end and ((b1 == 0xE0 and data[i + 1] & 0xE0 == 0x80) or not _continues(data[i + 1])):
            return 1
        return end - i  # cut off by the end: Java writes one U+FFFD and stops
    if 0xF0 <= b1 <= 0xF7:  # a four-byte lead (F5..F7 too, as Java reads them)
        if i + 3 < end:
            b2, b3 = data[i + 1], data[i + 2]
            if b1 > 0xF4 or (b1 == 0xF0 and not 0x90 <= b2 <= 0xBF) or (b1 == 0xF4 and b2 & 0xF0 != 0x80) \
                    or not _continues(b2):
                return 1
            return 2 if not _continues(b3) else 3
        if b1 > 0xF4 or (i + 1 < end and ((b1 == 0xF0 and not 0x90 <= data[i + 1] <= 0xBF)
                                          or (b1 == 0xF4 and data[i + 1] & 0xF0 != 0x80)
                                          or not _continues(data[i + 1]))):
            return 1
        if i + 2 < end and not _continues(data[i + 2]):
            return 2
        return end - i
    return 1  # C0, C1, F8..FF, a lone continuation byte, or a two-byte lead without its second byte


def _replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return REPLACEMENT, exc.start + malformed_length(exc.object, exc.start)


codecs.register_error(_HANDLER, _replace)


def java_utf8(data: bytes) -> str:
    """`data` as Java's `new String(data, StandardCharsets.UTF_8)` reads it."""
    return data.decode("utf-8", _HANDLER)
