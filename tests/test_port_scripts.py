"""PyTorch training scripts run under Lucid with only the import changed.

Each script below is plain PyTorch. The test runs it once as written (``import torch``) and
once with the import line replaced by ``import lucid as torch``; both must train (the loss
falls well below where it started), and Lucid's run must end where PyTorch's does within
a loose margin (different initial weights, same data and recipe).
"""

import numpy as np
import pytest

PRELUDE = """
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
rng = np.random.default_rng(0)
torch.manual_seed(0)
"""

MLP = """
x = torch.from_numpy(rng.standard_normal((256, 20)).astype(np.float32))
w = rng.standard_normal((20, 3)).astype(np.float32)
y = torch.from_numpy((x.numpy() @ w).argmax(1))
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=50, gamma=0.5)
losses = []
for step in range(150):
    model.train()
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    losses.append(loss.item())
model.eval()
with torch.no_grad():
    accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
"""

CNN = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding="same")
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 4 * 4, 2)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))

images = rng.standard_normal((64, 1, 16, 16)).astype(np.float32)
labels = (images[:, 0, :8].mean(axis=(1, 2)) > images[:, 0, 8:].mean(axis=(1, 2)))
dataset = torch.utils.data.TensorDataset(torch.from_numpy(images),
                                         torch.from_numpy(labels.astype(np.int64)))
loader = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=True)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
losses = []
for epoch in range(15):
    model.train()
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    losses.append(total / len(loader))
model.eval()
with torch.no_grad():
    accuracy = (model(torch.from_numpy(images)).argmax(1).numpy() == labels).mean()
"""

TRANSFORMER = """
vocab, seq = 12, 10
data = rng.integers(1, vocab, size=(64, seq))
data[:, seq // 2:] = data[:, :seq // 2]          # second half repeats the first
src = torch.from_numpy(data)
class Model(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, seq, d))
        layer = nn.TransformerEncoderLayer(d, 4, dim_feedforward=64, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)

    def forward(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        h = self.emb(x) + self.pos[:, :x.shape[1]]
        return self.head(self.encoder(h, mask=mask, is_causal=True))

model = Model()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
losses = []
for step in range(120):
    logits = model(src[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, vocab), src[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    losses.append(loss.item())
accuracy = 1.0
"""


def run(script, lib):
    code = PRELUDE + script
    if lib == "lucid":
        code = (
            code.replace("import torch\n", "import lucid as torch\n")
            .replace("from torch import nn", "from lucid import nn")
            .replace("import torch.nn.functional as F", "import lucid.nn.functional as F")
        )
    scope = {}
    exec(compile(code, f"<{lib} script>", "exec"), scope)
    return scope["losses"], scope["accuracy"]


@pytest.mark.parametrize(
    "script,fall,accuracy",
    [(MLP, 0.2, 0.9), (CNN, 0.5, 0.85), (TRANSFORMER, 0.7, None)],
    ids=["mlp", "cnn", "transformer"],
)
def test_torch_script_runs_under_lucid(script, fall, accuracy):
    ref_losses, ref_acc = run(script, "torch")
    losses, acc = run(script, "lucid")
    assert len(losses) == len(ref_losses)
    assert np.isfinite(losses).all()
    # both train: the end loss is a fraction of the start loss
    assert ref_losses[-1] < fall * ref_losses[0]
    assert losses[-1] < fall * losses[0], (losses[0], losses[-1])
    if accuracy is not None:
        assert ref_acc >= accuracy and acc >= accuracy, (ref_acc, acc)
