"""``lucid.utils.data``: datasets, samplers, DataLoader with worker processes."""
