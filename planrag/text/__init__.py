"""Text processing shared by indexing and query time: Kiwi, the lexical tokenizer, entity names."""
