"""Fine-tune a ResNet-18 from ``lucid.models`` on the 8x8 digits of ``examples/data``,
upsampled to 32x32 (``lucid.transforms.Resize``) and repeated over three channels.

With ``--weights PATH`` (a torchvision ``resnet18`` state dict, e.g. ``resnet18-f37072fd.pth``)
the ImageNet features are loaded and only a new 10-class head starts from scratch; with
``--pretrained`` they are fetched once into the hub cache (``lucid.hub``); without either
the network trains from its initialisation. SGD with momentum and a cosine schedule, a
tqdm bar per epoch, the test accuracy after each, and a plot of the loss.

    python examples/resnet_digits.py [--epochs 3] [--weights PATH | --pretrained]
        [--out examples/out] [--limit N]
"""

import argparse
import os

import lucid
import lucid.models as models
import lucid.transforms as T
from lucid import nn
from lucid.utils.data import DataLoader, TensorDataset, random_split

from digits_cnn import load_digits  # noqa: E402  (the same data, the same loader)

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def upsampled(dataset, size=32):
    """The digits as ``(N, 3, size, size)`` images normalised as the ImageNet weights
    expect."""
    images, labels = dataset.tensors
    prep = T.Compose([T.Resize((size, size)), T.Normalize(MEAN, STD)])
    return TensorDataset(prep(images.expand(-1, 3, -1, -1)), labels)


def build(args):
    if args.weights or args.pretrained:
        model = models.create_model("resnet18", pretrained=args.pretrained)
        if args.weights:
            model.load_state_dict(lucid.load(args.weights, weights_only=True))
        model.fc = nn.Linear(model.fc.in_features, 10)  # a new head for the ten digits
        return model
    return models.create_model("resnet18", num_classes=10)


def accuracy(model, loader):
    model.eval()
    right = total = 0
    with lucid.no_grad():
        for x, y in loader:
            right += int((model(x).argmax(1) == y).sum())
            total += len(y)
    return right / total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--weights")
    ap.add_argument("--pretrained", action="store_true")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--limit", type=int, help="use the first N digits only (a quick run)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "out"))
    args = ap.parse_args(argv)
    from tqdm import tqdm

    lucid.manual_seed(0)
    data = load_digits()
    if args.limit:
        data = TensorDataset(*(t[: args.limit] for t in data.tensors))
    data = upsampled(data)
    n_test = len(data) // 5
    train, test = random_split(data, [len(data) - n_test, n_test])
    train_loader = DataLoader(train, batch_size=args.batch, shuffle=True)
    test_loader = DataLoader(test, batch_size=256)
    model = build(args)
    opt = lucid.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    steps = args.epochs * len(train_loader)
    sched = lucid.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    loss_fn = nn.CrossEntropyLoss()
    losses, accs = [], []
    for epoch in range(args.epochs):
        model.train()
        for x, y in tqdm(train_loader, desc=f"epoch {epoch + 1}", leave=False):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
        accs.append(accuracy(model, test_loader))
        print(f"epoch {epoch + 1}: train loss {losses[-1]:.3f}, test accuracy {accs[-1]:.3f}")
    os.makedirs(args.out, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(losses)
    ax.set_xlabel("step")
    ax.set_ylabel("train loss")
    ax.set_title(f"ResNet-18 on upsampled digits (test accuracy {accs[-1]:.3f})")
    fig.tight_layout()
    path = os.path.join(args.out, "resnet_digits_loss.png")
    fig.savefig(path)
    print(f"plot: {path}")
    return losses, accs


if __name__ == "__main__":
    main()
