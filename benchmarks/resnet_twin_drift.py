"""The siamese example's ResNet-18 twin trained side by side in Lucid and PyTorch: how far
the gradients and losses drift apart, per layer and per step, and whether the drift is
float32 rounding amplified by the optimiser (it must vanish in float64 and shrink with the
learning rate) or a defect.

The network is written once against the PyTorch-shaped API and built twice (``lib`` bound
to ``lucid`` or to ``torch``): a torchvision-style ResNet-18 (BasicBlock, BatchNorm in
training mode, ``ReLU(inplace=True)``, ``out += identity``) with a 1-channel 7x7 stem and
no ``fc``, applied to two batches of 1x28x28 images in one graph; the two 512-feature
vectors are concatenated and go through Linear(1024, 256), ReLU, Linear(256, 1) and a
sigmoid into BCELoss, as pytorch/examples' siamese_network. PyTorch's initial weights are
copied into Lucid; both see the same batches; Adadelta updates both.

For each configuration (dtype, learning rate) and step it prints the largest relative
gradient difference of each layer group, ``max |g_lucid - g_torch| / max |g_torch|`` over
the group's parameters, and the loss difference; float32 rows also print PyTorch float32
against PyTorch float64 (PyTorch's own rounding drift, the yardstick) and, at step 0, how
many ReLU inputs have another sign than in float64 in each library.

What it shows (measured on the CPU): float64 agrees to 1e-14 at step 0 and 1e-11 after five
steps at lr 1.0, and stays at 1e-14 at lr 0.01. In float32 the first disagreement comes
from one element within rounding of a kink -- a ReLU input of about 1e-7, or a max-pool
window with two values that close -- that one library's float32 puts on the other side:
its gradient passes in one and not the other, BatchNorm's backward spreads it over the
channel (1e-2 relative on the layers before the kink; the layers after it still agree to
1e-5), and Adadelta's steps, about ``lr`` times the sign of the gradient while its running
averages are young, carry it into every weight. PyTorch float32 drifts from PyTorch float64
the same way and as fast (and earlier, or later, as luck places the kinks); with lr 0.01
no kink is crossed in five steps. Rounding, not a defect.

    python benchmarks/resnet_twin_drift.py [--steps 5] [--batch 8] [--lrs 1.0,0.1,0.01]
        [--dtypes float32,float64] [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

import lucid

GROUPS = ("conv1", "bn1", "layer1", "layer2", "layer3", "layer4", "head")


def build(lib, feat_dim=512):
    """The siamese ResNet-18 of ``lib`` (``lucid`` or ``torch``)."""
    nn = lib.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
                )

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += identity
            return self.relu(out)

    def layer(cin, cout, stride):
        return nn.Sequential(BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1))

    class Siamese(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = layer(64, 64, 1)
            self.layer2 = layer(64, 128, 2)
            self.layer3 = layer(128, 256, 2)
            self.layer4 = layer(256, feat_dim, 2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.head = nn.Sequential(
                nn.Linear(2 * feat_dim, 256), nn.ReLU(inplace=True), nn.Linear(256, 1)
            )
            self.sigmoid = nn.Sigmoid()

        def forward_once(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            x = self.avgpool(x)
            return x.view(x.size()[0], -1)

        def forward(self, a, b):
            out = lib.cat((self.forward_once(a), self.forward_once(b)), 1)
            return self.sigmoid(self.head(out))

    return Siamese()


def net_of(lib, dtype, state):
    """A siamese net of ``lib`` in ``dtype`` holding ``state`` (PyTorch's state dict)."""
    net = build(lib).to(getattr(lib, dtype))
    if lib is torch:
        net.load_state_dict(state)
    else:
        net.load_state_dict({k: lucid.tensor(v.numpy()) for k, v in state.items()})
    return net


def batches(steps, batch, seed):
    rng = np.random.default_rng(seed)
    return [
        (
            rng.standard_normal((batch, 1, 28, 28)),
            rng.standard_normal((batch, 1, 28, 28)),
            rng.integers(0, 2, (batch, 1)).astype(np.float64),
        )
        for _ in range(steps)
    ]


def host(t):
    """A tensor of either library as a float64 NumPy array."""
    return (
        np.asarray(t.detach().numpy(), dtype=np.float64)
        if isinstance(t, torch.Tensor)
        else t.detach().to(lucid.float64).numpy()
    )


class Trajectory:
    """One library's net in one dtype, trained by Adadelta on the shared batches; records
    each step's loss, gradients (by parameter name) and the inputs of every ReLU (for the
    kinks: elements whose sign decides whether the gradient passes)."""

    def __init__(self, lib, dtype, state, lr):
        self.lib, self.dt = lib, getattr(lib, dtype)
        self.net = net_of(lib, dtype, state)
        self.opt = lib.optim.Adadelta(self.net.parameters(), lr=lr)
        self.crit = lib.nn.BCELoss()
        self.relu_inputs = []
        for m in self.net.modules():
            if isinstance(m, lib.nn.ReLU):
                m.register_forward_pre_hook(
                    lambda mod, args: self.relu_inputs.append(host(args[0]))
                )

    def step(self, a, b, y):
        lib, dt = self.lib, self.dt
        self.relu_inputs = []
        self.opt.zero_grad()
        loss = self.crit(self.net(lib.tensor(a).to(dt), lib.tensor(b).to(dt)), lib.tensor(y).to(dt))
        loss.backward()
        grads = {n: host(p.grad) for n, p in self.net.named_parameters()}
        self.opt.step()
        return loss.item(), grads, self.relu_inputs


def rel_by_group(grads, ref):
    """``max |g - g_ref| / max |g_ref|`` over each group's parameters."""
    diff, scale = {}, {}
    for name, r in ref.items():
        g = name.split(".")[0]
        diff[g] = max(diff.get(g, 0.0), float(np.abs(grads[name] - r).max()))
        scale[g] = max(scale.get(g, 0.0), float(np.abs(r).max()))
    return {g: diff[g] / scale[g] if scale[g] else diff[g] for g in diff}


def kink_flips(relu_inputs, ref_inputs):
    """How many ReLU inputs have the other sign than the reference's."""
    return sum(int(((x > 0) != (r > 0)).sum()) for x, r in zip(relu_inputs, ref_inputs))


def run(dtype, lr, steps, batch, seed):
    """Per step a dict: ``rel`` (Lucid against PyTorch in ``dtype``, per group),
    ``dloss``, ``loss``; for float32 also ``rel_t32`` and ``dloss_t32`` (PyTorch float32
    against PyTorch float64: PyTorch's own rounding drift, the yardstick) and, at step 0
    where the weights are still the same, ``flips`` (ReLU inputs of another sign than in
    float64, Lucid's and PyTorch's)."""
    torch.manual_seed(seed)
    state = build(torch).double().state_dict()
    lucid_t = Trajectory(lucid, dtype, state, lr)
    torch_t = Trajectory(torch, dtype, state, lr)
    ref_t = Trajectory(torch, "float64", state, lr) if dtype != "float64" else None
    rows = []
    for i, (a, b, y) in enumerate(batches(steps, batch, seed + 1)):
        ll, lg, lr_in = lucid_t.step(a, b, y)
        tl, tg, tr_in = torch_t.step(a, b, y)
        row = dict(rel=rel_by_group(lg, tg), dloss=ll - tl, loss=tl)
        if ref_t is not None:
            rl, rg, rr_in = ref_t.step(a, b, y)
            row.update(rel_t32=rel_by_group(tg, rg), dloss_t32=tl - rl)
            if i == 0:
                row["flips"] = (kink_flips(lr_in, rr_in), kink_flips(tr_in, rr_in))
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lrs", default="1.0,0.1,0.01")
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(
        "rel: max |g_lucid - g_torch| / max |g_torch| per group, same dtype; "
        "dloss: loss_lucid - loss_torch.\nfloat32 rows also give PyTorch's own float32 "
        "drift (torch32 against torch64: 'torch max rel', 'torch dloss') and, at step 0, "
        "the ReLU kinks crossed (inputs of another sign than in float64: Lucid, PyTorch)."
    )
    print(
        f"{'dtype':8s} {'lr':>5s} {'step':>4s} "
        + " ".join(f"{g:>8s}" for g in GROUPS)
        + f" {'dloss':>10s} {'loss':>8s} {'torch max rel':>13s} {'torch dloss':>11s} "
        f"{'kinks':>6s}"
    )
    for dtype in args.dtypes.split(","):
        for lr in map(float, args.lrs.split(",")):
            for step, r in enumerate(run(dtype, lr, args.steps, args.batch, args.seed)):
                extra = ""
                if "rel_t32" in r:
                    extra = f" {max(r['rel_t32'].values()):13.1e} {r['dloss_t32']:11.2e}"
                    if "flips" in r:
                        extra += f" {r['flips'][0]:>2d}, {r['flips'][1]:<2d}"
                print(
                    f"{dtype:8s} {lr:5.2f} {step:4d} "
                    + " ".join(f"{r['rel'][g]:8.1e}" for g in GROUPS)
                    + f" {r['dloss']:10.2e} {r['loss']:8.4f}"
                    + extra,
                    flush=True,
                )


if __name__ == "__main__":
    main()
