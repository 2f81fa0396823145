"""Karapace, a real schema registry, run from its source tree against a test broker (for make_fixtures.py).

Karapace is not on PyPI: `KARAPACE_SRC` is a checkout of github.com/Aiven-Open/karapace (tag 3.15.0,
the newest that runs on Python 3.11 without Go) and `KARAPACE_PYTHON` a Python whose environment
has its dependencies (see tests/registry/fixtures/README.md).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.brokers.harness import free_port


@dataclass
class Karapace:
    bootstrap: str
    work: Path
    port: int = 0
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> Karapace:
        src = os.environ["KARAPACE_SRC"]
        python = os.environ.get("KARAPACE_PYTHON", "python3")
        self.port = free_port()
        self.work.mkdir(parents=True, exist_ok=True)
        config = self.work / "karapace.json"
        config.write_text(json.dumps({
            "bootstrap_uri": self.bootstrap, "host": "127.0.0.1", "port": self.port,
            "registry_host": "127.0.0.1", "registry_port": self.port, "advertised_hostname": "127.0.0.1",
            "advertised_port": self.port, "karapace_registry": True, "karapace_rest": False,
            "topic_name": "_schemas", "replication_factor": 1, "log_level": "INFO",
        }))
        log = open(self.work / "karapace.out", "ab")  # noqa: SIM115  (open as long as Karapace runs)
        self.proc = subprocess.Popen([python, "-m", "karapace.karapace_all", str(config)], cwd=src,
                                     env={**os.environ, "PYTHONPATH": src}, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Karapace exited: {(self.work / 'karapace.out').read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/subjects", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"Karapace did not answer: {(self.work / 'karapace.out').read_text()[-3000:]}")

    def get(self, path: str):
        with urllib.request.urlopen(f"{self.url}{path}", timeout=10) as r:
            return json.loads(r.read())

    def delete(self, path: str):
        req = urllib.request.Request(f"{self.url}{path}", method="DELETE")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
