"""ResNet, ResNeXt and Wide ResNet (lucid.models.resnet): declared parameter counts (those
torchvision publishes), the residual identity of ``zero_init_residual``, a training step,
and, where torchvision is installed, logits and gradients against torchvision's models on
the same weights (the CPU test environment has no torchvision build for its torch: those
run on the GPU machine, which has one)."""

import numpy as np
import pytest

import lucid
import lucid.models as models
import lucid.nn.functional as F
from lucid.errors import ArgumentError
from lucid.models import resnet

NAMES = models.list_models(task="image-classification", pattern="*res*")


def test_every_configuration_is_registered():
    assert NAMES == [
        "resnet101",
        "resnet152",
        "resnet18",
        "resnet34",
        "resnet50",
        "resnext50_32x4d",
        "wide_resnet50_2",
    ]


@pytest.mark.parametrize("name", NAMES)
def test_declared_parameter_count(name):
    model = models.create_model(name)
    assert sum(p.numel() for p in model.parameters()) == models.model_entry(name).params


@pytest.mark.parametrize("name", ["resnet18", "resnet50"])
def test_zero_init_residual_makes_every_block_pass_its_input(name):
    model = models.create_model(name, zero_init_residual=True).eval()
    block = model.layer1[1]  # (not the first: its skip is a projection in the bottleneck)
    x = lucid.randn(2, block.conv1.in_channels, 8, 8)
    with lucid.no_grad():
        np.testing.assert_array_equal(block(x).numpy(), x.relu().numpy())


def test_a_training_step_on_a_small_batch():
    lucid.manual_seed(0)
    model = models.create_model("resnet18", num_classes=5)
    opt = lucid.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = lucid.randn(4, 3, 32, 32), lucid.tensor([0, 1, 2, 3])
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(p.grad is not None for p in model.parameters())


def test_basic_block_refuses_groups():
    with pytest.raises(ArgumentError, match="BasicBlock takes groups=1"):
        resnet.ResNet(resnet.BasicBlock, [1, 1, 1, 1], groups=2)


def _torchvision():
    try:
        import torch
        import torchvision
    except Exception:  # noqa: BLE001 (absent, or a build for another torch: skip)
        pytest.skip("torchvision is not importable here")
    return torch, torchvision


@pytest.mark.parametrize("name", ["resnet18", "resnet50", "resnext50_32x4d"])
def test_logits_and_gradients_match_torchvision(name):
    torch, tv = _torchvision()
    torch.manual_seed(0)
    ref = getattr(tv.models, name)(num_classes=7)
    model = models.create_model(name, num_classes=7)
    sd = {k: lucid.from_numpy(v.detach().numpy().copy()) for k, v in ref.state_dict().items()}
    model.load_state_dict(sd)
    x = np.random.default_rng(1).standard_normal((2, 3, 64, 64)).astype(np.float32)
    ref.eval(), model.eval()
    with torch.no_grad():
        want = ref(torch.from_numpy(x)).numpy()
    got = model(lucid.from_numpy(x)).detach().numpy()
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()
    ref.train(), model.train()
    ref(torch.from_numpy(x)).square().sum().backward()
    model(lucid.from_numpy(x)).square().sum().backward()
    want_g = dict(ref.named_parameters())
    for k, p in model.named_parameters():
        w = want_g[k].grad.numpy()
        assert np.abs(p.grad.numpy() - w).max() <= 1e-3 * max(np.abs(w).max(), 1e-6), k
