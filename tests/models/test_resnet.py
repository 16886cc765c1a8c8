"""ResNet, ResNeXt and Wide ResNet (lucid.models.resnet): the registered configurations,
the residual identity of ``zero_init_residual``, a training step, errors (parameter counts
and torchvision parity: test_vision_zoo.py)."""

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
