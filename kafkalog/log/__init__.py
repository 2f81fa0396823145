"""Kafka's files on disk: segments read entry by entry, partition directories, lookups, transactions."""
