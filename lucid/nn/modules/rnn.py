"""Recurrent layers: RNN, LSTM, GRU and their cells.

Composed from Lucid ops with PyTorch's parameter names (``weight_ih_l0``, ``weight_hh_l0``,
``bias_ih_l0``, ``bias_hh_l0``, ``weight_hr_l0`` for a projected LSTM, ``..._reverse`` for
the backward direction), shapes, gate order and initialisation
(:math:`\\mathcal U(-1/\\sqrt{H}, 1/\\sqrt{H})` for every parameter), so a PyTorch state dict
loads by name. Each layer and direction projects the whole input sequence with one GEMM
(``x W_ih^T + b``), then steps through time with one GEMM of the hidden state per step and
one fused cell op (:mod:`lucid.ops.nn.rnn`: the LSTM and GRU gates with their analytic
backward). A
padded input runs as a :class:`~lucid.nn.utils.rnn.PackedSequence` whose batch never
shrinks, so both kinds of input share one loop: at step ``t`` only the first
``batch_sizes[t]`` rows advance, the others keep their state.

Gates (:math:`\\sigma` the sigmoid):

- RNN: :math:`h' = \\tanh(x W_{ih}^T + b_{ih} + h W_{hh}^T + b_{hh})` (or ReLU);
- LSTM: :math:`i, f, g, o` = chunks of :math:`x W_{ih}^T + b_{ih} + h W_{hh}^T + b_{hh}`,
  :math:`c' = \\sigma(f) c + \\sigma(i) \\tanh(g)`, :math:`h' = \\sigma(o) \\tanh(c')`
  (times :math:`W_{hr}^T` with ``proj_size``);
- GRU: :math:`r, z` = :math:`\\sigma` of the sums of the first two chunks,
  :math:`n = \\tanh(x W_{in}^T + b_{in} + r (h W_{hn}^T + b_{hn}))`,
  :math:`h' = (1 - z) n + z h`.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ..._tensor import Tensor
from ...errors import ArgumentError, DTypeError, ShapeError
from ...ops import cat, empty, matmul, relu, stack, tanh, zeros
from ...ops.nn.rnn import fused_gru_cell, fused_lstm_cell
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# -- one time step ----------------------------------------------------------------------------


def _rnn_step(act):
    def step(gx, h, w_hh_t, b_hh):
        gh = matmul(h, w_hh_t)
        return act(gx + gh if b_hh is None else gx + gh + b_hh)

    return step


def _lstm_step(gx, h, c, w_hh_t, b_hh, w_hr_t):
    """One LSTM step: ``(h', c')``; ``gx`` is the input's projection (with its bias)."""
    gates = gx + matmul(h, w_hh_t)
    if b_hh is not None:
        gates = gates + b_hh
    h, c = fused_lstm_cell(gates, c)
    return (h if w_hr_t is None else matmul(h, w_hr_t)), c


def _gru_step(gx, h, w_hh_t, b_hh):
    gh = matmul(h, w_hh_t)
    return fused_gru_cell(gx, gh if b_hh is None else gh + b_hh, h)


# -- the layers -------------------------------------------------------------------------------


def _check_positive_int(value, what):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise ArgumentError(f"{what} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ArgumentError(f"{what} must be greater than zero")


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters of every layer and direction, their
    initialisation and the loop over time (see the module docstring)."""

    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if mode not in _GATES:
            raise ArgumentError(f"Unrecognized RNN mode: {mode}")
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ArgumentError(
                "dropout should be a number in range [0, 1] representing the "
                "probability of an element being zeroed"
            )
        _check_positive_int(hidden_size, "hidden_size")
        _check_positive_int(num_layers, "num_layers")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so "
                "non-zero dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if proj_size < 0:
            raise ArgumentError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ArgumentError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ArgumentError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_in = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [
                    ("weight_ih", (gate_size, layer_in)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for base, shape in shapes:
                    setattr(
                        self, base + suffix, Parameter(empty(shape, device=device, dtype=dtype))
                    )
                    names.append(base + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        std = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -std, std)

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Kept for PyTorch compatibility (cuDNN's weight layout): nothing to do here."""

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- forward ----------------------------------------------------------------------------

    def _state_shapes(self, batch):
        d = 2 if self.bidirectional else 1
        h = self.proj_size if self.proj_size > 0 else self.hidden_size
        shapes = [(self.num_layers * d, batch, h)]
        if self.mode == "LSTM":
            shapes.append((self.num_layers * d, batch, self.hidden_size))
        return shapes

    def _prepare(self, input, hx):
        """``(data, batch_sizes, states, sorted, unsorted, batched, packed)``: the input as
        packed data (time-major rows), the Python list of batch sizes, the initial states
        (a list: h, and c for an LSTM) in packed batch order."""
        name = type(self).__name__
        is_lstm = self.mode == "LSTM"
        if isinstance(input, PackedSequence):
            data, bs, sorted_idx, unsorted_idx = input
            sizes = bs.tolist()
            batch = sizes[0] if sizes else 0
            batched = packed = True
        else:
            packed, sorted_idx, unsorted_idx = False, None, None
            if input.ndim not in (2, 3):
                raise ShapeError(
                    f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead"
                )
            batched = input.ndim == 3
            if not batched:
                input = input.unsqueeze(1)
                if hx is not None:
                    states = hx if is_lstm else (hx,)
                    if any(s.ndim != 2 for s in states):
                        raise ShapeError(
                            f"{name}: for unbatched 2-D input, hx should also be "
                            f"2-D but got {[s.ndim for s in states]}-D"
                        )
                    hx = tuple(s.unsqueeze(1) for s in states) if is_lstm else hx.unsqueeze(1)
            elif self.batch_first:
                input = input.transpose(0, 1)
            t_len, batch = input.shape[0], input.shape[1]
            data = input.reshape(t_len * batch, input.shape[2])
            sizes = [batch] * t_len
        if data.shape[-1] != self.input_size:
            raise ShapeError(
                f"{name}: input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {data.shape[-1]}"
            )
        w_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if data.dtype is not w_dtype:
            raise DTypeError(f"{name}: input must have the type {w_dtype}, got type {data.dtype}")
        shapes = self._state_shapes(batch)
        if hx is None:
            states = [zeros(s, dtype=data.dtype, device=data.device) for s in shapes]
        else:
            states = list(hx) if is_lstm else [hx]
            if is_lstm and len(states) != 2:
                raise ArgumentError(f"{name}: hx must be a tuple (h_0, c_0)")
            if sorted_idx is not None:
                states = [s.index_select(1, sorted_idx) for s in states]
            for s, shape in zip(states, shapes):
                if tuple(s.shape) != shape:
                    raise ShapeError(f"{name}: Expected hidden size {shape}, got {list(s.shape)}")
        return data, sizes, states, sorted_idx, unsorted_idx, batched, packed

    def _direction(self, x, sizes, states, names, reverse):
        """Run one layer in one direction over packed rows ``x``: ``(out rows, states)``."""
        params = [getattr(self, n) for n in names]
        w_ih, w_hh = params[0], params[1]
        b_ih, b_hh = (params[2], params[3]) if self.bias else (None, None)
        w_hr = params[-1] if self.proj_size > 0 else None
        fold = b_hh is not None and self.mode != "GRU"  # b_hh adds linearly: fold it
        gx_all = F.linear(x, w_ih, b_ih + b_hh if fold else b_ih)
        b_step = None if fold else b_hh
        w_hh_t = w_hh.t()
        w_hr_t = None if w_hr is None else w_hr.t()
        if self.mode == "LSTM":
            step = lambda g, st: _lstm_step(g, st[0], st[1], w_hh_t, b_step, w_hr_t)  # noqa: E731
        elif self.mode == "GRU":
            step = lambda g, st: (_gru_step(g, st[0], w_hh_t, b_step),)  # noqa: E731
        else:
            act = _rnn_step(tanh if self.mode == "RNN_TANH" else relu)
            step = lambda g, st: (act(g, st[0], w_hh_t, b_step),)  # noqa: E731
        if not sizes:
            return x.new_zeros((0, states[0].shape[-1])), states
        gx_steps = gx_all.split(sizes, 0)  # one node for all steps
        outs = [None] * len(sizes)
        # Only the first sizes[t] rows run at step t: the state is cut (forward: rows that
        # ended keep their final state) or extended (reverse: rows that start join with
        # their initial state) only where the batch size changes.
        if reverse:
            width = sizes[-1]
            cur = states if width == sizes[0] else [s[:width] for s in states]
            for t in range(len(sizes) - 1, -1, -1):
                if sizes[t] > width:
                    cur = [cat([c, s[width : sizes[t]]]) for c, s in zip(cur, states)]
                    width = sizes[t]
                cur = step(gx_steps[t], cur)
                outs[t] = cur[0]
            return cat(outs), list(cur)
        width, ended, cur = sizes[0], [], states
        for t, b in enumerate(sizes):
            if b < width:
                ended.append([c[b:width] for c in cur])
                cur = [c[:b] for c in cur]
                width = b
            cur = step(gx_steps[t], cur)
            outs[t] = cur[0]
        if ended:
            ended.append(cur)
            cur = [cat([e[k] for e in reversed(ended)]) for k in range(len(cur))]
        return cat(outs), list(cur)

    def forward(self, input, hx=None):
        data, sizes, states, sorted_idx, unsorted_idx, batched, packed = self._prepare(input, hx)
        d = 2 if self.bidirectional else 1
        finals = [[] for _ in states]
        x = data
        for layer in range(self.num_layers):
            outs = []
            for direction in range(d):
                k = layer * d + direction
                out, st = self._direction(
                    x, sizes, [s[k] for s in states], self._all_weights[k], direction == 1
                )
                outs.append(out)
                for f, s in zip(finals, st):
                    f.append(s)
            x = outs[0] if d == 1 else cat(outs, dim=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        hidden = [stack(f) for f in finals]
        if packed:
            output = PackedSequence(x, input.batch_sizes, sorted_idx, unsorted_idx)
            if unsorted_idx is not None:
                hidden = [h.index_select(1, unsorted_idx) for h in hidden]
        else:
            t_len = len(sizes)
            output = x.reshape(t_len, -1, x.shape[-1])
            if not batched:
                output = output.squeeze(1)
                hidden = [h.squeeze(1) for h in hidden]
            elif self.batch_first:
                output = output.transpose(0, 1)
        return output, (tuple(hidden) if self.mode == "LSTM" else hidden[0])


class RNN(RNNBase):
    """Elman RNN: ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh',
    bias=True, batch_first=False, dropout=0.0, bidirectional=False)``; ``forward(input,
    hx=None)`` returns ``(output, h_n)``."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        nonlinearity="tanh",
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        if nonlinearity not in ("tanh", "relu"):
            raise ArgumentError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        super().__init__(
            "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
        )


class LSTM(RNNBase):
    """LSTM: ``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, proj_size=0)``; ``forward(input, (h_0, c_0)=None)``
    returns ``(output, (h_n, c_n))``."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device,
            dtype,
        )


class GRU(RNNBase):
    """GRU: ``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)``; ``forward(input, hx=None)`` returns
    ``(output, h_n)``."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
        )


# -- cells ------------------------------------------------------------------------------------


class RNNCellBase(Module):
    """The parameters of one cell: ``weight_ih`` (G, input_size), ``weight_hh``
    (G, hidden_size), ``bias_ih``, ``bias_hh`` (G,), G = gates x hidden_size."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        g = num_chunks * hidden_size
        self.weight_ih = Parameter(empty((g, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(empty((g, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(g, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(g, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        std = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -std, std)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input, states):
        """The input as 2-D, the states (zeros when None) as 2-D, and whether it was
        batched."""
        name = type(self).__name__
        if not isinstance(input, Tensor) or input.ndim not in (1, 2):
            got = f"{input.ndim}D" if isinstance(input, Tensor) else type(input).__name__
            raise ShapeError(f"{name}: Expected input to be 1D or 2D, got {got} instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise ShapeError(
                f"{name}: input has inconsistent input_size: got "
                f"{input.shape[1]} expected {self.input_size}"
            )
        n = input.shape[0]
        out = []
        for s in states:
            if s is None:
                s = zeros((n, self.hidden_size), dtype=input.dtype, device=input.device)
            elif not batched:
                s = s.unsqueeze(0)
            if tuple(s.shape) != (n, self.hidden_size):
                raise ShapeError(
                    f"{name}: hidden state of shape {tuple(s.shape)} does not "
                    f"match (batch, hidden_size) = ({n}, {self.hidden_size})"
                )
            out.append(s)
        return input, out, batched

    def _gx(self, input):
        return F.linear(input, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    """:math:`h' = \\tanh(x W_{ih}^T + b_{ih} + h W_{hh}^T + b_{hh})` (``nonlinearity`` tanh
    or relu)."""

    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ):
        if nonlinearity not in ("tanh", "relu"):
            raise ArgumentError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, (hx,))
        step = _rnn_step(tanh if self.nonlinearity == "tanh" else relu)
        h = step(self._gx(x), h, self.weight_hh.t(), self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; ``forward(input, (h, c)=None)`` returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        x, (h, c), batched = self._prepare(input, (None, None) if hx is None else hx)
        h, c = _lstm_step(self._gx(x), h, c, self.weight_hh.t(), self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step; ``forward(input, hx=None)`` returns ``h'``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, (hx,))
        h = _gru_step(self._gx(x), h, self.weight_hh.t(), self.bias_hh)
        return h if batched else h.squeeze(0)
