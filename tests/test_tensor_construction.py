"""lucid.tensor, as_tensor and Tensor.new_tensor of every sequence PyTorch reads (deque,
range, array.array, objects with __len__/__getitem__), NumPy scalars, 0-d arrays and
tensors mixed with numbers, objects with __array__ or __dlpack__: values and PyTorch's
dtype inference, checked against torch itself; ragged data and non-numbers refused."""

import array
import collections

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import DTypeError, ShapeError


class Seq:
    """A sequence by __len__ and __getitem__ only (no __iter__)."""

    def __init__(self, items):
        self._items = items

    def __len__(self):
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]


class ArrayLike:
    def __init__(self, a):
        self._a = a

    def __array__(self, dtype=None, copy=None):
        return self._a


# (data, same data for torch): each case one that torch.tensor accepts
CASES = {
    "deque float": lambda: collections.deque([1.0, 2.5]),
    "deque int": lambda: collections.deque([1, 2]),
    "deque of lists": lambda: collections.deque([[1, 2], [3, 4]]),
    "range": lambda: range(4),
    "list of ranges": lambda: [range(2), range(2)],
    "array.array d": lambda: array.array("d", [1.0, 2.0]),  # torch reads it as floats
    "array.array i": lambda: array.array("i", [1, -2]),
    "array.array B": lambda: array.array("B", [1, 2]),
    "Seq float": lambda: Seq([1.0, 2.0]),
    "Seq nested": lambda: Seq([Seq([1, 2]), Seq([3, 4])]),
    "np.float64 list": lambda: [np.float64(1.0), np.float64(2.0)],
    "np.float32 list": lambda: [np.float32(1.0), np.float32(2.0)],
    "np.float64 and int": lambda: [np.float64(1.0), 2],
    "np.float32 and float": lambda: [np.float32(1.0), 2.0],
    "np.float32 and np.float64": lambda: [np.float32(1.0), np.float64(2.0)],
    "np.float16 list": lambda: [np.float16(1.0)],
    "np.int32 list": lambda: [np.int32(1), np.int32(2)],
    "np.int32 and int": lambda: [np.int32(1), 2],
    "np.int32 and float": lambda: [np.int32(1), 2.5],
    "np.int8 and np.uint8": lambda: [np.int8(1), np.uint8(2)],
    "np.uint8 list": lambda: [np.uint8(7)],
    "np.bool list": lambda: [np.bool_(True), np.bool_(False)],
    "np.complex64 list": lambda: [np.complex64(1 + 2j)],
    "np.complex128 and float": lambda: [np.complex128(1j), 1.0],
    "np.float64 scalar": lambda: np.float64(1.5),
    "np.int32 scalar": lambda: np.int32(3),
    "nested np scalars": lambda: [[np.float32(1.0)], [2.0]],
    "arrays in a list": lambda: [np.array([1.0, 2.0]), np.array([3.0, 4.0])],
    "array and list": lambda: [np.array([1.0, 2.0], np.float32), [3.0, 4.0]],
    "int32 array and list": lambda: [np.array([1, 2], np.int32), [3, 4]],
    "bools": lambda: [True, False],
    "int and bool": lambda: [1, True],
    "int and float": lambda: [1, 2.5],
    "complex and int": lambda: [1 + 2j, 1],
    "tuple": lambda: (1, 2),
    "empty": lambda: [],
    "empty nested": lambda: [[], []],
    "big int as float": lambda: [2**70, 1.0],
}

# what each torch case turns into for Lucid: tensors inside become the framework's own
TENSOR_CASES = {
    "0-d tensors": lambda T: [T.tensor(1.0), T.tensor(2.0)],
    "0-d tensor and int": lambda T: [T.tensor(1.0), 2],
    "0-d float64 tensor and float": lambda T: [T.tensor(1.0, dtype=T.float64), 2.0],
    "0-d int tensor and float": lambda T: [T.tensor(1), 2.5],
    "0-d int32 tensor and int": lambda T: [T.tensor(1, dtype=T.int32), 2],
    "0-d bool tensor and bool": lambda T: [T.tensor(True), False],
}


def _same(lt, tt):
    assert lt.dtype.name == str(tt.dtype).split(".")[-1], (lt.dtype, tt.dtype)
    assert tuple(lt.shape) == tuple(tt.shape)
    assert lt.tolist() == tt.tolist()


@pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy")
@pytest.mark.parametrize("name", CASES)
def test_tensor_matches_torch(name):
    _same(lucid.tensor(CASES[name]()), torch.tensor(CASES[name]()))


@pytest.mark.parametrize("name", TENSOR_CASES)
def test_tensors_inside_lists_match_torch(name):
    _same(lucid.tensor(TENSOR_CASES[name](lucid)), torch.tensor(TENSOR_CASES[name](torch)))


@pytest.mark.parametrize(
    "name",
    [
        "deque float",
        "np.float32 and float",
        "int and float",
        "complex and int",
        "np.int32 and float",
    ],
)
def test_inference_follows_the_default_dtype(name):
    old_l, old_t = lucid.get_default_dtype(), torch.get_default_dtype()
    lucid.set_default_dtype(lucid.float64)
    torch.set_default_dtype(torch.float64)
    try:
        _same(lucid.tensor(CASES[name]()), torch.tensor(CASES[name]()))
    finally:
        lucid.set_default_dtype(old_l)
        torch.set_default_dtype(old_t)


@pytest.mark.parametrize(
    "name",
    [
        "deque int",
        "range",
        "np.float64 list",
        "Seq float",
        "array.array d",
        "0-d int32 tensor and int",
    ],
)
def test_explicit_dtype_and_as_tensor_and_new_tensor(name):
    make = CASES.get(name) or (lambda: TENSOR_CASES[name](lucid))
    tmake = CASES.get(name) or (lambda: TENSOR_CASES[name](torch))
    _same(lucid.tensor(make(), dtype=lucid.float64), torch.tensor(tmake(), dtype=torch.float64))
    _same(lucid.as_tensor(make()), torch.as_tensor(tmake()))
    base_l, base_t = lucid.zeros(1, dtype=lucid.int32), torch.zeros(1, dtype=torch.int32)
    _same(base_l.new_tensor(make()), base_t.new_tensor(tmake()))  # self's dtype


def test_legacy_constructor_and_sharing_of_array_likes():
    _same(lucid.Tensor(collections.deque([1, 2])), torch.Tensor(collections.deque([1, 2])))
    base = np.arange(3.0)
    shared = lucid.as_tensor(ArrayLike(base))  # np.asarray gives base itself
    base[0] = 9.0
    assert shared.tolist() == [9.0, 1.0, 2.0]
    copied = lucid.tensor(ArrayLike(base))
    base[1] = -1.0
    assert copied.tolist() == [9.0, 1.0, 2.0]


def test_reinforce_returns_deque():
    """The REINFORCE example: returns accumulated with appendleft, then normalised."""
    returns = collections.deque()
    r = 0.0
    for reward in [1.0, 1.0, 0.0, 1.0]:
        r = reward + 0.99 * r
        returns.appendleft(r)
    lt, tt = lucid.tensor(returns), torch.tensor(returns)
    _same(lt, tt)
    ln = (lt - lt.mean()) / (lt.std() + 1e-9)
    tn = (tt - tt.mean()) / (tt.std() + 1e-9)
    np.testing.assert_allclose(ln.numpy(), tn.numpy(), rtol=1e-6)


def test_lucid_extensions_beyond_torch():
    # 0-d NumPy arrays keep their dtype, as NumPy scalars do (torch refuses them in lists)
    t = lucid.tensor([np.array(1.0), np.array(2.0)])
    assert t.dtype is lucid.float64 and t.tolist() == [1.0, 2.0]
    t = lucid.tensor([np.array(1.0, np.float32), 2.0])
    assert t.dtype is lucid.float32
    assert lucid.tensor([np.array(1, np.int32), 2]).dtype is lucid.int64
    # tensors of any shape inside lists (torch takes only one-element ones)
    t = lucid.tensor([lucid.tensor([1.0, 2.0]), lucid.tensor([3.0, 4.0])])
    assert t.shape == (2, 2) and t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    # objects with __array__, alone and inside lists, keep the array's dtype
    a = ArrayLike(np.array([1.5, 2.5], np.float32))
    assert lucid.tensor(a).dtype is lucid.float32 and lucid.tensor(a).tolist() == [1.5, 2.5]
    t = lucid.tensor([a, [3.0, 4.0]])
    assert t.dtype is lucid.float32 and t.shape == (2, 2)


def test_dlpack_objects():
    src = torch.arange(3.0, requires_grad=True)  # exported through detach()
    t = lucid.tensor(src)
    with torch.no_grad():
        src[0] = 5.0
    assert t.tolist() == [0.0, 1.0, 2.0]  # tensor() copies
    assert lucid.tensor(torch.ones(2, dtype=torch.bfloat16)).dtype is lucid.bfloat16
    shared = torch.arange(3.0)
    view = lucid.as_tensor(shared)  # as_tensor shares
    shared[1] = -1.0
    assert view.tolist() == [0.0, -1.0, 2.0]
    assert lucid.as_tensor(shared, dtype=lucid.float64).dtype is lucid.float64
    t = lucid.tensor([torch.tensor(1.5, dtype=torch.float64), 2])
    assert t.dtype is lucid.float64 and t.tolist() == [1.5, 2.0]


def test_ragged_and_non_numbers_are_refused():
    with pytest.raises(
        ShapeError,
        match=r"tensor: nested sequences have inconsistent "
        r"lengths: expected sequence of length 2 at dim 1 "
        r"\(got 1\)",
    ):
        lucid.tensor([[1, 2], [3]])
    with pytest.raises(ShapeError, match="expected sequence of length 2 at dim 1 \\(got 3\\)"):
        lucid.tensor(collections.deque([[1, 2], collections.deque([3, 4, 5])]))
    with pytest.raises(ShapeError, match="expected a number at dim 1, got a sequence"):
        lucid.tensor([1, [2]])
    with pytest.raises(ShapeError, match="expected a sequence of length 2 at dim 1, got int"):
        lucid.tensor([[1, 2], 3])
    with pytest.raises(ShapeError, match="got an element of shape \\(3,\\)"):
        lucid.tensor([np.zeros(2), np.zeros(3)])
    with pytest.raises(ShapeError, match="inconsistent lengths"):
        lucid.as_tensor([[1.0], []])
    for bad in ("ab", b"ab", {1, 2}, {0: 1}, None, (i for i in range(2))):
        msg = f"tensor: could not convert {type(bad).__name__}"
        with pytest.raises(DTypeError, match=msg):
            lucid.tensor(bad)
    with pytest.raises(DTypeError, match="could not infer the dtype of NoneType"):
        lucid.tensor([1.0, None])
    with pytest.raises(DTypeError, match="could not infer the dtype of str"):
        lucid.tensor(collections.deque(["a"]))


def test_large_lists_keep_their_values():
    ints = list(range(-50, 50))
    _same(lucid.tensor(ints), torch.tensor(ints))
    rows = [[i * 0.5 for i in range(7)] for _ in range(5)]
    _same(lucid.tensor(rows), torch.tensor(rows))
    with pytest.raises(lucid.errors.ValueOverflowError, match="18446744073709551616"):
        lucid.tensor([1, 2**64])
    assert lucid.tensor([1, 2**64], dtype=lucid.bool).tolist() == [True, True]
