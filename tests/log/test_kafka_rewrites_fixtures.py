"""Where Java is present, Kafka's own library writes the fixtures and their reference reads again,
and they must equal the committed ones byte for byte: the expectations are Kafka's, not ours."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.paths import ROOT


@pytest.mark.skipif(shutil.which("java") is None or shutil.which("javac") is None,
                    reason="a JDK (java and javac) is needed to run Kafka's own writer")
def test_committed_fixtures_are_what_kafka_writes_and_reads():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "kafka_fixtures.py"), "check"],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
