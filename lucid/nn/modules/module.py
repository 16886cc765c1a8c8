"""Module: parameters, buffers, submodules, hooks, state_dict."""

__all__ = []
