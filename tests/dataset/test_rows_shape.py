"""The Kafka source's columns of an Arrow batch (`rows.to_output`) made in one engine pass (`engine.kafka_columns`):
the same columns as the dataset layer's own per-column functions make them, on Kafka-written segments."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from kafkalog.dataset import decode, rows
from kafkalog.dataset.options import parse_options
from kafkalog.fast import compiled

ROOT = Path(__file__).resolve().parents[2]
#: Kafka-written segments of every magic (records without headers: null headers), a transaction's control records,
#: and damage rows (null timestamps: the per-column functions alone).
SEGMENTS = ["samples/v0-none.log", "samples/v1-gzip.log", "samples/v2-lz4.log", "samples/v2-transaction.log",
            "samples/mixed-formats.log", "tests/fixtures/segments/damaged-lz4-flip.log"]

pytestmark = pytest.mark.skipif(not compiled.BUILT, reason="the engine was not built")


def _by_column(raw: pa.RecordBatch, options) -> pa.RecordBatch:
    """`to_output` as each column's own function makes it (the path of an Arrow batch with damage rows)."""
    schema = rows.output_arrow_schema(options.include_headers, options.kafkalog_columns)
    columns = {"timestamp": rows.kafka_timestamp(raw.column("timestamp")),
               "timestampType": rows.timestamp_type_ids(raw.column("timestamp_type"))}
    if options.include_headers:
        columns["headers"] = rows.null_if_empty(raw.column("headers"))
    return pa.RecordBatch.from_arrays([columns[name] if name in columns else raw.column(name) for name in schema.names],
                                      schema=schema)


@pytest.mark.parametrize("headers", ["true", "false"])
def test_an_arrow_batch_is_shaped_in_one_pass_as_column_by_column(headers):
    options = parse_options({"includeHeaders": headers, "includeKafkalogColumns": "true"})
    shaped = 0
    for name in SEGMENTS:
        for raw in decode.read_segment(str(ROOT / name), mode="PERMISSIVE"):
            # (slices: the columns' offsets are not 0, nor a multiple of 8, in a validity bitmap)
            for part in (raw, raw.slice(1), raw.slice(3, max(0, raw.num_rows - 4)), raw.slice(raw.num_rows)):
                out = rows.to_output(part, options)
                out.validate(full=True)
                assert out.schema == rows.output_arrow_schema(options.include_headers, options.kafkalog_columns)
                assert out.equals(_by_column(part, options)), name
                assert out.to_pylist() == _by_column(part, options).to_pylist()
                shaped += raw.column("timestamp").null_count == 0
    assert shaped > 20  # most went through the engine's pass
    # An Arrow batch of `engine.RELEASE_ROWS` rows or more, which the pass makes without the GIL (the samples' are
    # shorter, made holding it): the same columns.
    batches = list(decode.read_segment(str(ROOT / "samples/v2-transaction.log"), mode="PERMISSIVE"))
    copies = compiled.engine.RELEASE_ROWS // sum(b.num_rows for b in batches) + 1
    whole = pa.Table.from_batches(batches * copies).combine_chunks().to_batches()[0]
    for part in (whole, whole.slice(3)):
        assert part.num_rows >= compiled.engine.RELEASE_ROWS
        assert rows.to_output(part, options).equals(_by_column(part, options))


def test_kafka_columns_refuses_offsets_shorter_than_its_rows():
    ms = np.arange(4, dtype=np.int64)
    ids = np.array([1, 2, 3], dtype=np.int32)
    offsets = np.arange(5, dtype=np.int32)
    no_headers = np.empty(0, dtype=np.int32)
    us, _, nulls, got, bitmap, header_nulls = compiled.kafka_columns(ms, 0, 2, 10, offsets, 0, ids, offsets[::-1].copy(),
                                                                      0)
    assert us.tolist() == [0, 10, 20, 0] and nulls == 1 and got.tolist() == [2, 2, 2, 2]
    assert np.unpackbits(bitmap, bitorder="little")[:4].tolist() == [1, 1, 1, 1] and header_nulls == 0
    with pytest.raises(ValueError):
        compiled.kafka_columns(ms, 0, 2, 10, offsets, 1, ids, no_headers, 0)
    with pytest.raises(ValueError):
        compiled.kafka_columns(ms, 0, 2, 10, offsets, 0, ids, offsets, 1)
    with pytest.raises(ValueError):
        compiled.kafka_columns(ms, 0, 2, 10, offsets, 0, ids[:0], no_headers, 0)
