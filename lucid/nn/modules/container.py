"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

__all__ = []
