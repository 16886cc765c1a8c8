"""Distances: cosine_similarity, pairwise_distance, normalize, pdist."""

__all__ = []
