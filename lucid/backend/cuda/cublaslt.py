"""Matrix products through cuBLASLt, with one plan per problem shape.

cuBLAS's classic entry points choose an algorithm on every call, which costs tens of
microseconds of host time on a Hopper host. cuBLASLt separates the choice from the call:
:func:`matmul` describes a problem once (operation, matrix layouts, epilogue), asks
``cublasLtMatmulAlgoGetHeuristic`` for the best algorithm within a workspace, caches that
plan by shape, dtype and pointer alignment, and from then on each product is one
``cublasLtMatmul`` call. The library is reached through ``ctypes`` (CuPy wraps only the
classic API); CuPy's cuBLAS has already loaded it into the process.

A plan may carry an epilogue: ``BIAS`` adds a vector along the output's rows of the
column-major problem (the features of a row-major ``x @ w.T``), ``BGRADB`` writes the
second operand's sums over the reduced dimension alongside the product (a bias gradient
for free); ``RELU`` and ``GELU`` (cuBLASLt's GELU is the tanh approximation) apply an
activation to the result, after the bias, and ``AUX`` with ``GELU`` also writes the
activation's input to an auxiliary matrix (what the activation's backward reads).
"""

import ctypes

import cupy

_LIB: list = []  # the loaded library, or None where it cannot be loaded
_HANDLES: dict = {}  # device -> cublasLtHandle_t
_WORKSPACE: dict = {}  # (device, stream) -> workspace array
_PLANS: dict = {}  # problem key -> _Plan, or None where Lt has no algorithm
_WORKSPACE_BYTES = 32 << 20

EPILOGUE_DEFAULT, EPILOGUE_BIAS, EPILOGUE_BGRADB = 1, 4, 512
EPILOGUE_RELU, EPILOGUE_GELU, EPILOGUE_AUX = 2, 32, 128  # bits, combined with BIAS
_DESC_TRANSA, _DESC_TRANSB, _DESC_EPILOGUE, _DESC_BIAS_POINTER = 3, 4, 7, 8
_DESC_AUX_POINTER, _DESC_AUX_LD = 11, 12
_LAYOUT_BATCH_COUNT, _LAYOUT_BATCH_STRIDE = 5, 6
_PREF_MAX_WORKSPACE = 1
_PREF_ALIGN = (5, 6, 7, 8)  # minimum alignment of A, B, C, D in bytes
_P = ctypes.c_void_p


class _Heuristic(ctypes.Structure):
    """``cublasLtMatmulHeuristicResult_t``: the algorithm (opaque 64 bytes) and its needs."""

    _fields_ = [
        ("algo", ctypes.c_uint64 * 8),
        ("workspace", ctypes.c_size_t),
        ("state", ctypes.c_int),
        ("waves", ctypes.c_float),
        ("reserved", ctypes.c_int * 4),
    ]


def _library():
    if not _LIB:
        lib = None
        for name in ("libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"):
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if lib is not None:
            i, setter = ctypes.c_int, [_P, ctypes.c_int, _P, ctypes.c_size_t]
            for name, args in (
                ("Create", [_P]),
                ("MatmulDescCreate", [_P, i, i]),
                ("MatmulDescSetAttribute", setter),
                ("MatrixLayoutSetAttribute", setter),
                ("MatrixLayoutCreate", [_P, i, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64]),
                ("MatmulPreferenceCreate", [_P]),
                ("MatmulPreferenceDestroy", [_P]),
                ("MatmulPreferenceSetAttribute", setter),
                ("MatmulAlgoGetHeuristic", [_P] * 7 + [i, _P, _P]),
                ("Matmul", [_P] * 14 + [ctypes.c_size_t, _P]),
            ):
                fn = getattr(lib, "cublasLt" + name)
                fn.argtypes, fn.restype = args, ctypes.c_int
        _LIB.append(lib)
    return _LIB[0]


def available():
    """Whether cuBLASLt could be loaded into this process."""
    return _library() is not None


def _check(status, what):
    if status != 0:
        raise RuntimeError(f"cuBLASLt {what} failed with status {status}")


def _set(setter, obj, attr, value, ctype):
    v = ctype(value)
    _check(setter(obj, attr, ctypes.byref(v), ctypes.sizeof(v)), "set attribute")


def _handle(lib, device):
    h = _HANDLES.get(device)
    if h is None:
        h = _P()
        _check(lib.cublasLtCreate(ctypes.byref(h)), "create")
        _HANDLES[device] = h = h.value
    return h


def _workspace(device, stream):
    ws = _WORKSPACE.get((device, stream))
    if ws is None:
        ws = _WORKSPACE[(device, stream)] = cupy.empty(_WORKSPACE_BYTES, cupy.uint8)
    return ws.data.ptr


def alignment(ptr):
    """The largest power of two up to 256 dividing ``ptr`` (a plan depends on it)."""
    return min(ptr & -ptr, 256) if ptr else 256


class _Plan:
    """One problem's descriptors and its chosen algorithm, kept for the process's life."""

    __slots__ = (
        "desc",
        "a",
        "b",
        "c",
        "algo",
        "algo_ptr",
        "ws",
        "bias",
        "bias_ptr",
        "aux",
        "aux_ptr",
    )

    def __init__(self, lib, handle, key):
        (
            dtype,
            cdtype,
            compute,
            scale,
            opa,
            opb,
            m,
            n,
            k,
            lda,
            ldb,
            ldc,
            count,
            sa,
            sb,
            sc,
            epilogue,
            aligns,
            aux_ld,
        ) = key
        desc = _P()
        _check(lib.cublasLtMatmulDescCreate(ctypes.byref(desc), compute, scale), "desc")
        self.desc = desc.value
        setter = lib.cublasLtMatmulDescSetAttribute
        _set(setter, self.desc, _DESC_TRANSA, opa, ctypes.c_int32)
        _set(setter, self.desc, _DESC_TRANSB, opb, ctypes.c_int32)
        _set(setter, self.desc, _DESC_EPILOGUE, epilogue, ctypes.c_uint32)
        if aux_ld:
            _set(setter, self.desc, _DESC_AUX_LD, aux_ld, ctypes.c_int64)
        shapes = (
            ((m, k) if opa == 0 else (k, m), lda, sa),
            ((k, n) if opb == 0 else (n, k), ldb, sb),
            ((m, n), ldc, sc),
        )
        self.a, self.b, self.c = (
            self._layout(lib, dt, rc, ld, count, st)
            for dt, (rc, ld, st) in zip((dtype, dtype, cdtype), shapes)
        )
        pref = _P()
        _check(lib.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)), "preference")
        psetter = lib.cublasLtMatmulPreferenceSetAttribute
        _set(psetter, pref, _PREF_MAX_WORKSPACE, _WORKSPACE_BYTES, ctypes.c_uint64)
        for attr, al in zip(_PREF_ALIGN, aligns[:3] + aligns[2:3]):  # D is C
            _set(psetter, pref, attr, al, ctypes.c_uint32)
        result, found = _Heuristic(), ctypes.c_int(0)
        status = lib.cublasLtMatmulAlgoGetHeuristic(
            handle,
            self.desc,
            self.a,
            self.b,
            self.c,
            self.c,
            pref,
            1,
            ctypes.byref(result),
            ctypes.byref(found),
        )
        lib.cublasLtMatmulPreferenceDestroy(pref)
        if status != 0 or found.value == 0:
            raise RuntimeError("cuBLASLt has no algorithm for this problem")
        self.algo = result.algo  # kept alive: the call reads it
        self.algo_ptr = ctypes.addressof(result.algo)
        self.ws = result.workspace
        self.bias = ctypes.c_uint64(0)  # the epilogue vector's address, as set
        self.bias_ptr = ctypes.addressof(self.bias)
        self.aux = ctypes.c_uint64(0)  # the auxiliary matrix's, as set
        self.aux_ptr = ctypes.addressof(self.aux)

    @staticmethod
    def _layout(lib, dtype, rows_cols, ld, count, stride):
        layout = _P()
        _check(
            lib.cublasLtMatrixLayoutCreate(
                ctypes.byref(layout), dtype, rows_cols[0], rows_cols[1], ld
            ),
            "layout",
        )
        if count > 1:
            setter = lib.cublasLtMatrixLayoutSetAttribute
            _set(setter, layout, _LAYOUT_BATCH_COUNT, count, ctypes.c_int32)
            _set(setter, layout, _LAYOUT_BATCH_STRIDE, stride, ctypes.c_int64)
        return layout.value


def _plan(key):
    """The cached plan of problem ``key``, or None where cuBLASLt cannot take it; the
    first call for a key builds it."""
    try:
        return _PLANS[key]
    except KeyError:
        pass
    lib = _library()
    p = None
    if lib is not None:
        try:
            p = _Plan(lib, _handle(lib, cupy.cuda.runtime.getDevice()), key)
        except RuntimeError:
            p = None
    _PLANS[key] = p
    return p


def matmul(key, alpha, a, b, beta, c, stream, bias=0, aux=0):
    """``c = alpha op(a) op(b) + beta c`` for device pointers ``a``, ``b``, ``c`` (and the
    epilogue's vector at ``bias``, its auxiliary matrix at ``aux``) on ``stream``, the
    problem being ``key``: ``(dtype of a and b, dtype of c (and of the epilogue's vector
    and matrix), compute type, scale type, op a, op b, m, n, k, lda, ldb, ldc, batch
    count, batch strides of a, b, c, epilogue, alignments of a, b, c, bias, leading
    dimension of the auxiliary matrix (0: none))`` in cuBLAS's column-major terms. False
    (nothing done) where cuBLASLt cannot take the problem."""
    p = _plan(key)
    if p is None:
        return False
    lib = _LIB[0]
    if bias:
        p.bias.value = bias
        _check(
            lib.cublasLtMatmulDescSetAttribute(p.desc, _DESC_BIAS_POINTER, p.bias_ptr, 8),
            "set attribute",
        )
    if aux:
        p.aux.value = aux
        _check(
            lib.cublasLtMatmulDescSetAttribute(p.desc, _DESC_AUX_POINTER, p.aux_ptr, 8),
            "set attribute",
        )
    device = cupy.cuda.runtime.getDevice()
    ws = _workspace(device, stream) if p.ws else 0
    status = lib.cublasLtMatmul(
        _HANDLES[device],
        p.desc,
        alpha,
        a,
        p.a,
        b,
        p.b,
        beta,
        c,
        p.c,
        c,
        p.c,
        p.algo_ptr,
        ws,
        p.ws,
        stream,
    )
    if status != 0:
        _PLANS[key] = None  # never again for this problem: the classic call
        return False
    return True
