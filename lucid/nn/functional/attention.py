"""Attention: scaled_dot_product_attention, multi_head_attention_forward."""

__all__ = []
