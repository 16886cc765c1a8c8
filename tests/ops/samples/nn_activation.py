"""Registry-suite samples: the fused activation ops (GELU exact and tanh, SiLU)."""

import numpy as np
import torch.nn.functional as TF

import lucid.nn.functional as F

from ._sample import Sample, rnd

_X = rnd(3, 4, low=-4, high=4)

SAMPLES = [
    Sample("gelu", F.gelu, (_X,), torch_fn=TF.gelu),
    Sample("gelu", lambda x: F.gelu(x, approximate="tanh"), (_X,),
           torch_fn=lambda x: TF.gelu(x, approximate="tanh"), name="gelu[tanh]"),
    Sample("gelu", F.gelu, (np.array(0.7),), torch_fn=TF.gelu, name="gelu[0-d]"),
    Sample("gelu", F.gelu, (rnd(4, 3).T,), torch_fn=TF.gelu, name="gelu[transposed]"),
    Sample("gelu", F.gelu, (rnd(0, 3),), torch_fn=TF.gelu),
    Sample("silu", F.silu, (_X,), torch_fn=TF.silu),
    Sample("silu", F.silu, (np.array([-30.0, -1.0, 0.0, 2.0, 30.0]),), torch_fn=TF.silu,
           name="silu[saturated]"),
]
