"""`kafkalog ingest`: Spark read, Parquet out, summary and exit status."""
from __future__ import annotations

import argparse

from kafkalog.spark.ingest import run_ingest
from tests.spark.expect import PARTITIONS, SEGMENTS


def ingest(spark, path, output, *options):
    return run_ingest(argparse.Namespace(path=str(path), output=str(output), master="local[2]", option=list(options)))


def test_ingest_writes_parquet_and_summarises(spark, tmp_path, capsys):
    out = tmp_path / "payments"
    assert ingest(spark, PARTITIONS / "payments-0", out, "isolation.level=read_committed") == 0
    written = spark.read.parquet(str(out))
    plain = spark.read.format("kafkalog").option("isolation.level", "read_committed").load(str(PARTITIONS / "payments-0"))
    assert written.count() == plain.count() > 0
    assert sorted(r.offset for r in written.select("offset").collect()) == sorted(
        r.offset for r in plain.select("offset").collect())
    assert f"3 segment(s), {written.count()} record row(s), 0 damage row(s)" in capsys.readouterr().out


def test_ingest_exit_status_1_on_damage(spark, tmp_path, capsys):
    assert ingest(spark, SEGMENTS / "damaged-v2-value-flip.log", tmp_path / "d") == 1
    out = capsys.readouterr().out
    assert "1 damage row(s)" in out and "byte 118" in out
    assert spark.read.parquet(str(tmp_path / "d")).where("damage is not null").count() == 1


def test_ingest_refuses_an_existing_output(spark, tmp_path):
    assert ingest(spark, SEGMENTS / "v2-none.log", tmp_path) == 2
