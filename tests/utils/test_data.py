"""lucid.utils.data: datasets, samplers, default_collate / default_convert (the DataLoader
itself: test_data_loader.py). Compared with torch.utils.data where behaviour is
deterministic."""

import collections

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import lucid
from lucid.errors import ArgumentError, ArgumentTypeError, ShapeError
from lucid.utils import data as lud


def to_np(x):
    if isinstance(x, lucid.Tensor):
        return x.numpy()
    if isinstance(x, torch.Tensor):
        return x.numpy()
    return x


def assert_like_torch(ours, theirs):
    """Same structure (container types, tensor dtypes) and values as torch's result."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, lucid.Tensor), type(ours)
        assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs)
        for k in theirs:
            assert_like_torch(ours[k], theirs[k])
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_like_torch(a, b)
    else:
        assert type(ours) is type(theirs) and ours == theirs


# -- datasets --------------------------------------------------------------------------


def test_tensor_dataset():
    x, y = lucid.randn(5, 3), lucid.arange(5)
    ds = lud.TensorDataset(x, y)
    assert len(ds) == 5
    a, b = ds[-1]
    np.testing.assert_array_equal(a.numpy(), x[4].numpy())
    assert b.item() == 4
    a, b = ds[1:3]
    assert tuple(a.shape) == (2, 3) and b.tolist() == [1, 2]
    with pytest.raises(ShapeError, match="size mismatch"):
        lud.TensorDataset(x, lucid.arange(4))
    with pytest.raises(ArgumentTypeError, match="expected tensors"):
        lud.TensorDataset(x, [1, 2, 3, 4, 5])
    with pytest.raises(ShapeError, match="0-d"):
        lud.TensorDataset(lucid.tensor(1.0))


def test_dataset_base_and_add():
    with pytest.raises(NotImplementedError):
        lud.Dataset()[0]
    with pytest.raises(NotImplementedError):
        iter(lud.IterableDataset())
    a = lud.TensorDataset(lucid.arange(3))
    b = lud.TensorDataset(lucid.arange(10, 12))
    c = a + b
    assert isinstance(c, lud.ConcatDataset) and len(c) == 5


def test_concat_dataset_matches_torch():
    parts = [list(range(3)), [], list(range(10, 14)), [99]]
    ours, theirs = lud.ConcatDataset(parts), tud.ConcatDataset(parts)
    assert len(ours) == len(theirs) and ours.cumulative_sizes == theirs.cumulative_sizes
    for i in range(-len(theirs), len(theirs)):
        assert ours[i] == theirs[i]
    for bad in (len(theirs), -len(theirs) - 1):
        with pytest.raises(IndexError):
            ours[bad]
    with pytest.raises(ArgumentError, match="empty"):
        lud.ConcatDataset([])
    with pytest.raises(ArgumentTypeError, match="IterableDataset"):
        lud.ConcatDataset([parts[0], Count(3)])


class Count(lud.IterableDataset):
    def __init__(self, n, start=0):
        self.n, self.start = n, start

    def __iter__(self):
        return iter(range(self.start, self.start + self.n))

    def __len__(self):
        return self.n


def test_chain_dataset():
    ch = Count(2) + Count(3, start=10)
    assert isinstance(ch, lud.ChainDataset)
    assert list(ch) == [0, 1, 10, 11, 12] and len(ch) == 5
    with pytest.raises(ArgumentTypeError, match="only supports IterableDataset"):
        list(lud.ChainDataset([Count(1), [1, 2]]))


def test_subset_and_getitems():
    class Batched(lud.Dataset):
        calls = []

        def __getitem__(self, i):
            return i * 10

        def __getitems__(self, idx):
            self.calls.append(list(idx))
            return [i * 10 for i in idx]

        def __len__(self):
            return 10

    base = Batched()
    sub = lud.Subset(base, [7, 3, 5])
    assert len(sub) == 3 and sub[0] == 70 and sub[-1] == 50
    assert sub.__getitems__([2, 0]) == [50, 70] and Batched.calls == [[5, 7]]
    assert lud.Subset(list(range(10)), [4, 2]).__getitems__([1, 0]) == [2, 4]
    nested = lud.Subset(lud.TensorDataset(lucid.arange(10)), [1, 2, 3])
    assert nested[[0, 2]][0].tolist() == [1, 3]


def test_stack_dataset():
    a, b = list(range(3)), ["x", "y", "z"]
    assert lud.StackDataset(a, b)[1] == (1, "y")
    assert lud.StackDataset(n=a, s=b)[2] == {"n": 2, "s": "z"}
    assert len(lud.StackDataset(a, b)) == 3
    with pytest.raises(ShapeError, match="size mismatch"):
        lud.StackDataset(a, b[:2])
    with pytest.raises(ArgumentError, match="not both"):
        lud.StackDataset(a, s=b)


@pytest.mark.parametrize(
    "lengths", [[3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [1 / 3] * 3, [0.1] * 10, [10, 0]]
)
def test_random_split_lengths_and_partition(lengths):
    ds = list(range(10))
    ours = lud.random_split(ds, lengths, generator=lucid.Generator().manual_seed(0))
    theirs = tud.random_split(ds, lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s) == ds


def test_random_split_reproducible_under_seed_and_generator():
    ds = list(range(50))

    def split(**kw):
        return [list(s) for s in lud.random_split(ds, [20, 30], **kw)]

    lucid.manual_seed(3)
    a = split()
    lucid.manual_seed(3)
    assert split() == a
    g = lambda s: lucid.Generator().manual_seed(s)  # noqa: E731
    assert split(generator=g(1)) == split(generator=g(1))
    assert split(generator=g(1)) != split(generator=g(2))


def test_random_split_errors():
    with pytest.raises(ArgumentError, match="does not equal the length"):
        lud.random_split(list(range(5)), [2, 2])
    with pytest.raises(ArgumentError, match="non-negative ints or fractions"):
        lud.random_split(list(range(5)), [6, -1])
    with pytest.warns(UserWarning, match="length of split at index 1 is 0"):
        lud.random_split(list(range(2)), [0.9, 0.1])


# -- samplers --------------------------------------------------------------------------


def test_sequential_sampler():
    s = lud.SequentialSampler(range(4))
    assert list(s) == [0, 1, 2, 3] and len(s) == 4


def test_random_sampler_permutation_and_generator():
    g = lambda s: lucid.Generator().manual_seed(s)  # noqa: E731
    s = lud.RandomSampler(range(20), generator=g(0))
    first, second = list(s), list(s)
    assert sorted(first) == list(range(20)) and first != second  # a new order per pass
    assert list(lud.RandomSampler(range(20), generator=g(0))) == first
    assert list(lud.RandomSampler(range(20), generator=g(1))) != first
    lucid.manual_seed(5)
    a = list(lud.RandomSampler(range(20)))
    lucid.manual_seed(5)
    assert list(lud.RandomSampler(range(20))) == a
    assert list(lud.RandomSampler([])) == []


def test_random_sampler_num_samples_and_replacement():
    g = lucid.Generator().manual_seed(0)
    s = lud.RandomSampler(range(4), num_samples=10, generator=g)
    out = list(s)
    assert len(s) == 10 and len(out) == 10
    assert sorted(out[:4]) == sorted(out[4:8]) == [0, 1, 2, 3]  # whole permutations
    assert len(set(out[8:])) == 2
    r = lud.RandomSampler(range(3), replacement=True, num_samples=300, generator=g)
    out = list(r)
    assert len(out) == 300 and set(out) == {0, 1, 2}
    with pytest.raises(ArgumentError, match="num_samples should be a positive integer"):
        lud.RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        lud.RandomSampler(range(3), replacement=1)
    with pytest.raises(ArgumentError, match="empty"):
        list(lud.RandomSampler([], replacement=True, num_samples=2))


def test_subset_random_sampler():
    idx = [10, 20, 30, 40]
    s = lud.SubsetRandomSampler(idx, generator=lucid.Generator().manual_seed(0))
    out = list(s)
    assert sorted(out) == idx and len(s) == 4
    assert list(lud.SubsetRandomSampler(idx, generator=lucid.Generator().manual_seed(0))) == out


def test_weighted_random_sampler():
    g = lucid.Generator().manual_seed(0)
    s = lud.WeightedRandomSampler([0.0, 1.0, 3.0], 400, generator=g)
    out = list(s)
    assert len(s) == 400 and len(out) == 400 and 0 not in out
    assert out.count(2) > out.count(1)
    no_rep = list(
        lud.WeightedRandomSampler([1.0, 1.0, 1.0, 0.0], 3, replacement=False, generator=g)
    )
    assert sorted(no_rep) == [0, 1, 2]
    with pytest.raises(ArgumentError, match="num_samples"):
        lud.WeightedRandomSampler([1.0], 0)
    with pytest.raises(ArgumentError, match="replacement should be a boolean"):
        lud.WeightedRandomSampler([1.0], 1, replacement="yes")
    with pytest.raises(ShapeError, match="1-D"):
        lud.WeightedRandomSampler([[1.0, 2.0]], 1)


@pytest.mark.parametrize(
    "n, bs, drop", [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, True), (0, 2, False)]
)
def test_batch_sampler_matches_torch(n, bs, drop):
    ours = lud.BatchSampler(range(n), bs, drop)
    theirs = tud.BatchSampler(range(n), bs, drop)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_batch_sampler_errors():
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ArgumentError, match="batch_size should be a positive integer"):
            lud.BatchSampler(range(3), bad, False)
    with pytest.raises(ArgumentError, match="drop_last should be a boolean"):
        lud.BatchSampler(range(3), 2, 0)


def test_sampler_base():
    with pytest.raises(NotImplementedError):
        iter(lud.Sampler())


# -- collate ---------------------------------------------------------------------------

Point = collections.namedtuple("Point", "x y")


def both(make):
    """(lucid's collate of make(lucid), torch's collate of make(torch))."""
    return lud.default_collate(make(lucid)), tud.default_collate(make(torch))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: [m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0])],
        lambda m: [m.tensor(1), m.tensor(2)],
        lambda m: [m.zeros(0, 2, dtype=m.float64), m.zeros(0, 2, dtype=m.float64)],
        lambda m: [1, 2, 3],
        lambda m: [1.5, 2.5],
        lambda m: [True, False],
        lambda m: ["a", "b"],
        lambda m: [b"a", b"b"],
        lambda m: [(m.ones(2), 1), (m.zeros(2), 2)],
        lambda m: [[m.ones(2), 1.0], [m.zeros(2), 2.0]],
        lambda m: [{"x": m.ones(3), "y": 1, "s": "a"}, {"x": m.zeros(3), "y": 2, "s": "b"}],
        lambda m: [collections.OrderedDict(a=1), collections.OrderedDict(a=2)],
        lambda m: [Point(m.ones(1), 2), Point(m.zeros(1), 3)],
        lambda m: [{"n": [(1, 2.0)]}, {"n": [(3, 4.0)]}],
        lambda m: [np.arange(3, dtype=np.float32), np.arange(3, dtype=np.float32)],
        lambda m: [np.int16(3), np.int16(4)],
        lambda m: [np.float64(0.5), np.float64(1.5)],
        lambda m: [(np.ones((2, 2)), "s")] * 3,
    ],
    ids=[
        "tensor",
        "0d",
        "empty",
        "int",
        "float",
        "bool",
        "str",
        "bytes",
        "tuple",
        "list",
        "dict",
        "odict",
        "namedtuple",
        "nested",
        "ndarray",
        "npint",
        "npfloat",
        "mixed",
    ],
)
def test_default_collate_matches_torch(make):
    ours, theirs = both(make)
    assert_like_torch(ours, theirs)


def test_default_collate_stacks_non_contiguous_and_errors():
    base = lucid.arange(12.0).reshape(3, 4)
    out = lud.default_collate([base.t()[0], base.t()[1]])
    np.testing.assert_array_equal(out.numpy(), base.numpy().T[:2])
    with pytest.raises(ShapeError, match="equal size"):
        lud.default_collate([[1, 2], [3]])
    with pytest.raises(ArgumentTypeError, match="found object"):
        lud.default_collate([object(), object()])
    with pytest.raises(ArgumentTypeError, match="numpy array of dtype"):
        lud.default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(ShapeError):
        lud.default_collate([lucid.ones(2), lucid.ones(3)])


@pytest.mark.parametrize(
    "make",
    [
        lambda m: np.arange(4.0),
        lambda m: (np.ones(2, np.int32), "s", 3),
        lambda m: {"a": np.float32(2.0), "b": [np.zeros(1)]},
        lambda m: Point(np.ones(1), 2.0),
        lambda m: np.array(["x"]),
        lambda m: "text",
        lambda m: 4,
    ],
    ids=["ndarray", "tuple", "dict", "namedtuple", "strarray", "str", "int"],
)
def test_default_convert_matches_torch(make):
    ours, theirs = lud.default_convert(make(lucid)), tud.default_convert(make(torch))
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray) and (ours == theirs).all()
    else:
        assert_like_torch(ours, theirs)
    t = lucid.ones(2)
    assert lud.default_convert(t) is t


def test_get_worker_info_in_main_process():
    assert lud.get_worker_info() is None


@pytest.mark.parametrize(
    "n, replicas, drop",
    [(10, 3, False), (10, 3, True), (9, 3, True), (2, 4, False), (2, 4, True), (0, 2, False)],
)
def test_distributed_sampler_without_shuffle_matches_torch(n, replicas, drop):
    for rank in range(replicas):
        ours = lud.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop)
        theirs = tud.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_distributed_sampler_shuffle_partitions_and_epochs():
    def shares(epoch, seed=0):
        out = []
        for rank in range(4):
            s = lud.DistributedSampler(range(20), 4, rank, seed=seed)
            s.set_epoch(epoch)
            out.append(list(s))
        return out

    a = shares(0)
    assert sorted(sum(a, [])) == list(range(20)) and all(len(x) == 5 for x in a)
    assert shares(0) == a and shares(1) != a and shares(0, seed=1) != a
    with pytest.raises(ArgumentError, match="invalid rank 4"):
        lud.DistributedSampler(range(4), 4, 4)
    with pytest.raises(ArgumentError, match="process group"):
        lud.DistributedSampler(range(4))


@pytest.mark.parametrize("name", [n for n in lud.__all__ if n != "WorkerInfo"])
def test_signatures_match_torch(name):
    import inspect

    ours, theirs = getattr(lud, name), getattr(tud, name)
    a, b = inspect.signature(ours), inspect.signature(theirs)

    def plain(sig):
        return [
            (
                p.name,
                p.kind,
                p.default
                if p.default is None or isinstance(p.default, (bool, int, float, str))
                else "object",
            )
            for p in sig.parameters.values()
        ]

    if name == "random_split":  # torch's default is its default generator, ours None
        assert [p[:2] for p in plain(a)] == [p[:2] for p in plain(b)]
    else:
        assert plain(a) == plain(b)
