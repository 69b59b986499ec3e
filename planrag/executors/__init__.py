"""Executors: one module per retrieval strategy, registered by name (`registry.register`).

Importing this package registers the built-in strategies, in this order (the order of the plan
schema's enum and of every list of strategies). A new built-in executor is its module plus one
line here.
"""

from planrag.executors import ann, keyword, bm25, hybrid, rerank  # noqa: F401, I001
