"""Internal-topic decoding for Arrow batches: the `key_decoded` and `value_decoded` columns.

The Spark reader's `decode=true` option adds them; each is the JSON text of what
`kafkalog dump --format json` prints under the same names (`kafkalog.formats.internal_topics`), or null
(a null key, a tombstone, a record of an ordinary topic, a damage row, bytes that do not decode).
"""
from __future__ import annotations

import json

import pyarrow as pa

from kafkalog.formats.internal_topics import decode_record, decoder_for_topic

#: The two columns, as Spark DDL to append to the reader's schema.
DECODED_DDL = ", `key_decoded` string, `value_decoded` string"


def decoded_columns(arrow_batch: pa.RecordBatch, topic: str | None = None) -> tuple[pa.Array, pa.Array]:
    """`key_decoded` and `value_decoded` of an Arrow batch with the columns of `kafkalog.fast.columns.SCHEMA`.

    The decoder of each row comes from `topic` when given, else from the row's `topic` column.
    """
    topics = [topic] * arrow_batch.num_rows if topic is not None else arrow_batch.column("topic").to_pylist()
    keys = arrow_batch.column("key").to_pylist()
    values = arrow_batch.column("value").to_pylist()
    controls = arrow_batch.column("control_type").to_pylist()
    damage = arrow_batch.column("damage").to_pylist()
    key_out: list[str | None] = []
    value_out: list[str | None] = []
    for t, k, v, c, d in zip(topics, keys, values, controls, damage, strict=True):
        decoded = None if d is not None else decode_record(decoder_for_topic(t), k, v, c)
        key_out.append(None if decoded is None or decoded.key is None else _json(decoded.key))
        value_out.append(None if decoded is None or decoded.value is None else _json(decoded.value))
    return pa.array(key_out, pa.string()), pa.array(value_out, pa.string())


def _json(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
