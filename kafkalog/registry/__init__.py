"""Keys and values framed for a schema registry, decoded offline with the schemas of a `_schemas` topic.

`store` rebuilds every registered schema from the `_schemas` records (or an export); `framing` reads
the wire format's prefix (`schemas/schema_registry_framing.ksy`); `avro`, `protobuf` and
`json_schema` decode bodies with well-kept libraries; `values` puts them together per record;
`arrow_types` gives a subject's schema as Arrow and Spark types, as spark-avro and spark-protobuf do.
"""
