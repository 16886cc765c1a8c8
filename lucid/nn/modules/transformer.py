"""TransformerEncoder/Decoder(Layer), Transformer."""

__all__ = []
