"""Transformer layers, stacks and the encoder-decoder: parity with PyTorch in eval mode
(dropout off) with PyTorch's state dict loaded, gradients of inputs and parameters."""

import numpy as np
import pytest
import torch

import lucid
import lucid.nn as nn
from lucid.errors import ArgumentError, ShapeError

TOL = dict(rtol=1e-9, atol=1e-10)

# torch's deprecation notes about its own fast paths, not about the results compared here
pytestmark = [
    pytest.mark.filterwarnings("ignore:Support for mismatched"),
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),
]


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _load(m, t):
    """Copy ``t``'s state dict into ``m`` by name; both load completely."""
    res = m.load_state_dict(
        {k: lucid.tensor(v.detach().numpy()) for k, v in t.state_dict().items()}
    )
    assert not res.missing_keys and not res.unexpected_keys
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in t.named_parameters()]


def _pair(lucid_cls, torch_cls, *args, **kw):
    torch.manual_seed(0)
    t = torch_cls(*args, dtype=torch.float64, **kw).eval()
    with torch.no_grad():  # LayerNorm weights and biases away from 1 and 0
        for p in t.parameters():
            if p.ndim == 1:
                p.add_(torch.randn_like(p) * 0.3)
    m = lucid_cls(*args, dtype=lucid.float64, **kw).eval()
    _load(m, t)
    return m, t


def _compare(m, t, arrays, grad_params=True, **kw):
    """Forward and backward of both modules on ``arrays`` (positional inputs) and keyword
    masks (NumPy arrays or Python values); compares outputs and every gradient."""
    lt = [lucid.tensor(a, requires_grad=True) for a in arrays]
    tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    conv = {
        n: (lucid.tensor(v), torch.tensor(v)) if isinstance(v, np.ndarray) else (v, v)
        for n, v in kw.items()
    }
    lo = m(*lt, **{n: v[0] for n, v in conv.items()})
    to = t(*tt, **{n: v[1] for n, v in conv.items()})
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), **TOL)
    g = np.random.default_rng(9).standard_normal(tuple(to.shape))
    lo.backward(lucid.tensor(g))
    to.backward(torch.tensor(g))
    for a, b in zip(lt, tt):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL)
    if grad_params:
        tp = dict(t.named_parameters())
        for name, p in m.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), tp[name].grad.numpy(), **TOL, err_msg=name)
    return lo


def _causal(n):
    return np.triu(np.full((n, n), -np.inf), 1)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer(norm_first, activation, batch_first):
    m, t = _pair(
        nn.TransformerEncoderLayer,
        torch.nn.TransformerEncoderLayer,
        8,
        2,
        dim_feedforward=16,
        activation=activation,
        norm_first=norm_first,
        batch_first=batch_first,
    )
    x = _x(3, 5, 8)
    _compare(m, t, [x])
    n, s = (3, 5) if batch_first else (5, 3)
    kpm = np.zeros((n, s), bool)
    kpm[1, -1] = True
    _compare(m, t, [x], src_mask=_causal(s), src_key_padding_mask=kpm)


def test_encoder_layer_callable_activation_bias_and_eps():
    for act in (torch.nn.functional.silu,):
        t = torch.nn.TransformerEncoderLayer(
            8, 2, 16, activation=act, layer_norm_eps=0.1, bias=False, dtype=torch.float64
        ).eval()
        m = nn.TransformerEncoderLayer(
            8,
            2,
            16,
            activation=lucid.nn.functional.silu,
            layer_norm_eps=0.1,
            bias=False,
            dtype=lucid.float64,
        ).eval()
        _load(m, t)
        assert m.linear1.bias is None and m.norm1.bias is None
        lo = _compare(m, t, [_x(4, 2, 8)])
        m.norm1.eps = 1e-5  # the eps reaches the norms
        assert not np.allclose(m(lucid.tensor(_x(4, 2, 8))).detach().numpy(), lo.detach().numpy())
    with pytest.raises(ArgumentError, match="relu/gelu"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_decoder_layer(norm_first, activation):
    m, t = _pair(
        nn.TransformerDecoderLayer,
        torch.nn.TransformerDecoderLayer,
        8,
        2,
        dim_feedforward=16,
        activation=activation,
        norm_first=norm_first,
        batch_first=True,
    )
    tgt, mem = _x(2, 4, 8), _x(2, 6, 8, seed=1)
    _compare(m, t, [tgt, mem])
    mkpm = np.zeros((2, 6), bool)
    mkpm[1, 4:] = True
    _compare(
        m, t, [tgt, mem], tgt_mask=_causal(4), memory_key_padding_mask=mkpm, tgt_is_causal=True
    )


def test_encoder_stack_with_norm_and_causal_detection():
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, dtype=torch.float64)
    t = torch.nn.TransformerEncoder(
        tl, 2, norm=torch.nn.LayerNorm(8, dtype=torch.float64), enable_nested_tensor=False
    ).eval()
    ml = nn.TransformerEncoderLayer(8, 2, 16, dtype=lucid.float64)
    m = nn.TransformerEncoder(
        ml, 2, norm=nn.LayerNorm(8, dtype=lucid.float64), enable_nested_tensor=False
    ).eval()
    _load(m, t)
    assert m.layers[0] is not m.layers[1] and m.layers[0] is not ml
    assert m.layers[0].linear1.weight is not m.layers[1].linear1.weight
    x = _x(5, 2, 8)
    _compare(m, t, [x])
    _compare(m, t, [x], mask=_causal(5))
    _compare(m, t, [x], mask=_causal(5), is_causal=True)
    kpm = np.zeros((2, 5), bool)
    kpm[0, 3:] = True
    _compare(m, t, [x], src_key_padding_mask=kpm)


def test_causal_mask_detection():
    from lucid.nn.modules.transformer import _is_causal_mask

    causal = nn.Transformer.generate_square_subsequent_mask(4)
    assert _is_causal_mask(causal, None, 4)
    assert _is_causal_mask(lucid.tensor(np.triu(np.ones((4, 4), bool), 1)), None, 4)
    assert not _is_causal_mask(lucid.zeros(4, 4), None, 4)
    assert not _is_causal_mask(causal, False, 4)
    assert _is_causal_mask(None, True, 4)
    assert not _is_causal_mask(causal, None, 5)


def test_decoder_stack():
    torch.manual_seed(0)
    tl = torch.nn.TransformerDecoderLayer(8, 2, 16, dtype=torch.float64, norm_first=True)
    t = torch.nn.TransformerDecoder(tl, 2).eval()
    m = nn.TransformerDecoder(
        nn.TransformerDecoderLayer(8, 2, 16, dtype=lucid.float64, norm_first=True), 2
    ).eval()
    _load(m, t)
    _compare(m, t, [_x(4, 2, 8), _x(6, 2, 8, seed=1)], tgt_mask=_causal(4))


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer(batch_first):
    kw = dict(
        d_model=8,
        nhead=2,
        num_encoder_layers=2,
        num_decoder_layers=1,
        dim_feedforward=16,
        batch_first=batch_first,
    )
    m, t = _pair(nn.Transformer, torch.nn.Transformer, **kw)
    src = _x(2, 5, 8) if batch_first else _x(5, 2, 8)
    tgt = _x(2, 3, 8, seed=1) if batch_first else _x(3, 2, 8, seed=1)
    _compare(m, t, [src, tgt])
    _compare(
        m,
        t,
        [src, tgt],
        tgt_mask=_causal(3),
        src_key_padding_mask=np.array([[False] * 4 + [True], [False] * 5]),
        memory_key_padding_mask=np.array([[False] * 4 + [True], [False] * 5]),
    )
    with pytest.raises(ShapeError, match="batch number"):
        m(lucid.tensor(src), lucid.tensor(_x(3, 3, 8) if batch_first else _x(3, 3, 8)))
    with pytest.raises(ShapeError, match="d_model"):
        m(lucid.tensor(src), lucid.tensor(tgt[..., :4]))


def test_transformer_init_and_mask():
    m = nn.Transformer(
        d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16
    )
    w = m.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6.0 / (8 + 16))  # xavier_uniform_ on every matrix
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.7 * bound
    assert set(dict(m.named_parameters())) == set(
        dict(torch.nn.Transformer(8, 2, 1, 1, 16).named_parameters())
    )
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(
        mask.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(3).numpy()
    )
    assert mask.dtype == lucid.float32
    assert (
        nn.Transformer.generate_square_subsequent_mask(2, dtype=lucid.float64).dtype
        == lucid.float64
    )


def test_dropout_in_training_is_used_and_reproducible():
    m = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5, batch_first=True)
    x = lucid.tensor(_x(2, 5, 8).astype(np.float32))
    m.eval()
    e1 = m(x).detach().numpy()
    np.testing.assert_array_equal(e1, m(x).detach().numpy())
    m.train()
    lucid.manual_seed(0)
    a = m(x).detach().numpy()
    lucid.manual_seed(0)
    b = m(x).detach().numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, e1)


def test_custom_encoder_decoder():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 1)
    m = nn.Transformer(8, 2, custom_encoder=enc, custom_decoder=dec)
    assert m.encoder is enc and m.decoder is dec
    assert tuple(m(lucid.randn(4, 2, 8), lucid.randn(3, 2, 8)).shape) == (3, 2, 8)


def test_activation_module_and_train_mode_without_dropout():
    torch.manual_seed(0)
    t = torch.nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, activation=torch.nn.GELU(), dtype=torch.float64
    ).train()
    m = nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, activation=nn.GELU(), dtype=lucid.float64
    ).train()
    _load(m, t)
    assert isinstance(m.activation, nn.GELU)
    _compare(m, t, [_x(4, 3, 8)])


def test_unbatched_encoder_and_decoder():
    m, t = _pair(
        nn.Transformer,
        torch.nn.Transformer,
        d_model=8,
        nhead=2,
        num_encoder_layers=1,
        num_decoder_layers=1,
        dim_feedforward=16,
    )
    _compare(m, t, [_x(5, 8), _x(3, 8, seed=1)], tgt_mask=_causal(3))


@pytest.mark.parametrize(
    "name",
    [
        "Transformer",
        "TransformerEncoder",
        "TransformerDecoder",
        "TransformerEncoderLayer",
        "TransformerDecoderLayer",
        "MultiheadAttention",
    ],
)
def test_signatures_are_pytorchs(name):
    import inspect

    def sig(f):
        return [
            (p.name, p.kind, "<callable>" if callable(p.default) else p.default)
            for p in inspect.signature(f).parameters.values()
        ]

    for meth in ("__init__", "forward"):
        ours = sig(getattr(getattr(nn, name), meth))
        if (name, meth) == ("MultiheadAttention", "__init__"):  # Lucid's GQA extension
            assert ours[-1] == ("num_kv_heads", inspect.Parameter.KEYWORD_ONLY, None)
            ours = ours[:-1]
        assert ours == sig(getattr(getattr(torch.nn, name), meth)), (name, meth)


def test_functional_signatures_are_pytorchs():
    import inspect

    def sig(f):
        return [(p.name, p.default) for p in inspect.signature(f).parameters.values()]

    ours = sig(lucid.nn.functional.multi_head_attention_forward)
    assert ours[-1] == ("num_kv_heads", None)  # Lucid's GQA extension, keyword-only
    assert ours[:-1] == sig(torch.nn.functional.multi_head_attention_forward)
    # torch's is a builtin without a signature object: its documented one
    assert sig(lucid.nn.functional.scaled_dot_product_attention) == [
        ("query", inspect.Parameter.empty),
        ("key", inspect.Parameter.empty),
        ("value", inspect.Parameter.empty),
        ("attn_mask", None),
        ("dropout_p", 0.0),
        ("is_causal", False),
        ("scale", None),
        ("enable_gqa", False),
    ]
