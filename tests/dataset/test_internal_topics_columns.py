"""The Spark reader's decode=true option: key_decoded / value_decoded as JSON strings."""
from __future__ import annotations

import json

from kafkalog.dataset.decode import read_segment_table as read_table
from kafkalog.dataset.internal_topics import decoded_columns
from tests.paths import ROOT

INTERNAL = ROOT / "tests" / "fixtures" / "internal"
EXPECTED = INTERNAL / "expected" / "__consumer_offsets-0-00000000000000000000.log.jsonl"


def test_arrow_columns_hold_the_dump_decoding():
    table = read_table(INTERNAL / "__consumer_offsets-0" / "00000000000000000000.log", topic="__consumer_offsets")
    keys, values = [], []
    for arrow_batch in table.to_batches():
        k, v = decoded_columns(arrow_batch)
        keys += k.to_pylist()
        values += v.to_pylist()
    want = [json.loads(line) for line in EXPECTED.read_text().splitlines()]
    assert [json.loads(k) if k else None for k in keys] == [w["key_decoded"] for w in want]
    assert [json.loads(v) if v else None for v in values] == [w["value_decoded"] for w in want]


def test_latest_committed_offset_per_group_topic_partition(spark):
    df = (spark.read.format("kafkalog").option("decode", "true")
          .load(str(INTERNAL / "__consumer_offsets-0")))
    assert df.schema["key_decoded"].dataType.simpleString() == "string"
    df.createOrReplaceTempView("offsets")
    rows = spark.sql("""
        SELECT get_json_object(key_decoded, '$.data.group') AS group_id,
               get_json_object(key_decoded, '$.data.topic') AS topic,
               CAST(get_json_object(key_decoded, '$.data.partition') AS INT) AS partition,
               max_by(CAST(get_json_object(value_decoded, '$.data.offset') AS BIGINT), offset) AS committed
        FROM offsets
        WHERE get_json_object(key_decoded, '$.type') = 'OffsetCommitKey' AND value_decoded IS NOT NULL
        GROUP BY 1, 2, 3""").collect()
    want = {}
    for line in EXPECTED.read_text().splitlines():
        w = json.loads(line)
        if w["key_decoded"] and w["key_decoded"]["type"] == "OffsetCommitKey" and w["value_decoded"]:
            d = w["key_decoded"]["data"]
            want[(d["group"], d["topic"], d["partition"])] = w["value_decoded"]["data"]["offset"]
    assert {(r.group_id, r.topic, r.partition): r.committed for r in rows} == want

    from kafkalog.spark.datasource import KafkaLogDataSource
    assert "key_decoded" not in KafkaLogDataSource({"path": "x"}).schema()
    assert "`key_decoded` string" in KafkaLogDataSource({"path": "x", "decode": "true"}).schema()
