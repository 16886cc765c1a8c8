"""The base of the families' configurations: dataclasses under Hugging Face's
``config.json`` names, read from such a dict and copied with overrides."""

from __future__ import annotations

import dataclasses

from ..errors import ArgumentError

__all__ = ["ModelConfig"]


class ModelConfig:
    """Mixed into each family's configuration dataclass."""

    @classmethod
    def known(cls, d):
        """The entries of ``d`` that are fields of this configuration."""
        names = {f.name for f in dataclasses.fields(cls)}
        return {k: v for k, v in d.items() if k in names}

    @classmethod
    def from_dict(cls, d):
        """The configuration from a ``config.json`` dict (other keys ignored)."""
        return cls(**cls.known(d))

    def updated(self, who, overrides):
        """A copy with ``overrides`` (checked again as a new one is); an unknown key is an
        :class:`~lucid.errors.ArgumentError` naming ``who``."""
        names = {f.name for f in dataclasses.fields(self)}
        for k in overrides:
            if k not in names:
                raise ArgumentError(f"{who}: unknown configuration key {k!r}")
        # a field still at the value derived from others is derived again from the new ones
        derived = {k: None for k, v in self.derived().items() if k not in overrides and v}
        return dataclasses.replace(self, **{**derived, **overrides})

    def derived(self):
        """``{field: whether it holds the value its __post_init__ derives from others}``
        for the fields given as None by default (none here; a family lists its own)."""
        return {}
