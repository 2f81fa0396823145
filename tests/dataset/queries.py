"""The worked examples of docs/python.md, shared by the tests that hold them to Kafka's answers."""
from __future__ import annotations

import duckdb
import polars as pl
import pyarrow as pa

#: The latest committed offset of each consumer group and partition, from __consumer_offsets read with
#: decode=true. A commit whose value is null (a tombstone: the offset was deleted) leaves no row.
LATEST_COMMITS_SQL = """
WITH commits AS (
    SELECT json_extract_string(key_decoded, '$.data.group') AS "group",
           json_extract_string(key_decoded, '$.data.topic') AS topic,
           CAST(json_extract(key_decoded, '$.data.partition') AS INTEGER) AS partition,
           CAST(json_extract(value_decoded, '$.data.offset') AS BIGINT) AS committed,
           "offset" AS log_offset
    FROM reader
    WHERE json_extract_string(key_decoded, '$.type') = 'OffsetCommitKey'
)
SELECT "group", topic, partition, arg_max(committed, log_offset) AS committed
FROM commits
GROUP BY ALL
HAVING arg_max(committed, log_offset) IS NOT NULL
ORDER BY ALL
"""


def latest_commits(reader: pa.RecordBatchReader) -> list[tuple[str, str, int, int]]:
    """DuckDB over a read_arrow reader (found by its variable name, as DuckDB scans Arrow streams)."""
    return duckdb.sql(LATEST_COMMITS_SQL).fetchall()


def records_per_minute(reader: pa.RecordBatchReader) -> dict[int, int]:
    """Polars over a read_arrow reader: records of each minute, keyed by the minute's epoch milliseconds."""
    df = pl.from_arrow(reader)
    per_minute = (df.group_by(pl.col("timestamp").dt.truncate("1m").alias("minute")).len()
                  .with_columns(pl.col("minute").dt.epoch("ms")).sort("minute"))
    return dict(per_minute.iter_rows())
