"""Train a small CNN on the 1,797 8x8 handwritten digits shipped in ``examples/data``.

What ``make demo`` runs. A PyTorch user reads it as PyTorch: ``nn.Module`` layers, a
``DataLoader``, ``CrossEntropyLoss``, ``Adam`` with a cosine schedule, ``lucid.save`` and
``lucid.load``. Per epoch it prints the train loss and the test accuracy (a tqdm bar while
it trains); at the end it saves a checkpoint, reloads it into a fresh model, checks that
the accuracy is the same, and plots the curves to a PNG.

    python examples/digits_cnn.py [--epochs 12] [--out examples/out] [--compile]

``--compile`` wraps the training step (forward, loss, backward, Adam) in ``lucid.compile``:
the same losses, each step replayed without Python dispatch. The module imports only Lucid
and NumPy (tqdm and matplotlib when it trains and plots), so tests import its model.
"""

import argparse
import os
import time

import numpy as np

import lucid
from lucid import nn
from lucid.utils.data import DataLoader, TensorDataset, random_split

HERE = os.path.dirname(os.path.abspath(__file__))


class DigitsCNN(nn.Module):
    """Two [conv3x3 + BatchNorm + ReLU + MaxPool2d] blocks (1 -> 16 -> 32 channels,
    8x8 -> 4x4 -> 2x2) and a linear head."""

    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 2 * 2, classes))

    def forward(self, x):
        return self.head(self.features(x))


def load_digits():
    """Images scaled to [0, 1] as (N, 1, 8, 8) float32, labels as int64."""
    with np.load(os.path.join(HERE, "data", "digits.npz")) as f:
        images = f["images"].astype(np.float32)[:, None] / 16.0
        labels = f["labels"].astype(np.int64)
    return TensorDataset(lucid.from_numpy(images), lucid.from_numpy(labels))


def accuracy(model, loader):
    model.eval()
    right = total = 0
    with lucid.no_grad():
        for x, y in loader:
            right += (model(x).argmax(1) == y).sum().item()
            total += len(y)
    return right / total


def train_step(model, loss_fn, opt):
    """One step: forward, loss, backward, update; returns the loss."""

    def step(x, y):
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def train(args):
    from tqdm import tqdm

    lucid.manual_seed(0)
    train_set, test_set = random_split(
        load_digits(), [0.8, 0.2], generator=lucid.Generator().manual_seed(0)
    )
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=256)

    model = DigitsCNN()
    loss_fn = nn.CrossEntropyLoss()
    opt = lucid.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = lucid.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    step = train_step(model, loss_fn, opt)
    if args.compile:
        step = lucid.compile(step)
    history = {"loss": [], "accuracy": []}
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        model.train()
        total, seen = 0.0, 0
        bar = tqdm(train_loader, desc=f"epoch {epoch:2d}/{args.epochs}", leave=False, unit="batch")
        for x, y in bar:
            loss = step(x, y)
            total += loss.item() * len(y)
            seen += len(y)
            bar.set_postfix(loss=f"{total / seen:.4f}")
        sched.step()
        acc = accuracy(model, test_loader)
        history["loss"].append(total / seen)
        history["accuracy"].append(acc)
        tqdm.write(f"epoch {epoch:2d}  train loss {total / seen:.4f}  test accuracy {acc:.2%}")
    print(f"trained {args.epochs} epochs in {time.perf_counter() - start:.1f} s")
    return model, opt, test_loader, history


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--compile", action="store_true", help="lucid.compile the training step")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    model, opt, test_loader, history = train(args)
    acc = history["accuracy"][-1]

    path = os.path.join(args.out, "digits_cnn.safetensors")
    lucid.save(
        {"model": model.state_dict(), "optimizer": opt.state_dict(), "history": history}, path
    )
    ckpt = lucid.load(path)
    restored = DigitsCNN()
    restored.load_state_dict(ckpt["model"])
    again = accuracy(restored, test_loader)
    print(f"checkpoint {path}: reloaded model's test accuracy {again:.2%}")
    if again != acc:
        raise SystemExit(f"the reloaded model's accuracy {again:.2%} differs from {acc:.2%}")

    plot(history, os.path.join(args.out, "digits_cnn.png"))
    if acc < 0.97:
        raise SystemExit(f"test accuracy {acc:.2%} is below 97%")


def plot(history, png):
    """The loss and accuracy curves, to ``png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    epochs = range(1, len(history["loss"]) + 1)
    ax1.plot(epochs, history["loss"], marker="o")
    ax1.set(xlabel="epoch", ylabel="train loss", yscale="log", title="loss")
    ax2.plot(epochs, [100 * a for a in history["accuracy"]], marker="o", color="tab:green")
    ax2.set(xlabel="epoch", ylabel="test accuracy (%)", title="accuracy")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print(f"curves: {png}")


if __name__ == "__main__":
    main()
