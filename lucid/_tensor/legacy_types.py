"""PyTorch's legacy tensor types (``torch.FloatTensor``, ``torch.cuda.LongTensor``, ...)
as Lucid names them: ``lucid.FloatTensor`` and ``lucid.cuda.FloatTensor``.

Each is a class that (as in PyTorch) builds a tensor of its dtype and device when called —
``FloatTensor(2, 3)`` uninitialised, ``LongTensor([1, 2])`` from data — and that
``isinstance`` matches on exactly that dtype and device type
(``isinstance(lucid.ones(2), lucid.FloatTensor)``). :data:`TYPE_NAMES` is the table of
names per dtype that ``Tensor.type()`` prints.
"""

from __future__ import annotations

from .. import dtypes as _dt
from .tensor import Tensor

__all__ = ["TYPE_NAMES", "CPU_TYPES", "CUDA_TYPES"]

TYPE_NAMES = {
    _dt.float32: "FloatTensor",
    _dt.float64: "DoubleTensor",
    _dt.float16: "HalfTensor",
    _dt.bfloat16: "BFloat16Tensor",
    _dt.uint8: "ByteTensor",
    _dt.int8: "CharTensor",
    _dt.int16: "ShortTensor",
    _dt.int32: "IntTensor",
    _dt.int64: "LongTensor",
    _dt.bool: "BoolTensor",
    _dt.complex64: "ComplexFloatTensor",
    _dt.complex128: "ComplexDoubleTensor",
}


class _LegacyTensorType(type):
    """The metaclass: calling a legacy type constructs, ``isinstance`` checks dtype and
    device type."""

    def __call__(cls, *args, device=None):
        return Tensor(*args, dtype=cls.dtype, device=cls._device_type if device is None else device)

    def __instancecheck__(cls, obj):
        return (
            isinstance(obj, Tensor)
            and obj.dtype is cls.dtype
            and obj.device.type == cls._device_type
        )

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"

    @property
    def is_cuda(cls):
        return cls._device_type == "cuda"


def _types(device_type, module):
    out = {}
    for dt, name in TYPE_NAMES.items():
        out[name] = _LegacyTensorType(
            name,
            (Tensor,),
            {
                "__slots__": (),
                "__module__": module,
                "dtype": dt,
                "_device_type": device_type,
                "__doc__": f"PyTorch's legacy ``{name}``: {dt} tensors on the {device_type}.",
            },
        )
    return out


CPU_TYPES = _types("cpu", "lucid")
CUDA_TYPES = _types("cuda", "lucid.cuda")
