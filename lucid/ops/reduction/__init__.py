"""Reductions and scans over dims, sort and search, and statistics composed from them."""
