"""PixelShuffle, PixelUnshuffle, ChannelShuffle."""

__all__ = []
