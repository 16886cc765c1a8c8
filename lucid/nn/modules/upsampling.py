"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d."""

__all__ = []
