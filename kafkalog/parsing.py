"""What the generated parsers raise on bytes that do not fit their spec."""
from __future__ import annotations

from kaitaistruct import KaitaiStructError

#: Kaitai's validation errors, a read past the end of a (sub)stream, a negative size.
PARSE_ERRORS = (KaitaiStructError, EOFError, ValueError)


def describe(exc: BaseException) -> str:
    """A one-line account of a parse error, without the parser's internal paths."""
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, EOFError):
        return f"data ends early ({text})"
    return text
