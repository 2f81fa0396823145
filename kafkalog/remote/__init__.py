"""Tiered-storage objects (KIP-405) read back into Kafka's segment bytes, offline.

Aiven's `tiered-storage-for-apache-kafka` keeps a segment as three objects (`aiven_manifest`: the
`.rsm-manifest`; `aiven_object`: the chunked, optionally compressed and encrypted `.log`, and the
`.indexes`; `aiven_keys`: the RSA private keys that unwrap an encrypted segment's data key). Kafka's own
`LocalTieredStorage` keeps plain Kafka files, read as local ones (`kafkalog.dataset.remote_roots` lists both).

"Remote" in kafkalog means this only: Kafka's remote storage (KIP-405's remote log segments, `--remote-root`,
option `remoteRoot`). A file read through `pyarrow.fs` is "behind a URI" (`kafkalog.location.Location.is_uri`),
whether it is a remote segment or a local partition's copy in a bucket.
"""
