"""Embedding lookup and embedding_bag."""

from __future__ import annotations

__all__ = []
