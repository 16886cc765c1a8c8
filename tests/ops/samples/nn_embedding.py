"""Registry-suite samples: Embedding lookup and embedding_bag."""

SAMPLES = []
