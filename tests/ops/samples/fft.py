"""Registry-suite samples of the Fourier-transform ops (lucid.ops.signal.fft) through lucid.fft:
every public transform, sizes that trim and pad, each norm, several dims, real and complex
inputs. fft_c2c is holomorphic (complex variants come automatically); the half-spectrum
ops have explicit complex samples."""

import torch

import lucid

from ._sample import Sample, crnd, rnd

_X = rnd(3, 8)
_X3 = rnd(2, 5, 6, seed=1)
_Z = crnd(3, 5, seed=2)
_Z3 = crnd(2, 4, 5, seed=3)


def _s(op, name, args, tag="", **kw):
    lfn, tfn = getattr(lucid.fft, name), getattr(torch.fft, name)
    return Sample(
        op, lambda *a: lfn(*a, **kw), args, torch_fn=lambda *a: tfn(*a, **kw), name=f"{name}{tag}"
    )


SAMPLES = [
    _s("fft_c2c", "fft", (_X,)),
    _s("fft_c2c", "fft", (_X,), "[n=5,dim=0,ortho]", n=5, dim=0, norm="ortho"),
    _s("fft_c2c", "ifft", (_X,), "[n=11,forward]", n=11, norm="forward"),
    _s("fft_c2c", "fft2", (_X3,)),
    _s("fft_c2c", "ifftn", (_X3,), "[s=(3,4),dim=(0,2)]", s=(3, 4), dim=(0, 2)),
    _s("fft_c2c", "fftn", (_X3,), "[s=(4,7)]", s=(4, 7)),
    _s("fft_r2c", "rfft", (_X,)),
    _s("fft_r2c", "rfft", (_X,), "[n=5,dim=0,ortho]", n=5, dim=0, norm="ortho"),
    _s("fft_r2c", "rfft2", (_X3,), "[forward]", norm="forward"),
    _s("fft_r2c", "rfftn", (_X3,), "[s=(3,4),dim=(2,0)]", s=(3, 4), dim=(2, 0)),
    _s("fft_r2c", "ihfft", (_X,), "[n=7]", n=7),
    _s("fft_c2r", "irfft", (_Z,)),
    _s("fft_c2r", "irfft", (_Z,), "[n=9,dim=0,ortho]", n=9, dim=0, norm="ortho"),
    _s("fft_c2r", "irfft", (_Z,), "[n=6,forward]", n=6, norm="forward"),
    _s("fft_c2r", "irfft2", (_Z3,)),
    _s("fft_c2r", "irfftn", (_Z3,), "[s=(3,7),dim=(0,2)]", s=(3, 7), dim=(0, 2)),
    _s("fft_c2r", "hfft", (_Z,), "[n=7]", n=7),
    _s("fft_c2r", "hfft", (_Z,), "[ortho]", norm="ortho"),
    _s("fft_c2r", "irfft", (_X,), "[real input]"),
    _s("fft_c2r", "hfftn", (_Z3,), "[s=(3,6),dim=(0,2)]", s=(3, 6), dim=(0, 2)),
    _s("fft_r2c", "ihfft2", (_X3,), "[ortho]", norm="ortho"),
]
