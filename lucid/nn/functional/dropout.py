"""Dropout family: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout."""

__all__ = []
