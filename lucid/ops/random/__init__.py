"""Random sampling from :class:`lucid.Generator` streams."""
