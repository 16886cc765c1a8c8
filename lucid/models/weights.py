"""Pretrained weights by name, as torchvision's ``*_Weights`` enums: each member holds the
checkpoint's URL (torchvision's files, which load into :mod:`.resnet`'s models as they
are and into :mod:`.vit`'s through its key map and configuration) and its metadata (the
parameter count, ImageNet-1k accuracy, the preprocessing the weights were trained with);
``DEFAULT`` is the best of them. ``get_state_dict`` fetches the file once into the hub
cache (:mod:`lucid.hub`), refusing a download whose SHA-256 does not start with the prefix
in its name.

The files are torchvision's (BSD-3-Clause, trained by PyTorch's team); the URLs and
accuracies are as torchvision publishes them. ``meta["categories"]`` holds ImageNet-1k's
1000 class names in the order of the logits (``imagenet_categories.txt`` beside this file,
one per line, as torchvision lists them).
"""

from __future__ import annotations

import importlib
import importlib.resources
from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

from .. import hub
from ..errors import ArgumentError

__all__ = [
    "Weights",
    "WeightsEnum",
    "ResNet18_Weights",
    "ResNet34_Weights",
    "ResNet50_Weights",
    "ResNet101_Weights",
    "ResNet152_Weights",
    "ResNeXt50_32X4D_Weights",
    "Wide_ResNet50_2_Weights",
    "ViT_B_16_Weights",
    "weights_for",
]

_BASE = "https://download.pytorch.org/models/"
_IMAGENET = dict(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), crop_size=224)
_CATEGORIES = tuple(
    importlib.resources.files(__package__)
    .joinpath("imagenet_categories.txt")
    .read_text()
    .splitlines()
)


@dataclass(frozen=True)
class Weights:
    """One checkpoint: its ``url`` and ``meta`` (``num_params``, ``acc@1``, ``acc@5``,
    ``categories``: the class of each logit, ``preprocessing``: resize, center crop, mean
    and std); for a model whose names or defaults differ from the file's, the ``config``
    overrides the model is built with and the ``convert`` that renames the file's state
    dict (``"module.function"`` of :mod:`lucid.models`)."""

    url: str
    meta: dict = field(hash=False, compare=False)
    config: dict = field(default_factory=dict, hash=False, compare=False)
    convert: Optional[str] = field(default=None, hash=False, compare=False)

    @property
    def sha256_prefix(self):
        """The digest prefix the file name promises (``name-<hex>.pth``)."""
        return hub._HASH.search(self.url.rsplit("/", 1)[-1]).group(1)


class WeightsEnum(Enum):
    """The checkpoints of one model: ``url``, ``meta`` and :meth:`get_state_dict`."""

    @property
    def url(self):
        return self.value.url

    @property
    def meta(self):
        return self.value.meta

    @property
    def config(self):
        return self.value.config

    def get_state_dict(self, progress=True, check_hash=True):
        """The checkpoint's ``state_dict`` as the file holds it (torchvision's names),
        fetched into the hub cache on first use."""
        return hub.load_state_dict_from_url(self.url, progress=progress, check_hash=check_hash)

    def lucid_state_dict(self, progress=True, check_hash=True):
        """:meth:`get_state_dict` under the Lucid model's names."""
        sd = self.get_state_dict(progress=progress, check_hash=check_hash)
        if self.value.convert is None:
            return sd
        module, name = self.value.convert.rsplit(".", 1)  # (by name: the family imports us)
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(sd)

    @classmethod
    def verify(cls, obj):
        """``obj`` as a member: a member itself, or its name (``"DEFAULT"``,
        ``"IMAGENET1K_V1"``); None stays None."""
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, str) and obj in cls.__members__:
            return cls.__members__[obj]
        raise ArgumentError(
            f"{cls.__name__}: unknown weights {obj!r}; expected one of "
            + ", ".join(cls.__members__)
        )


def _w(file, params, acc1, acc5, resize, **kw):
    return Weights(
        _BASE + file,
        dict(
            num_params=params,
            categories=_CATEGORIES,
            **{"acc@1": acc1, "acc@5": acc5},
            preprocessing=dict(resize_size=resize, **_IMAGENET),
        ),
        **kw,
    )


class ResNet18_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet18-f37072fd.pth", 11_689_512, 69.758, 89.078, 256)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet34-b627a593.pth", 21_797_672, 73.314, 91.420, 256)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet50-0676ba61.pth", 25_557_032, 76.130, 92.862, 256)
    IMAGENET1K_V2 = _w("resnet50-11ad3fa6.pth", 25_557_032, 80.858, 95.434, 232)
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet101-63fe2227.pth", 44_549_160, 77.374, 93.546, 256)
    IMAGENET1K_V2 = _w("resnet101-cd907fc2.pth", 44_549_160, 81.886, 95.780, 232)
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnet152-394f9c45.pth", 60_192_808, 78.312, 94.046, 256)
    IMAGENET1K_V2 = _w("resnet152-f82ba261.pth", 60_192_808, 82.284, 96.002, 232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt50_32X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("resnext50_32x4d-7cdf4587.pth", 25_028_904, 77.618, 93.698, 256)
    IMAGENET1K_V2 = _w("resnext50_32x4d-1a0047aa.pth", 25_028_904, 81.198, 95.340, 232)
    DEFAULT = IMAGENET1K_V2


class Wide_ResNet50_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("wide_resnet50_2-95faca4d.pth", 68_883_240, 78.468, 94.086, 256)
    IMAGENET1K_V2 = _w("wide_resnet50_2-9ba9bcbe.pth", 68_883_240, 81.602, 95.758, 232)
    DEFAULT = IMAGENET1K_V2


class ViT_B_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(
        "vit_b_16-c867db91.pth",
        86_567_656,
        81.072,
        95.318,
        256,
        config=dict(layer_norm_eps=1e-6),
        convert="vit.convert_torchvision_state_dict",
    )
    DEFAULT = IMAGENET1K_V1


_BY_MODEL = {
    "resnet18": ResNet18_Weights,
    "resnet34": ResNet34_Weights,
    "resnet50": ResNet50_Weights,
    "resnet101": ResNet101_Weights,
    "resnet152": ResNet152_Weights,
    "resnext50_32x4d": ResNeXt50_32X4D_Weights,
    "wide_resnet50_2": Wide_ResNet50_2_Weights,
    "vit_b_16": ViT_B_16_Weights,
}


def weights_for(name):
    """The :class:`WeightsEnum` of model ``name``, or None where none is registered (the
    language models load Hugging Face checkpoints with their ``from_pretrained``)."""
    return _BY_MODEL.get(name)
