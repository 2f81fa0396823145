"""The fast path: the columnar kernels kafkalog's generator writes from the specs, into Arrow.

One module per spec family, each the twin of the object-path module of the same name in
`kafkalog.formats`. What the kernels do not take is handed to the object path.
"""
