"""Normalisation: batch_norm, layer_norm, group_norm, instance_norm, rms_norm, local_response_norm."""

__all__ = []
