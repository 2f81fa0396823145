"""Java's fixed-width integer arithmetic, where Kafka's results depend on it wrapping."""
from __future__ import annotations

INT_MAX = 0x7FFFFFFF


def s32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n >= 1 << 31 else n


def s64(n: int) -> int:
    n &= 0xFFFFFFFFFFFFFFFF
    return n - (1 << 64) if n >= 1 << 63 else n


def increment_sequence(sequence: int, increment: int) -> int:
    """`DefaultRecordBatch.incrementSequence`: sequences wrap from 2^31-1 to 0."""
    if sequence > s32(INT_MAX - increment):
        return s32(increment - s32(INT_MAX - sequence) - 1)
    return s32(sequence + increment)


def decrement_sequence(sequence: int, decrement: int) -> int:
    """`DefaultRecordBatch.decrementSequence`: a sequence `decrement` back, wrapping below 0 as Kafka's does."""
    if sequence < decrement:
        return 0x7FFFFFFF - (decrement - sequence) + 1
    return sequence - decrement
