"""lucid.save / lucid.load on the safetensors format."""

__all__ = []
