"""The fast path's compiled loops: many records sections walked by the generated kernels, into tables.

Specs: every spec `generated/kafka_kernels.py` compiles (`kafka_log.ksy`'s entries, `kafka_record_batch.ksy`,
`kafka_record.ksy`, `kafka_control_record.ksy`, `kafka_message_set.ksy`, the two index specs). Twin: the
generated Kaitai parsers themselves, which the object path calls one object at a time.

The per-type parsers come from the specs (`generated/kafka_kernels.py`, by
`scripts/kernels.py`); what is written by hand here is only what the specs do
not say:

* `scan_entries`: the entry framing of a segment (offset, size, magic at byte
  16), as `kafka_log.ksy` and Kafka's `FileLogInputStream` read it;
* `parse_batch_headers` / `walk_sections`: loops that call the generated
  parsers over many batches and records, and stop where one does not parse;
* `byte_totals` / `gather_pair`: copying byte fields into Arrow's offsets-and-data layout,
  and checking that header keys are UTF-8, as Arrow strings must be;

* `record_columns`: Kafka's offset, timestamp and sequence rules.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from kafkalog.entries import ENTRY_LENGTH, ENTRY_MAGIC, ENTRY_POS, SCAN_END, SCAN_FULL, SCAN_STOP
from kafkalog.fast import jit
from kafkalog.formats.framing import HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MIN_ENTRY_SIZE

jit.configure()

from kafkalog._generated import kafka_kernels as k  # noqa: E402  (after the cache directory is set)

# What stopped `walk_sections`; damage codes of a section (numba-free, for the engine's readers too).
from kafkalog.fast.walk_codes import (  # noqa: E402
    BODY_TRAILING,
    SECTION_TRAILING,
    WALK_DONE,
    WALK_FULL,
    WALK_HEADERS_FULL,
)

INT_MAX = 0x7FFFFFFF


@nb.njit(cache=True, nogil=True)
def scan_entries(buf, pos, start_limit, max_entry, out):
    """Entries that lie whole in buf[pos:], starting before `start_limit`, into `out` (position, size, magic):
    `kafkalog.entries.EntryScanner`'s chunk scan on the fast path (the table's columns and the SCAN_ codes are its).

    Stops at the first entry that is not whole in `buf` or whose size is below
    the minimum or above `max_entry`, so that the caller can decide what that
    is (a chunk boundary or damage). Returns (entries, position reached, why).
    """
    n = 0
    end = len(buf)
    while pos < start_limit:
        if n >= out.shape[0]:
            return n, pos, SCAN_FULL
        if end - pos < HEADER_SIZE_UP_TO_MAGIC:
            return n, pos, SCAN_STOP
        length = k._int_be(buf, pos + 8, 4)
        if length < MIN_ENTRY_SIZE or length > max_entry or length > end - pos - LOG_OVERHEAD:
            return n, pos, SCAN_STOP
        out[n, ENTRY_POS] = pos
        out[n, ENTRY_LENGTH] = length
        magic = np.int64(buf[pos + 16])
        out[n, ENTRY_MAGIC] = magic - 256 if magic > 127 else magic
        n += 1
        pos += LOG_OVERHEAD + length
    return n, pos, SCAN_END


@nb.njit(cache=True, nogil=True)
def parse_batch_headers(buf, entries, rows, table, errors):
    """The v2 header (`kafka_record_batch.ksy`) of each entry `rows[i]` into `table[i]`; its error code
    into `errors[i]`."""
    for i in range(len(rows)):
        e = rows[i]
        pos = entries[e, ENTRY_POS]
        err, _ = k.parse_kafka_record_batch(buf, pos, pos + LOG_OVERHEAD + entries[e, ENTRY_LENGTH], table, i)
        errors[i] = err


@nb.njit(cache=True, nogil=True)
def parse_legacy_entries(buf, entries, rows, table, errors):
    """Each legacy entry `rows[i]` (`kafka_message_set.ksy`, type entry) into `table[:, i]`; its error code
    into `errors[i]`."""
    for i in range(len(rows)):
        e = rows[i]
        pos = entries[e, ENTRY_POS]
        err, _ = k.parse_kafka_message_set__entry(buf, pos, pos + LOG_OVERHEAD + entries[e, ENTRY_LENGTH], table, i)
        errors[i] = err


@nb.njit(cache=True, nogil=True)
def walk_messages(buf, pos, end, table):
    """The entries of a wrapper's inner message set into `table`, as Kafka's `DataLogInputStream` reads them:
    until fewer than 8 bytes (not even an offset) are left. Returns (entries, error code, position); error
    code 1 means the table is full."""
    n = 0
    while end - pos >= 8:
        if n >= table.shape[1]:
            return n, 1, pos
        err, after = k.parse_kafka_message_set__entry(buf, pos, end, table, n)
        if err != 0:
            return n, err, pos
        pos = after
        n += 1
    return n, 0, pos


@nb.njit(cache=True, nogil=True)
def walk_sections(buf, sec_pos, sec_end, sec_count, sec_partial, state, rec, record_headers, row_section, sec_good,
                  sec_err, sec_err_pos, sec_trailing_at):
    """Parse the records of sections state[0].. (`kafka_record.ksy`) into the tables `rec` and `record_headers`.

    `state` is [section, position, records done in it], updated so that a
    call after WALK_FULL (the record table is full) goes on where this one
    stopped; after WALK_HEADERS_FULL the caller grows `record_headers` and calls again
    with the same state. Each section ends with `sec_good` (records that
    parsed) and `sec_err` (0, a generated error code, BODY_TRAILING or
    SECTION_TRAILING) at `sec_err_pos`. A section marked in `sec_partial` is
    what decompressed before damage: records with bytes after their last header
    do not stop it (the first one's index goes to `sec_trailing_at`), and
    bytes after the declared records are not looked at.
    Returns (why it stopped, rows, header rows).
    """
    s = state[0]
    pos = state[1]
    done = state[2]
    row = 0
    hrow = 0
    nsec = len(sec_pos)
    while s < nsec:
        end = sec_end[s]
        count = sec_count[s]
        failed = False
        while done < count:
            if row >= rec.shape[1]:
                state[0] = s
                state[1] = pos
                state[2] = done
                return WALK_FULL, row, hrow
            err, after, hnext = k.parse_kafka_record(buf, pos, end, rec, row, record_headers, hrow)
            if err == 1:
                state[0] = s
                state[1] = pos
                state[2] = done
                if row == 0:
                    return WALK_HEADERS_FULL, row, hrow
                return WALK_FULL, row, hrow
            if err != 0:
                sec_err[s] = err
                if sec_trailing_at[s] < 0:  # (a partial section keeps where its first long record is)
                    sec_err_pos[s] = pos
                failed = True
                break
            if rec[k.KAFKA_RECORD__BODY__TRAILING__SIZE, row] != 0:
                if sec_partial[s] == 0:
                    sec_err[s] = BODY_TRAILING
                    sec_err_pos[s] = pos
                    failed = True
                    break
                if sec_trailing_at[s] < 0:
                    sec_trailing_at[s] = done
                    sec_err_pos[s] = pos
            row_section[row] = s
            pos = after
            hrow = hnext
            row += 1
            done += 1
        if not failed and pos != end and sec_partial[s] == 0:
            sec_err[s] = SECTION_TRAILING
            sec_err_pos[s] = pos
        sec_good[s] = done
        s += 1
        done = 0
        if s < nsec:
            pos = sec_pos[s]
    state[0] = s
    state[1] = pos
    state[2] = 0
    return WALK_DONE, row, hrow


@nb.njit(cache=True, nogil=True)
def byte_totals(size):
    """(bytes, nulls) of byte fields of these sizes: the sum of the sizes, and how many are null (size < 0)."""
    total = 0
    nulls = 0
    for i in range(len(size)):
        if size[i] >= 0:
            total += size[i]
        else:
            nulls += 1
    return total, nulls


@nb.njit(cache=True, nogil=True)
def record_columns(rec, n, row_section, batch_headers, offset, timestamp, sequence):
    """Kafka's absolute offset, timestamp and sequence of each record row, from its batch's header.

    As `DefaultRecordBatch`/`DefaultRecord`: offset = base offset + offset
    delta and timestamp = base timestamp + timestamp delta, wrapping as Java's
    long; with LogAppendTime every record has the batch's max timestamp; the
    sequence is `incrementSequence(base sequence, offset delta)` (wrapping from
    2^31-1 to 0), -1 where the batch has none.
    """
    for i in range(n):
        s = row_section[i]
        delta = rec[k.KAFKA_RECORD__BODY__OFFSET_DELTA, i]
        offset[i] = batch_headers[s, k.KAFKA_RECORD_BATCH__BASE_OFFSET] + delta
        if batch_headers[s, k.KAFKA_RECORD_BATCH__ATTRIBUTES__TIMESTAMP_TYPE] == 1:
            timestamp[i] = batch_headers[s, k.KAFKA_RECORD_BATCH__MAX_TIMESTAMP]
        else:
            timestamp[i] = (batch_headers[s, k.KAFKA_RECORD_BATCH__BASE_TIMESTAMP]
                            + rec[k.KAFKA_RECORD__BODY__TIMESTAMP_DELTA, i])
        base = batch_headers[s, k.KAFKA_RECORD_BATCH__BASE_SEQUENCE]
        if base < 0:
            sequence[i] = -1
        elif base > _s32(INT_MAX - delta):
            sequence[i] = _s32(delta - _s32(INT_MAX - base) - 1)
        else:
            sequence[i] = _s32(base + delta)


@nb.njit(cache=True, nogil=True, inline="always")
def _s32(x):
    return ((x & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


@nb.njit(cache=True, nogil=True)
def gather_pair(buf, a_pos, a_size, a_offsets, a_data, b_pos, b_size, b_offsets, b_data, a_utf8):
    """Copy two byte fields of the same rows (a record's key and value, a header's key and value) into
    Arrow's layout, in one pass: buf[pos[i]:pos[i] + size[i]] one after the other into `data` (nothing where
    size < 0; `data` holds the sum of the positive sizes), where each starts into `offsets` (n + 1 int32).
    Unsigned indices: numba then drops its negative-index checks and the copy loops vectorize.
    With `a_utf8`, returns the first row whose field a is not valid UTF-8 (as Python's strict
    decoder reads it), else -1."""
    bad = -1
    oa = np.uint64(0)
    ob = np.uint64(0)
    for i in range(len(a_pos)):
        a_offsets[i] = oa
        b_offsets[i] = ob
        n = a_size[i]
        if n > 0:
            p = np.uint64(a_pos[i])
            for j in range(np.uint64(n)):
                a_data[oa + j] = buf[p + j]
            if a_utf8 and bad < 0 and not _utf8(a_data, np.int64(oa), np.int64(oa) + n):
                bad = i
            oa += np.uint64(n)
        n = b_size[i]
        if n > 0:
            p = np.uint64(b_pos[i])
            for j in range(np.uint64(n)):
                b_data[ob + j] = buf[p + j]
            ob += np.uint64(n)
    a_offsets[len(a_pos)] = oa
    b_offsets[len(b_pos)] = ob
    return bad


@nb.njit(cache=True, nogil=True, inline="always")
def _utf8(data, p, end):
    """Whether data[p:end] is valid UTF-8 (as Python's strict decoder reads it)."""
    while p < end:
        b = data[p]
        if b < 0x80:
            p += 1
            continue
        if 0xC2 <= b <= 0xDF:
            n = 1
            lo, hi = 0x80, 0xBF
        elif b == 0xE0:
            n, lo, hi = 2, 0xA0, 0xBF
        elif 0xE1 <= b <= 0xEC or b == 0xEE or b == 0xEF:
            n, lo, hi = 2, 0x80, 0xBF
        elif b == 0xED:
            n, lo, hi = 2, 0x80, 0x9F
        elif b == 0xF0:
            n, lo, hi = 3, 0x90, 0xBF
        elif 0xF1 <= b <= 0xF3:
            n, lo, hi = 3, 0x80, 0xBF
        elif b == 0xF4:
            n, lo, hi = 3, 0x80, 0x8F
        else:
            return False
        if p + n >= end:
            return False
        c = data[p + 1]
        if c < lo or c > hi:
            return False
        for j in range(2, n + 1):
            c = data[p + j]
            if c < 0x80 or c > 0xBF:
                return False
        p += n + 1
    return True


@nb.njit(cache=True, nogil=True)
def control_types(buf, pos, size, out, table):
    """The control record type of each key (`kafka_control_record.ksy`) into `out`; -1 where a key does not parse."""
    for i in range(len(pos)):
        p = pos[i]
        n = size[i] if size[i] > 0 else 0
        err, _ = k.parse_kafka_control_record(buf, p, p + n, table, 0)
        out[i] = -1 if err != 0 else table[k.KAFKA_CONTROL_RECORD__TYPE, 0]


@nb.njit(cache=True, nogil=True)
def parse_offset_index_slots(buf, table):
    """Every whole 8-byte slot of an offset index (`kafka_offset_index.ksy`) into `table[:, slot]`."""
    for i in range(len(buf) // 8):
        k.parse_kafka_offset_index__index_entry(buf, 8 * i, 8 * i + 8, table, i)


@nb.njit(cache=True, nogil=True)
def parse_time_index_slots(buf, table):
    """Every whole 12-byte slot of a time index (`kafka_time_index.ksy`) into `table[:, slot]`."""
    for i in range(len(buf) // 12):
        k.parse_kafka_time_index__time_index_entry(buf, 12 * i, 12 * i + 12, table, i)
