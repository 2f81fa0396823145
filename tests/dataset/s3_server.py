"""A real S3-protocol server on 127.0.0.1 for the tests: moto's standalone server (`moto.server`, PyPI's
`moto[server]`), which answers the S3 HTTP API to any client, pyarrow's S3 filesystem included."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from pyarrow import fs as pafs


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def s3_server(log: Path, record: Path | None = None) -> Iterator[dict[str, str]]:
    """Run the server; yield the environment that points S3 clients (pyarrow, Spark's Python workers) at it.
    `record`: moto's recorder appends each request there (a JSON line) before answering it, so that a client that
    has its answers can count them."""
    port = _free_port()
    recording = {"MOTO_ENABLE_RECORDING": "true", "MOTO_RECORDER_FILEPATH": str(record)} if record else {}
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, **recording})
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the S3 server did not start; {log}:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "kafkalog",
               "AWS_SECRET_ACCESS_KEY": "kafkalog", "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def upload(env: dict[str, str], local: Path, bucket_path: str) -> None:
    """Copy a local folder to s3://<bucket_path>, creating the bucket."""
    endpoint = env["AWS_ENDPOINT_URL"].removeprefix("http://")
    s3 = pafs.S3FileSystem(endpoint_override=endpoint, scheme="http", access_key=env["AWS_ACCESS_KEY_ID"],
                           secret_key=env["AWS_SECRET_ACCESS_KEY"], region=env["AWS_REGION"],
                           allow_bucket_creation=True)
    s3.create_dir(bucket_path.split("/", 1)[0])
    pafs.copy_files(str(local), bucket_path, source_filesystem=pafs.LocalFileSystem(), destination_filesystem=s3)


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
