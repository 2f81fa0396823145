"""The generated code, installed as `kafkalog._generated`: do not edit by hand.

- kafka_*.py: the Kaitai Struct compiler's Python parsers of schemas/*.ksy (the object path, and the
  reference), with their imports of each other made relative by scripts/generate.py;
- kafka_kernels.pxi: the columnar kernels scripts/kernels.py writes from the same specs for Cython (the
  fast path), which kafkalog/fast/engine.pyx includes and compiles when the package is installed;
- kafka_kernel_columns.py: the kernels' tables' columns and error codes, as Python (the engine's readers
  import them);
- internal_topics_catalog.py: Kafka's names for the internal-topic records (scripts/message_specs.py).

Regenerate with `python scripts/generate.py`; tests/generated/test_generated_code.py fails when this is stale.
"""
