"""The fused ops of the training stack (linear, conv, pooling, normalisation, attention,
losses, recurrent cells, embedding, dropout, resampling, straight-through); their public
wrappers are in :mod:`lucid.nn.functional`."""
