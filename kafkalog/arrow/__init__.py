"""Kafka's records as Arrow record batches."""
