"""Packed sequences: pad_sequence, pack_padded_sequence, pad_packed_sequence, PackedSequence."""

__all__ = []
