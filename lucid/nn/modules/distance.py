"""CosineSimilarity, PairwiseDistance."""

__all__ = []
