"""The object path: each spec's generated Kaitai parser, turned into kafkalog's results.

One module per spec family, each the twin of the fast-path module of the same name in
`kafkalog.fast` where there is one. These parsers are the reference: the fast path is tested
against them, field for field.
"""
