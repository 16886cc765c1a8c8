"""PyTorch's path for :class:`ChannelShuffle` (``torch.nn.modules.channelshuffle``); the
class lives with the other channel rearrangements in :mod:`.pixelshuffle`."""

from .pixelshuffle import ChannelShuffle

__all__ = ["ChannelShuffle"]
