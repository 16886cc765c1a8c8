"""The rest of PyTorch's surface composed from registered ops, and PyTorch's other names for
what Lucid computes."""
