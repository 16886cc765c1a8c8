"""A program in the manner of PyTorch's examples repository (MNIST's ``main.py``, DCGAN's
device checks, the word-language model's whole-model checkpoint) runs under Lucid with only
its imports changed (``torch`` -> ``lucid`` in the import lines).

The program is run as a script in a fresh interpreter, so that its classes live in
``__main__`` as they do in the examples, once with torch and once with Lucid. Both must train,
reload their checkpoints (the state_dict and the whole model under ``safe_globals``) to the
same outputs, and the state_dict file Lucid wrote must load into the torch model and give
Lucid's outputs.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

PROGRAM = """
import argparse, json, sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 5 * 5, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        if x.is_xpu or x.is_mps or x.is_sparse:       # DCGAN-style device checks
            raise SystemExit("unexpected device")
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-accel", action="store_true")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    use_accel = not args.no_accel and torch.accelerator.is_available()
    torch.manual_seed(1)
    if use_accel:
        device = torch.accelerator.current_accelerator()
    else:
        device = torch.device("cpu")
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True

    rng = np.random.default_rng(0)
    images = rng.standard_normal((96, 1, 14, 14)).astype(np.float32)
    labels = images[:, 0].mean(axis=(1, 2)) > 0
    data = torch.utils.data.TensorDataset(torch.from_numpy(images),
                                          torch.from_numpy(labels.astype(np.int64)))
    loader = torch.utils.data.DataLoader(data, batch_size=16, shuffle=True)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    losses = []
    for epoch in range(1, 5):
        model.train()
        total = 0.0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.nll_loss(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        losses.append(total / len(loader))
        scheduler.step()

    model.eval()
    probe = torch.from_numpy(images[:8]).to(device)
    with torch.no_grad():
        expected = model(probe)
    torch.save(model.state_dict(), args.out + "/state.pt")
    torch.save(model, args.out + "/model.pt")
    torch.save({"epoch": 4, "optimizer": optimizer.state_dict()}, args.out + "/opt.pt")

    fresh = Net()
    fresh.load_state_dict(torch.load(args.out + "/state.pt", map_location="cpu"))
    fresh.eval()
    with torch.serialization.safe_globals([Net, nn.Conv2d, nn.Dropout, nn.Linear]):
        whole = torch.load(args.out + "/model.pt")
    whole.eval()
    ckpt = torch.load(args.out + "/opt.pt")
    optimizer.load_state_dict(ckpt["optimizer"])
    with torch.no_grad():
        again = [fresh(probe.cpu()), whole(probe)]
    json.dump({"losses": losses,
               "expected": expected.cpu().numpy().tolist(),
               "reloaded": [a.cpu().numpy().tolist() for a in again],
               "step_counts": sorted({int(s["step"]) if not hasattr(s["step"], "item")
                                      else int(s["step"].item())
                                      for s in ckpt["optimizer"]["state"].values()})},
              open(args.out + "/result.json", "w"))


if __name__ == "__main__":
    main()
"""


def lucid_program():
    """The program with only its import lines changed."""
    lines = []
    for line in PROGRAM.splitlines():
        if line.startswith("import torch"):
            line = line.replace("import torch", "import lucid", 1)
            if line == "import lucid":
                line = "import lucid as torch"
        elif line.startswith("from torch"):
            line = line.replace("from torch", "from lucid", 1)
        lines.append(line)
    return "\n".join(lines) + "\n"


def run(source, folder):
    folder.mkdir()
    script = folder / "main.py"
    script.write_text(source)
    done = subprocess.run(
        [sys.executable, str(script), "--out", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((folder / "result.json").read_text())


def test_examples_program_runs_under_lucid_as_written(tmp_path):
    ref = run(PROGRAM, tmp_path / "torch")
    got = run(lucid_program(), tmp_path / "lucid")
    for result in (ref, got):
        losses = result["losses"]
        assert np.isfinite(losses).all() and losses[-1] < 0.97 * losses[0], losses
        for again in result["reloaded"]:  # state_dict and whole-model checkpoints
            np.testing.assert_allclose(again, result["expected"], rtol=1e-6, atol=1e-6)
        assert result["step_counts"] == [24]  # 4 epochs of 6 batches, restored
    # torch reads the state_dict Lucid wrote, and its Net computes Lucid's outputs
    scope = {"__name__": "lucid_port_reference"}
    exec(compile(PROGRAM, "<torch program>", "exec"), scope)
    net = scope["Net"]()
    net.load_state_dict(torch.load(tmp_path / "lucid" / "state.pt"))
    net.eval()
    rng = np.random.default_rng(0)
    probe = rng.standard_normal((96, 1, 14, 14)).astype(np.float32)[:8]
    with torch.no_grad():
        out = net(torch.from_numpy(probe)).numpy()
    np.testing.assert_allclose(out, got["expected"], rtol=1e-4, atol=1e-5)
