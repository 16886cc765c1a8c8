"""Registry-suite samples: the fused LSTM and GRU cells of the recurrent layers."""

import torch

from lucid.ops.nn.rnn import fused_gru_cell, fused_lstm_cell

from ._sample import Sample, rnd


def _torch_lstm(a, c):
    i, f, g, o = a.chunk(4, -1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def _torch_gru(xg, hg, h):
    xr, xz, xn = xg.chunk(3, -1)
    hr, hz, hn = hg.chunk(3, -1)
    n = torch.tanh(xn + torch.sigmoid(xr + hr) * hn)
    return n + torch.sigmoid(xz + hz) * (h - n)


SAMPLES = [
    Sample(
        "lstm_cell",
        fused_lstm_cell,
        (rnd(3, 8, low=-3, high=3), rnd(3, 2, seed=1)),
        torch_fn=_torch_lstm,
        name="lstm_cell[B=3, H=2]",
    ),
    Sample(
        "lstm_cell",
        fused_lstm_cell,
        (rnd(1, 4), rnd(1, 1, seed=1)),
        torch_fn=_torch_lstm,
        name="lstm_cell[H=1]",
    ),
    Sample(
        "gru_cell",
        fused_gru_cell,
        (rnd(3, 6, low=-3, high=3), rnd(3, 6, seed=1), rnd(3, 2, seed=2)),
        torch_fn=_torch_gru,
        name="gru_cell[B=3, H=2]",
    ),
]
