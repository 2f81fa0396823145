"""The generated code, installed as `kafkalog._generated`: do not edit by hand.

- kafka_*.py: the Kaitai Struct compiler's Python parsers of schemas/*.ksy (the object path, and the
  reference), with their imports of each other made relative by scripts/generate.py;
- kafka_kernels.py: the columnar kernels scripts/kernels.py writes from the same specs (the fast path), and
  kafka_kernels.pxi, their Cython twin, which kafkalog/fast/engine.pyx includes and compiles at install;
- kafka_kernel_columns.py: the kernels' tables' columns and error codes, without numba (kafka_kernels.py
  imports them; the engine's readers import them alone);
- internal_topics_catalog.py: Kafka's names for the internal-topic records (scripts/message_specs.py).

Regenerate with `python scripts/generate.py`; tests/generated/test_generated_code.py fails when this is stale.
"""
