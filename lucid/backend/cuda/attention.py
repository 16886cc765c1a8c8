r"""Flash attention on CUDA: tiles of queries and keys, online softmax, no L x S matrix.

Forward (per query row :math:`i`, over tiles of keys :math:`J`, running max :math:`m`,
sum :math:`l` and unnormalised output :math:`a`):

.. math:: m' = \max(m, \max_{j \in J} S_{ij}), \quad
          l \leftarrow l\,e^{m - m'} + \textstyle\sum_{j \in J} e^{S_{ij} - m'}, \quad
          a \leftarrow a\,e^{m - m'} + \textstyle\sum_{j \in J} e^{S_{ij} - m'} V_j,

then :math:`O_i = a / l` and :math:`\ell_i = m + \log l` (saved; :math:`+\infty` for a
fully masked row). float16/bfloat16 with head dims up to 128 take a tensor-core kernel
(``mma.sync`` m16n8k16, float accumulation; 64 query rows and 64 keys a tile, head dim
zero-padded to 32, 64 or 128); other dtypes and head dims up to 256 a plain tiled kernel
(a warp per 4 query rows, a lane per key). Backward: :math:`D_i = \sum_e \bar O_{ie}
O_{ie}` first, then one kernel per (key tile, batch, key/value head) recomputing
:math:`P = e^{S - \ell}` for each step of query rows of every head of its group,
keeping :math:`\bar K, \bar V` of its keys in registers and adding :math:`\bar Q`
atomically in float32 (float64 for float64): for float16/bfloat16 with head dims up to
128 on tensor cores (64 keys, steps of 32 queries whose Q, dO, lse and D stream through
two ``cp.async`` buffers; :math:`\bar S^\top` goes through shared memory for
:math:`\bar Q = \bar S K`, added with 16-byte atomics; fragments through ``ldmatrix``),
else a plain kernel (32 keys, steps of 8 queries). What the kernels do not take (head dims
past 256 forward, past 128 backward, a shared-memory budget the dtype exceeds, empty
inputs) goes to the array-module implementation. The tensor-core grids are (heads, tiles),
so that the longest causal tiles of every head are dispatched first (a shorter tail), and
causal masking is applied only on the tiles a warp's rows cross the diagonal in.
"""

import math

import cupy
import ml_dtypes
import numpy as np

from . import cudnn
from .kernels import blocks, empty, kernel
from .softmax import attention_softmax

_SUFFIX = {
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.float16): "f16",
    np.dtype(ml_dtypes.bfloat16): "bf16",
}
_BN, _BM, _BR, _TM, _QM = 32, 16, 8, 64, 32  # as BN, BM, BR, TM, QM in the source
_MMA_FORWARD = _MMA_BACKWARD = True  # False: half types take the plain kernel too
_RAISED: set = set()  # (kernel, device) whose shared-memory limit is raised
_SMEM = 48 * 1024  # static shared-memory limit of a launch
_GRID_Y = 65535
_PROBS_SMALL, _PROBS_BYTES = 64 << 20, 1 << 30  # float32/64: keep P between these

# The C parameter lists of the kernels, written once: the source's ATTN_PARAMS(T) and
# <KEY>_PARAMS(T, A) macros are defined from them, and each launch is laid out by its list
# (kernels.kernel's ``params``).
_ATTN = (
    "const T *q, const T *k, const T *v, const T *bias, const bool *ok, int has_bias, "
    "int has_ok, long long H, long long G, long long L, long long S, int E, int EV, "
    "long long qb, long long qh, long long ql, long long kb, long long kh, long long kl, "
    "long long vb, long long vh, long long vl, long long bb, long long bh, long long bi, "
    "long long bj, long long mb, long long mh, long long mi, long long mj, float scale, "
    "int causal, long long ob, long long oh, long long ol, int kvt"
)
_DECLS = {
    "FWD": "T* o, A* lse, " + _ATTN,
    "BWD": "const T* go, const A* lse, const A* dd, A* dq, T* dk, T* dv, " + _ATTN,
    "FWD_MMA": "T* o, float* lse, int vec, " + _ATTN,
    "BWD_MMA": "const T* go, const float* lse, const float* dd, float* dq, T* dk, T* dv, "
    "int vec, " + _ATTN,
    "ROWDOT": "const T* a, const T* b, A* out, long long rows, int ev, int g, long long H, "
    "long long L, long long ab, long long ah, long long al, long long bb, "
    "long long bh, long long bl",
    "CAST": "const A* src, T* dst, long long n, long long H, long long L, int E, int t",
}

_SOURCE = (
    f"#define ATTN_PARAMS(T) {_ATTN}\n"
    + "".join(f"#define {key}_PARAMS(T, A) {params}\n" for key, params in _DECLS.items())
    + r"""
// Flash attention: tiles of queries and keys, online softmax, no L x S matrix in memory.
// Every kernel is a template over the element type T (and the accumulation type A) with an
// extern "C" instance per dtype suffix: f32, f64, f16, bf16 (mma kernels: f16, bf16 only).
// Layouts: q, k, v are 4-D (batch, head, row, feature) with element strides for the first
// three axes and unit feature stride; bias and the boolean mask are (batch, head, i, j) with
// four strides (0 where broadcast); o (forward) and do (backward) have three strides too (ob,
// oh, ol: the forward writes o in (batch, L, head, EV) memory, so that merging the heads
// back is a view); dq (float32 atomics) is contiguous (batch, head, L, E); dk and dv are
// (batch, head / groups, S, E or EV), contiguous or, with kvt, in (batch, S, head / groups,
// E or EV) memory; lse and D are contiguous (batch, head, L). Key/value head of query head
// h: h / G.

typedef unsigned int u32;

template <class A> __device__ __forceinline__ A neg_inf() {
    return static_cast<A>(-__longlong_as_double(0x7ff0000000000000LL));
}
__device__ __forceinline__ float ex(float x) { return expf(x); }
__device__ __forceinline__ double ex(double x) { return exp(x); }
__device__ __forceinline__ float lg(float x) { return logf(x); }
__device__ __forceinline__ double lg(double x) { return log(x); }

template <class A> __device__ __forceinline__ A warp_max(A x) {
    for (int o = 16; o; o >>= 1) x = max(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}
template <class A> __device__ __forceinline__ A warp_sum(A x) {
    for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

// The masks of one (batch, head): a float bias and a boolean mask (null when absent).
template <class T> struct Masks {
    const T* bias; long long bi, bj;
    const bool* ok; long long mi, mj;
    long long L, S; int causal;

    // s (already scaled) after the bias; -inf where (i, j) is masked or out of range
    template <class A> __device__ __forceinline__ A apply(A s, long long i, long long j) const {
        if (i >= L || j >= S || (causal && j > i) || (ok && !ok[i * mi + j * mj]))
            return neg_inf<A>();
        if (bias) s += static_cast<A>(bias[i * bi + j * bj]);
        return s;
    }
};

// ATTN_PARAMS(T), the parameters every kernel takes, and the other *_PARAMS(T, A) lists
// are defined from attention.py's _DECLS, above this source.
#define ATTN_ARGS q, k, v, bias, ok, has_bias, has_ok, H, G, L, S, E, EV, qb, qh, ql, kb, \
    kh, kl, vb, vh, vl, bb, bh, bi, bj, mb, mh, mi, mj, scale, causal, ob, oh, ol, kvt

struct Head {
    long long n, qo, ko, vo, oo;  // flat (batch, head) index; element offsets of q, k, v, o
};

// The row of key j of key/value head hk of batch b in dk (times E) and dv (times EV).
__device__ __forceinline__ long long kv_row(long long b, long long hk, long long Hk,
                                            long long S, long long j, int kvt) {
    return kvt ? (b * S + j) * Hk + hk : (b * Hk + hk) * S + j;
}

template <class T>
__device__ __forceinline__ Head head_of(long long n, ATTN_PARAMS(T), Masks<T>& mk) {
    long long b = n / H, h = n % H;
    Head hd{n, b * qb + h * qh, b * kb + (h / G) * kh, b * vb + (h / G) * vh, b * ob + h * oh};
    mk = Masks<T>{has_bias ? bias + b * bb + h * bh : nullptr, bi, bj,
                  has_ok ? ok + b * mb + h * mh : nullptr, mi, mj, L, S, causal};
    return hd;
}

// ---- plain tiled kernels (any dtype): a warp per RW query rows, a lane per key ----------

#define BN 32
#define RW 4
#define BM 16                   // 4 warps x RW rows
#define CH 8                    // feature chunks of 32 per lane: EV <= 256

template <class T, class A>
__device__ void fwd_plain(T* o, A* lse, ATTN_PARAMS(T)) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int E1 = E + 1;
    T* Ks = reinterpret_cast<T*>(smem);             // BN x (E + 1)
    T* Vs = Ks + BN * E1;                           // BN x EV
    T* Qs = Vs + BN * EV;                           // BM x E
    size_t off = ((size_t)(BN * E1 + BN * EV + BM * E) * sizeof(T) + 15) & ~(size_t)15;
    A* Ps = reinterpret_cast<A*>(smem + off);       // BM x BN
    const int tid = threadIdx.x, w = tid >> 5, lane = tid & 31;
    Masks<T> mk;
    Head hd = head_of<T>(blockIdx.y, ATTN_ARGS, mk);
    const long long i0 = (long long)blockIdx.x * BM;
    for (int x = tid; x < BM * E; x += blockDim.x) {
        int r = x / E, c = x % E;
        Qs[x] = i0 + r < L ? q[hd.qo + (i0 + r) * ql + c] : T(0.0f);
    }
    A m[RW], l[RW], acc[RW][CH];
    #pragma unroll
    for (int rr = 0; rr < RW; ++rr) {
        m[rr] = neg_inf<A>(); l[rr] = 0;
        #pragma unroll
        for (int c = 0; c < CH; ++c) acc[rr][c] = 0;
    }
    const long long jend = causal ? min(S, i0 + BM) : S;
    for (long long j0 = 0; j0 < jend; j0 += BN) {
        __syncthreads();
        for (int x = tid; x < BN * E; x += blockDim.x) {
            int r = x / E, c = x % E;
            Ks[r * E1 + c] = j0 + r < S ? k[hd.ko + (j0 + r) * kl + c] : T(0.0f);
        }
        for (int x = tid; x < BN * EV; x += blockDim.x) {
            int r = x / EV, c = x % EV;
            Vs[x] = j0 + r < S ? v[hd.vo + (j0 + r) * vl + c] : T(0.0f);
        }
        __syncthreads();
        #pragma unroll
        for (int rr = 0; rr < RW; ++rr) {
            const int r = w * RW + rr;
            A s = 0;
            for (int c = 0; c < E; ++c)
                s += static_cast<A>(Qs[r * E + c]) * static_cast<A>(Ks[lane * E1 + c]);
            s = mk.apply(s * static_cast<A>(scale), i0 + r, j0 + lane);
            const A mn = max(m[rr], warp_max(s));
            const A mu = mn == neg_inf<A>() ? A(0) : mn;   // a row masked so far: p = 0
            const A p = ex(s - mu), alpha = ex(m[rr] - mu);
            l[rr] = l[rr] * alpha + warp_sum(p);
            m[rr] = mn;
            #pragma unroll
            for (int c = 0; c < CH; ++c) acc[rr][c] *= alpha;
            Ps[r * BN + lane] = p;
        }
        __syncwarp();
        const int nj = (int)min((long long)BN, S - j0);
        for (int jj = 0; jj < nj; ++jj)
            #pragma unroll
            for (int rr = 0; rr < RW; ++rr) {
                const A p = Ps[(w * RW + rr) * BN + jj];
                #pragma unroll
                for (int c = 0; c < CH; ++c)
                    if (c * 32 + lane < EV)
                        acc[rr][c] += p * static_cast<A>(Vs[jj * EV + c * 32 + lane]);
            }
    }
    #pragma unroll
    for (int rr = 0; rr < RW; ++rr) {
        const long long i = i0 + w * RW + rr;
        if (i >= L) continue;
        const A inv = l[rr] > 0 ? A(1) / l[rr] : A(0);
        #pragma unroll
        for (int c = 0; c < CH; ++c)
            if (c * 32 + lane < EV) o[hd.oo + i * ol + c * 32 + lane] = T(acc[rr][c] * inv);
        if (lane == 0) lse[hd.n * L + i] = l[rr] > 0 ? m[rr] + lg(l[rr]) : -neg_inf<A>();
    }
}

#define BR 8                    // query rows per step of the backward
#define CB 32                   // feature chunks of 4 per thread: E, EV <= 128

// One block per (key tile, batch, key/value head): dK, dV of BN keys in registers over all
// query rows of the group's heads; dQ added atomically (A) per (row step, key tile).
template <class T, class A>
__device__ void bwd_plain(const T* go, const A* lse, const A* dd, A* dq, T* dk, T* dv,
                          ATTN_PARAMS(T)) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int E1 = E + 1, EV1 = EV + 1;
    A* Ps = reinterpret_cast<A*>(smem);             // BR x BN
    A* Ds = Ps + BR * BN;                           // BR x BN: dS
    A* Ls = Ds + BR * BN;                           // BR: lse
    A* Dr = Ls + BR;                                // BR: D
    T* Ks = reinterpret_cast<T*>(Dr + BR);          // BN x (E + 1)
    T* Vs = Ks + BN * E1;                           // BN x (EV + 1)
    T* Qs = Vs + BN * EV1;                          // BR x E
    T* Gs = Qs + BR * E;                            // BR x EV
    const int tid = threadIdx.x, w = tid >> 5, lane = tid & 31;
    const long long hk_n = blockIdx.y, Hk = H / G;
    const long long b = hk_n / Hk, hk = hk_n % Hk;
    const long long j0 = (long long)blockIdx.x * BN;
    {
        Masks<T> mk;
        Head hd = head_of<T>(b * H + hk * G, ATTN_ARGS, mk);
        for (int x = tid; x < BN * E; x += blockDim.x) {
            int r = x / E, c = x % E;
            Ks[r * E1 + c] = j0 + r < S ? k[hd.ko + (j0 + r) * kl + c] : T(0.0f);
        }
        for (int x = tid; x < BN * EV; x += blockDim.x) {
            int r = x / EV, c = x % EV;
            Vs[r * EV1 + c] = j0 + r < S ? v[hd.vo + (j0 + r) * vl + c] : T(0.0f);
        }
    }
    A dka[CB], dva[CB];
    #pragma unroll
    for (int c = 0; c < CB; ++c) dka[c] = dva[c] = 0;
    const int jj = tid & 31, d0 = tid >> 5;         // accumulation: key jj, features d0 + 4c
    for (long long g = 0; g < G; ++g) {
        Masks<T> mk;
        Head hd = head_of<T>(b * H + hk * G + g, ATTN_ARGS, mk);
        const long long rows = hd.n * L;
        for (long long i0 = causal ? j0 / BR * BR : 0; i0 < L; i0 += BR) {
            __syncthreads();
            for (int x = tid; x < BR * E; x += blockDim.x) {
                int r = x / E, c = x % E;
                Qs[x] = i0 + r < L ? q[hd.qo + (i0 + r) * ql + c] : T(0.0f);
            }
            for (int x = tid; x < BR * EV; x += blockDim.x) {
                int r = x / EV, c = x % EV;
                Gs[x] = i0 + r < L ? go[hd.oo + (i0 + r) * ol + c] : T(0.0f);
            }
            if (tid < BR) {
                Ls[tid] = i0 + tid < L ? lse[rows + i0 + tid] : A(0);
                Dr[tid] = i0 + tid < L ? dd[rows + i0 + tid] : A(0);
            }
            __syncthreads();
            for (int r = w; r < BR; r += 4) {
                A s = 0, dp = 0;
                for (int c = 0; c < E; ++c)
                    s += static_cast<A>(Qs[r * E + c]) * static_cast<A>(Ks[lane * E1 + c]);
                for (int c = 0; c < EV; ++c)
                    dp += static_cast<A>(Gs[r * EV + c]) * static_cast<A>(Vs[lane * EV1 + c]);
                s = mk.apply(s * static_cast<A>(scale), i0 + r, j0 + lane);
                const A p = s == neg_inf<A>() ? A(0) : ex(s - Ls[r]);
                Ps[r * BN + lane] = p;
                Ds[r * BN + lane] = p * (dp - Dr[r]);
            }
            __syncthreads();
            #pragma unroll
            for (int c = 0; c < CB; ++c) {
                const int d = d0 + 4 * c;
                for (int r = 0; r < BR; ++r) {
                    if (d < EV) dva[c] += Ps[r * BN + jj] * static_cast<A>(Gs[r * EV + d]);
                    if (d < E) dka[c] += Ds[r * BN + jj] * static_cast<A>(Qs[r * E + d]);
                }
            }
            for (int x = tid; x < BR * E; x += blockDim.x) {
                const int r = x / E, d = x % E;
                if (i0 + r >= L) continue;
                A sum = 0;
                for (int j = 0; j < BN; ++j) sum += Ds[r * BN + j] * static_cast<A>(Ks[j * E1 + d]);
                atomicAdd(dq + (rows + i0 + r) * E + d, sum * static_cast<A>(scale));
            }
        }
    }
    if (j0 + jj < S) {
        const long long row = kv_row(b, hk, Hk, S, j0 + jj, kvt);
        #pragma unroll
        for (int c = 0; c < CB; ++c) {
            const int d = d0 + 4 * c;
            if (d < E) dk[row * E + d] = T(dka[c] * static_cast<A>(scale));
            if (d < EV) dv[row * EV + d] = T(dva[c]);
        }
    }
}

// D = rowsum(dO * O) over the rows (n, i) of length ev, g lanes a row (g a power of two
// dividing 32) reading V elements at a time (one 16-byte load where V = 16 / sizeof(T); the
// rows then 16-byte aligned), each of a and b with strides (batch, head, row) for n = batch
// H + head; and the A -> T cast of dQ, V elements a thread (of one row: E % V == 0), into
// (batch, L, head, E) memory with t.
template <class T, class A, int V>
__device__ void rowdot(const T* a, const T* b, A* out, long long rows, int ev, int g,
                       long long H, long long L, long long ab, long long ah, long long al,
                       long long bb, long long bh, long long bl) {
    struct alignas(sizeof(T) * V) Vec { T v[V]; };
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x, r = t / g;
    const int lr = (int)(t % g);
    A s = 0;
    if (r < rows) {
        const long long n = r / L, i = r % L, bt = n / H, h = n % H;
        const T* ar = a + bt * ab + h * ah + i * al;
        const T* br = b + bt * bb + h * bh + i * bl;
        for (int c = lr * V; c < ev; c += g * V) {
            const Vec x = *reinterpret_cast<const Vec*>(ar + c);
            const Vec y = *reinterpret_cast<const Vec*>(br + c);
            #pragma unroll
            for (int k = 0; k < V; ++k) s += static_cast<A>(x.v[k]) * static_cast<A>(y.v[k]);
        }
    }
    for (int o = g >> 1; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (r < rows && lr == 0) out[r] = s;
}

template <class T, class A, int V>
__device__ void cast(const A* src, T* dst, long long n, long long H, long long L, int E,
                     int t) {
    struct alignas(sizeof(A) * V) In { A v[V]; };
    struct alignas(sizeof(T) * V) Out { T v[V]; };
    const long long x = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * V;
    if (x >= n) return;
    long long y = x;
    if (t) {                    // x = ((b H + h) L + i) E + c -> ((b L + i) H + h) E + c
        const long long c = x % E, r = x / E, i = r % L, bh = r / L;
        y = (((bh / H) * L + i) * H + bh % H) * E + c;
    }
    const In u = *reinterpret_cast<const In*>(src + x);
    Out w;
    #pragma unroll
    for (int k = 0; k < V; ++k) w.v[k] = T(u.v[k]);
    *reinterpret_cast<Out*>(dst + y) = w;
}

// ---- tensor-core forward (float16 / bfloat16): mma.sync m16n8k16, float accumulation ----
// A block of 4 warps takes 64 query rows (16 per warp, Q fragments in registers), looping
// over tiles of 64 keys staged in shared memory (K and V row-major, rows padded by 8 halves
// so the fragment loads are free of bank conflicts; V's fragments transposed on load by
// ldmatrix). E, EV <= D (zero-padded).

template <class H> struct Mma;
template <> struct Mma<__half> {
    static __device__ __forceinline__ u32 pack(float a, float b) {
        __half2 h = __floats2half2_rn(a, b);
        return *reinterpret_cast<u32*>(&h);
    }
    static __device__ __forceinline__ void mma(float* c, const u32* a, u32 b0,
                                               u32 b1) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
template <> struct Mma<__nv_bfloat16> {
    static __device__ __forceinline__ u32 pack(float a, float b) {
        __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
        return *reinterpret_cast<u32*>(&h);
    }
    static __device__ __forceinline__ void mma(float* c, const u32* a, u32 b0,
                                               u32 b1) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

#define TM 64                   // query rows and keys per tile of the mma kernel

// R x D of src (row stride rs, the first n rows and e features real, zeros elsewhere)
// into dst, row-major with leading dimension ld.
template <class T, int D, int R = TM>
__device__ __forceinline__ void stage(T* dst, int ld, const T* src, long long rs,
                                      long long n, int e, int vec) {
    if (vec) {                  // e == D, 16-byte aligned rows: 8 elements a load
        for (int x = threadIdx.x; x < R * D / 8; x += blockDim.x) {
            const int r = x / (D / 8), c = x % (D / 8) * 8;
            uint4 u = make_uint4(0, 0, 0, 0);
            if (r < n) u = *reinterpret_cast<const uint4*>(src + r * rs + c);
            *reinterpret_cast<uint4*>(dst + r * ld + c) = u;
        }
    } else {
        for (int x = threadIdx.x; x < R * D; x += blockDim.x) {
            const int r = x / D, c = x % D;
            dst[r * ld + c] = r < n && c < e ? src[r * rs + c] : T(0.0f);
        }
    }
}

// stage's vector path through cp.async (rows past n zero-filled): the copies overlap what
// the block computes until it waits for them (commit, then wait_group).
template <class T, int D, int R = TM>
__device__ __forceinline__ void stage_async(T* dst, int ld, const T* src, long long rs,
                                            long long n) {
    for (int x = threadIdx.x; x < R * D / 8; x += blockDim.x) {
        const int r = x / (D / 8), c = x % (D / 8) * 8;
        const u32 d = (u32)__cvta_generic_to_shared(dst + r * ld + c);
        const T* s = r < n ? src + r * rs + c : src;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                     :: "r"(d), "l"(s), "r"(r < n ? 16 : 0));
    }
}
__device__ __forceinline__ void async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N> __device__ __forceinline__ void async_wait() {
    asm volatile("cp.async.wait_group %0;" :: "n"(N));
}

// A tile: stage_async's copies where the rows are 16-byte vectors, else stage's zero-padded
// element copies.
template <class T, int D, int R = TM>
__device__ __forceinline__ void stage_tile(T* dst, int ld, const T* src, long long rs,
                                           long long n, int e, int vec) {
    if (vec) stage_async<T, D, R>(dst, ld, src, rs, n);
    else stage<T, D, R>(dst, ld, src, rs, n, e, 0);
}

// One float through cp.async (0 where !ok).
__device__ __forceinline__ void copy4_async(float* dst, const float* src, bool ok) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;"
                 :: "r"((u32)__cvta_generic_to_shared(dst)), "l"(src), "r"(ok ? 4 : 0));
}

// Four 8x8 tiles of 16-bit elements from shared memory, lanes 8i..8i+7 pointing at the
// rows of tile i: register i holds tile i's fragment (row lane / 4, columns 2 (lane % 4)
// and the next), as an mma operand wants it. ldsm4_t transposes each tile on load.
__device__ __forceinline__ void ldsm4(u32* r, const void* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"((u32)__cvta_generic_to_shared(row)));
}
__device__ __forceinline__ void ldsm4_t(u32* r, const void* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"((u32)__cvta_generic_to_shared(row)));
}
// The fragments, for a warp's lane, of: the A operand (16 x 16 at row r0, column c0 of a
// row-major matrix, leading dimension ld); the B operands of two k-steps (keys n0..n0+7 of
// a row-major [n][k] matrix at k0 and k0 + 16: b[0], b[1] and b[2], b[3]); the same of a
// row-major [k][n] matrix (rows k0..k0+31, columns n0..n0+7), transposed on load; and of
// one k-step of it (rows k0..k0+15: frag_b1t).
template <class T> __device__ __forceinline__ void frag_a(u32* a, const T* m, int ld, int lane) {
    ldsm4(a, m + (lane & 15) * ld + (lane >> 4) * 8);
}
template <class T> __device__ __forceinline__ void frag_b2(u32* b, const T* m, int ld, int lane) {
    ldsm4(b, m + (lane & 7) * ld + (lane >> 3) * 8);
}
template <class T> __device__ __forceinline__ void frag_b2t(u32* b, const T* m, int ld, int lane) {
    ldsm4_t(b, m + lane * ld);
}

template <class T> __device__ __forceinline__ void frag_b1t(u32* b, const T* m, int ld, int lane) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b[0]), "=r"(b[1])
                 : "r"((u32)__cvta_generic_to_shared(m + (lane & 15) * ld)));
}

// p[0..3] += (a, b, c, d): one 16-byte atomic where the GPU has them (sm_90), p 16-byte
// aligned.
__device__ __forceinline__ void add4(float* p, float a, float b, float c, float d) {
#if __CUDA_ARCH__ >= 900
    atomicAdd(reinterpret_cast<float4*>(p), make_float4(a, b, c, d));
#else
    atomicAdd(p, a); atomicAdd(p + 1, b); atomicAdd(p + 2, c); atomicAdd(p + 3, d);
#endif
}

template <class T, int D>
__device__ void fwd_mma(T* o, float* lse, int vec, ATTN_PARAMS(T)) {
    constexpr int KL = D + 8, NT = TM / 8, DT = D / 8, KS = D / 16;
    constexpr int NB = D <= 64 ? 2 : 1;     // K/V tiles double-buffered where 48 KiB allow
    __shared__ __align__(16) unsigned short ks_raw[NB * TM * KL];
    __shared__ __align__(16) unsigned short vs_raw[NB * TM * KL];
    T* Ks = reinterpret_cast<T*>(ks_raw);
    T* Vs = reinterpret_cast<T*>(vs_raw);
    const int tid = threadIdx.x, w = tid >> 5, lane = tid & 31, gr = lane >> 2, tq = lane & 3;
    Masks<T> mk;
    Head hd = head_of<T>(blockIdx.x, ATTN_ARGS, mk);
    // the grid is (heads, tiles): every head's longest (causal) tile is dispatched first
    const long long i0 = (long long)(gridDim.y - 1 - blockIdx.y) * TM;
    const float sl2 = scale * 1.4426950408889634f;                       // scale * log2(e)

    stage<T, D>(Ks, KL, q + hd.qo + i0 * ql, ql, L - i0, E, vec);  // Q through Ks
    __syncthreads();
    u32 qa[KS][4];
    #pragma unroll
    for (int s = 0; s < KS; ++s) frag_a(qa[s], Ks + w * 16 * KL + s * 16, KL, lane);
    float acc[DT][4], m[2] = {neg_inf<float>(), neg_inf<float>()}, l[2] = {0.f, 0.f};
    #pragma unroll
    for (int t = 0; t < DT; ++t) acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.f;
    const long long ir[2] = {i0 + w * 16 + gr, i0 + w * 16 + gr + 8};
    const long long jend = causal ? min(S, i0 + TM) : S;
    const bool masked = mk.bias || mk.ok;
    const int tiles = (int)((jend + TM - 1) / TM);
    // tile it of K and V into buffer buf
    auto load = [&](int it, int buf) {
        const long long j = (long long)it * TM;
        T* kd = Ks + buf * (TM * KL);
        T* vd = Vs + buf * (TM * KL);
        stage_tile<T, D>(kd, KL, k + hd.ko + j * kl, kl, S - j, E, vec);
        stage_tile<T, D>(vd, KL, v + hd.vo + j * vl, vl, S - j, EV, vec);
        async_commit();                     // (an empty group for the synchronous copies)
    };
    __syncthreads();                        // Q's fragments are out of Ks
    if (tiles) load(0, 0);
    for (int it = 0; it < tiles; ++it) {
        const long long j0 = (long long)it * TM;
        const int buf = NB == 2 ? it & 1 : 0;
        if (NB == 2 && it + 1 < tiles) {
            load(it + 1, buf ^ 1);              // the next tile streams in meanwhile
            async_wait<1>();
        } else {
            async_wait<0>();
        }
        __syncthreads();
        const T* Kb = Ks + buf * (TM * KL);
        const T* Vb = Vs + buf * (TM * KL);
        float sc[NT][4];
        #pragma unroll
        for (int t = 0; t < NT; ++t) {
            sc[t][0] = sc[t][1] = sc[t][2] = sc[t][3] = 0.f;
            const u32* kr = reinterpret_cast<const u32*>(Kb + (t * 8 + gr) * KL);
            #pragma unroll
            for (int s = 0; s < KS; ++s)
                Mma<T>::mma(sc[t], qa[s], kr[s * 8 + tq], kr[s * 8 + 4 + tq]);
        }
        // masks to apply: the bias, the boolean mask, keys past S, causal keys past this
        // warp's first row (rows past L are left unmasked: they are not written)
        const bool edge = masked || j0 + TM > S || causal && j0 + TM - 1 > i0 + w * 16;
        float mt[2] = {m[0], m[1]};
        #pragma unroll
        for (int t = 0; t < NT; ++t)
            #pragma unroll
            for (int e = 0; e < 4; ++e) {
                float s = sc[t][e] * sl2;
                if (edge) {
                    const long long j = j0 + t * 8 + 2 * tq + (e & 1);
                    s = mk.apply(sc[t][e] * scale, ir[e >> 1], j) * 1.4426950408889634f;
                }
                sc[t][e] = s;
                mt[e >> 1] = fmaxf(mt[e >> 1], s);
            }
        float mu[2], alpha[2];
        #pragma unroll
        for (int h = 0; h < 2; ++h) {
            mt[h] = fmaxf(mt[h], __shfl_xor_sync(0xffffffffu, mt[h], 1));
            mt[h] = fmaxf(mt[h], __shfl_xor_sync(0xffffffffu, mt[h], 2));
            mu[h] = mt[h] == neg_inf<float>() ? 0.f : mt[h];
            alpha[h] = exp2f(m[h] - mu[h]);
            m[h] = mt[h];
            l[h] *= alpha[h];
        }
        #pragma unroll
        for (int t = 0; t < DT; ++t)
            #pragma unroll
            for (int e = 0; e < 4; ++e) acc[t][e] *= alpha[e >> 1];
        u32 pa[NT / 2][4];
        #pragma unroll
        for (int t = 0; t < NT; ++t) {
            float p[4];
            #pragma unroll
            for (int e = 0; e < 4; ++e) {
                p[e] = exp2f(sc[t][e] - mu[e >> 1]);
                l[e >> 1] += p[e];
            }
            pa[t >> 1][(t & 1) * 2] = Mma<T>::pack(p[0], p[1]);
            pa[t >> 1][(t & 1) * 2 + 1] = Mma<T>::pack(p[2], p[3]);
        }
        #pragma unroll
        for (int t = 0; t < DT; ++t)
            #pragma unroll
            for (int s = 0; s < NT / 2; ++s) {
                u32 b[2];                   // V rows s*16.., features t*8.., transposed
                frag_b1t(b, Vb + s * 16 * KL + t * 8, KL, lane);
                Mma<T>::mma(acc[t], pa[s], b[0], b[1]);
            }
        __syncthreads();                    // every warp is done with buf before a refill
        if (NB == 1 && it + 1 < tiles) load(it + 1, 0);
    }
    #pragma unroll
    for (int h = 0; h < 2; ++h) {
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
    }
    #pragma unroll
    for (int h = 0; h < 2; ++h) {
        const long long i = ir[h];
        if (i >= L) continue;
        const float inv = l[h] > 0.f ? 1.f / l[h] : 0.f;
        T* orow = o + hd.oo + i * ol;
        #pragma unroll
        for (int t = 0; t < DT; ++t) {
            const int c = t * 8 + 2 * tq;
            if (c < EV) orow[c] = T(acc[t][2 * h] * inv);
            if (c + 1 < EV) orow[c + 1] = T(acc[t][2 * h + 1] * inv);
        }
        if (tq == 0)
            lse[hd.n * L + i] = l[h] > 0.f ? (m[h] + log2f(l[h])) * 0.6931471805599453f
                                          : -neg_inf<float>();
    }
}


#define QM 32                   // query rows per step of the mma backward

// One block per (64 keys, batch, key/value head); warp w owns keys w*16..w*16+15 and keeps
// their dK, dV (16 x D each) in registers. The steps (QM query rows of a head of the group)
// stream Q, dO, lse and D through two cp.async buffers, the next step's copies overlapping
// this step's products: S^T = K Q^T, P^T = exp(S^T - lse), dP^T = V dO^T, dS^T = P^T (dP^T
// - D) (tiles of 16 keys x QM queries), dV += P^T dO, dK += dS^T Q; then dS^T through
// shared memory for dQ (QM x D, split over the warps) += dS K, added to float32 memory by
// 16-byte atomics (each lane trading half its fragment with its neighbour for 4 features
// of one row).
template <class T, int D>
__device__ void bwd_mma(const T* go, const float* lse, const float* dd, float* dq, T* dk,
                        T* dv, int vec, ATTN_PARAMS(T)) {
    constexpr int KL = D + 8, SQ = QM + 8, KS = D / 16, DT = D / 8, NQ = QM / 8;
    extern __shared__ __align__(16) unsigned char smem[];
    T* Ks = reinterpret_cast<T*>(smem);             // TM x KL
    T* Vs = Ks + TM * KL;                           // TM x KL
    T* Qs = Vs + TM * KL;                           // 2 x QM x KL
    T* Gs = Qs + 2 * QM * KL;                       // 2 x QM x KL: dO
    T* Ss = Gs + 2 * QM * KL;                       // TM x SQ: dS^T, [key][query]
    float* Ls = reinterpret_cast<float*>(Ss + TM * SQ);   // 2 x QM: lse
    float* Dr = Ls + 2 * QM;                               // 2 x QM: D
    const int tid = threadIdx.x, w = tid >> 5, lane = tid & 31, gr = lane >> 2, tq = lane & 3;
    const long long hk_n = blockIdx.x, Hk = H / G;  // grid (heads, tiles): longest first
    const long long b = hk_n / Hk, hk = hk_n % Hk;
    const long long j0 = (long long)blockIdx.y * TM;
    {
        Masks<T> mk;
        Head hd = head_of<T>(b * H + hk * G, ATTN_ARGS, mk);
        stage<T, D>(Ks, KL, k + hd.ko + j0 * kl, kl, S - j0, E, vec);
        stage<T, D>(Vs, KL, v + hd.vo + j0 * vl, vl, S - j0, EV, vec);
    }
    float dka[DT][4], dva[DT][4];
#pragma unroll
    for (int t = 0; t < DT; ++t)
#pragma unroll
        for (int e = 0; e < 4; ++e) dka[t][e] = dva[t][e] = 0.f;
    const long long jr[2] = {j0 + w * 16 + gr, j0 + w * 16 + gr + 8};
    const float L2E = 1.4426950408889634f;
    // step st: head g = st / ns of the group, query rows i0 = i1 + (st % ns) QM
    const long long i1 = causal ? j0 / QM * QM : 0;
    const long long ns = L > i1 ? (L - i1 + QM - 1) / QM : 0, steps = G * ns;
    auto load = [&](long long st, int buf) {
        const long long i0 = i1 + st % ns * QM;
        Masks<T> mk;
        Head hd = head_of<T>(b * H + hk * G + st / ns, ATTN_ARGS, mk);
        stage_tile<T, D, QM>(Qs + buf * QM * KL, KL, q + hd.qo + i0 * ql, ql, L - i0, E, vec);
        stage_tile<T, D, QM>(Gs + buf * QM * KL, KL, go + hd.oo + i0 * ol, ol, L - i0, EV, vec);
        if (tid < QM) {
            const bool in = i0 + tid < L;
            const long long r = in ? hd.n * L + i0 + tid : 0;
            copy4_async(Ls + buf * QM + tid, lse + r, in);
            copy4_async(Dr + buf * QM + tid, dd + r, in);
        }
        async_commit();
    };
    if (steps) load(0, 0);
    for (long long st = 0; st < steps; ++st) {
        const int buf = (int)(st & 1);
        if (st + 1 < steps) {
            load(st + 1, buf ^ 1);          // the other buffer: free since the last step
            async_wait<1>();
        } else {
            async_wait<0>();
        }
        __syncthreads();
        const long long i0 = i1 + st % ns * QM;
        Masks<T> mk;
        Head hd = head_of<T>(b * H + hk * G + st / ns, ATTN_ARGS, mk);
        const long long rows = hd.n * L;
        const bool edge = mk.bias || mk.ok || j0 + TM > S || i0 + QM > L ||
                          causal && j0 + w * 16 + 15 > i0;    // this warp's last key
        const T* Qb = Qs + buf * QM * KL;
        const T* Gb = Gs + buf * QM * KL;
        const float* Lb = Ls + buf * QM;
        const float* Db = Dr + buf * QM;
        float sc[NQ][4], dp[NQ][4];
#pragma unroll
        for (int t = 0; t < NQ; ++t)
#pragma unroll
            for (int e = 0; e < 4; ++e) sc[t][e] = dp[t][e] = 0.f;
#pragma unroll
        for (int s = 0; s < KS; s += 2) {
            u32 ka[2][4], va[2][4];
            frag_a(ka[0], Ks + w * 16 * KL + s * 16, KL, lane);
            frag_a(ka[1], Ks + w * 16 * KL + s * 16 + 16, KL, lane);
            frag_a(va[0], Vs + w * 16 * KL + s * 16, KL, lane);
            frag_a(va[1], Vs + w * 16 * KL + s * 16 + 16, KL, lane);
#pragma unroll
            for (int t = 0; t < NQ; ++t) {
                u32 bq[4], bg[4];
                frag_b2(bq, Qb + t * 8 * KL + s * 16, KL, lane);
                frag_b2(bg, Gb + t * 8 * KL + s * 16, KL, lane);
                Mma<T>::mma(sc[t], ka[0], bq[0], bq[1]);
                Mma<T>::mma(sc[t], ka[1], bq[2], bq[3]);
                Mma<T>::mma(dp[t], va[0], bg[0], bg[1]);
                Mma<T>::mma(dp[t], va[1], bg[2], bg[3]);
            }
        }
        u32 pa[NQ / 2][4], sa[NQ / 2][4];
#pragma unroll
        for (int t = 0; t < NQ; ++t) {
            float p[4], ds[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int c = t * 8 + 2 * tq + (e & 1);      // query column
                float s = sc[t][e] * scale;
                if (edge) s = mk.apply(s, i0 + c, jr[e >> 1]);
                p[e] = exp2f((s - Lb[c]) * L2E);            // masked: exp2(-inf) = 0
                ds[e] = p[e] * (dp[t][e] - Db[c]);
            }
            pa[t >> 1][(t & 1) * 2] = Mma<T>::pack(p[0], p[1]);
            pa[t >> 1][(t & 1) * 2 + 1] = Mma<T>::pack(p[2], p[3]);
            sa[t >> 1][(t & 1) * 2] = Mma<T>::pack(ds[0], ds[1]);
            sa[t >> 1][(t & 1) * 2 + 1] = Mma<T>::pack(ds[2], ds[3]);
            u32* srow = reinterpret_cast<u32*>(Ss + (w * 16 + gr) * SQ + t * 8 + 2 * tq);
            srow[0] = sa[t >> 1][(t & 1) * 2];
            srow[8 * SQ / 2] = sa[t >> 1][(t & 1) * 2 + 1];
        }
#pragma unroll
        for (int t = 0; t < DT; ++t)
#pragma unroll
            for (int s = 0; s < NQ / 2; s += 2) {
                u32 bg[4], bq[4];           // dO, Q rows s*16.., features t*8.., transposed
                frag_b2t(bg, Gb + s * 16 * KL + t * 8, KL, lane);
                frag_b2t(bq, Qb + s * 16 * KL + t * 8, KL, lane);
                Mma<T>::mma(dva[t], pa[s], bg[0], bg[1]);
                Mma<T>::mma(dva[t], pa[s + 1], bg[2], bg[3]);
                Mma<T>::mma(dka[t], sa[s], bq[0], bq[1]);
                Mma<T>::mma(dka[t], sa[s + 1], bq[2], bq[3]);
            }
        __syncthreads();                    // dS^T complete; Q, dO of buf read by all
        // dQ rows mt*16.. of this step, feature tiles nh*DT/2.. : (dS K) * scale; the A
        // fragments of dS come transposed from dS^T ([key][query])
        const int mt = w & 1, nh = w >> 1;
        const bool odd = tq & 1;
        const long long i = i0 + mt * 16 + gr + (odd ? 8 : 0);
#pragma unroll
        for (int t = 0; t < DT / 2; ++t) {
            const int nt = nh * (DT / 2) + t;
            float qa[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
            for (int s = 0; s < TM / 16; s += 2) {
                u32 a[2][4], bk[4];
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    ldsm4_t(a[h], Ss + ((s + h) * 16 + (lane & 7) + (lane >> 4) * 8) * SQ +
                                      mt * 16 + (lane >> 3 & 1) * 8);
                frag_b2t(bk, Ks + s * 16 * KL + nt * 8, KL, lane);
                Mma<T>::mma(qa, a[0], bk[0], bk[1]);
                Mma<T>::mma(qa, a[1], bk[2], bk[3]);
            }
            // even lanes: row gr, features c..c+3; odd lanes: row gr + 8, features c-2..c+1
            const float s0 = __shfl_xor_sync(0xffffffffu, odd ? qa[0] : qa[2], 1);
            const float s1 = __shfl_xor_sync(0xffffffffu, odd ? qa[1] : qa[3], 1);
            const int c = nt * 8 + 2 * (tq & 2);
            if (i < L && c < E) {
                float* at = dq + (rows + i) * E + c;
                const float x[4] = {odd ? s0 : qa[0], odd ? s1 : qa[1], odd ? qa[2] : s0,
                                    odd ? qa[3] : s1};
                if (E % 4 == 0) {
                    add4(at, x[0] * scale, x[1] * scale, x[2] * scale, x[3] * scale);
                } else {
#pragma unroll
                    for (int u = 0; u < 4; ++u)
                        if (c + u < E) atomicAdd(at + u, x[u] * scale);
                }
            }
        }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        if (jr[h] >= S) continue;
        const long long row = kv_row(b, hk, Hk, S, jr[h], kvt);
#pragma unroll
        for (int t = 0; t < DT; ++t) {
            const int c = t * 8 + 2 * tq;
            if (c < E) dk[row * E + c] = T(dka[t][2 * h] * scale);
            if (c + 1 < E) dk[row * E + c + 1] = T(dka[t][2 * h + 1] * scale);
            if (c < EV) dv[row * EV + c] = T(dva[t][2 * h]);
            if (c + 1 < EV) dv[row * EV + c + 1] = T(dva[t][2 * h + 1]);
        }
    }
}

#define ROWDOT_CAST(SUF, T, A, V, X)                                                     \
    extern "C" __global__ void attn_rowdot##X##_##SUF(ROWDOT_PARAMS(T, A)) {             \
        rowdot<T, A, V>(a, b, out, rows, ev, g, H, L, ab, ah, al, bb, bh, bl);            \
    }                                                                                     \
    extern "C" __global__ void attn_cast##X##_##SUF(CAST_PARAMS(T, A)) {                 \
        cast<T, A, (V > 1 ? 16 / sizeof(A) : 1)>(src, dst, n, H, L, E, t);                \
    }
#define PLAIN(SUF, T, A)                                                                \
    extern "C" __global__ void __launch_bounds__(128) attn_fwd_##SUF(FWD_PARAMS(T, A)) { \
        fwd_plain<T, A>(o, lse, ATTN_ARGS);                                             \
    }                                                                                   \
    extern "C" __global__ void __launch_bounds__(128) attn_bwd_##SUF(BWD_PARAMS(T, A)) { \
        bwd_plain<T, A>(go, lse, dd, dq, dk, dv, ATTN_ARGS);                            \
    }                                                                                   \
    ROWDOT_CAST(SUF, T, A, 1, )                                                         \
    ROWDOT_CAST(SUF, T, A, 16 / sizeof(T), v)
#define MMA(SUF, T, D)                                                                  \
    extern "C" __global__ void __launch_bounds__(128) attn_fwd_mma##D##_##SUF(          \
        FWD_MMA_PARAMS(T, float)) {                                                         \
        fwd_mma<T, D>(o, lse, vec, ATTN_ARGS);                                          \
    }                                                                                   \
    extern "C" __global__ void __launch_bounds__(128, 3) attn_bwd_mma##D##_##SUF(       \
        BWD_MMA_PARAMS(T, float)) {                                                         \
        bwd_mma<T, D>(go, lse, dd, dq, dk, dv, vec, ATTN_ARGS);                         \
    }

PLAIN(f32, float, float)
PLAIN(f64, double, double)
PLAIN(f16, __half, float)
PLAIN(bf16, __nv_bfloat16, float)
MMA(f16, __half, 32)
MMA(f16, __half, 64)
MMA(f16, __half, 128)
MMA(bf16, __nv_bfloat16, 32)
MMA(bf16, __nv_bfloat16, 64)
MMA(bf16, __nv_bfloat16, 128)
"""
)


def _acc(dt):
    """The accumulation (and lse) dtype of ``dt``."""
    return np.dtype(np.float64) if dt == np.float64 else np.dtype(np.float32)


def _view4(a, lead, heads, tail):
    """``a`` broadcast to ``lead + (heads,) + tail``, as 4-D ``(batch, heads) + tail``."""
    shape = lead + (heads,) + tail
    if a.shape != shape:
        a = cupy.broadcast_to(a, shape)
    return a if len(lead) == 1 else a.reshape((math.prod(lead), heads) + tail)


def _strides(a):
    return [s // a.itemsize for s in a.strides]


def _heads_inner(batch, rows, width, dtype):
    """An empty ``batch + (rows, width)`` array whose memory is ``batch[:-1] + (rows,
    heads, width)`` (heads = ``batch[-1]``): the attention output and gradients in the
    layout of the ``(N, L, heads, E)`` projections they came from, so that merging the
    heads back (``transpose(1, 2).reshape(N, L, heads * E)``) is a view, not a copy.
    Contiguous where there is one head."""
    if not batch or batch[-1] == 1:
        return empty(batch + (rows, width), dtype)
    return empty(batch[:-1] + (rows, batch[-1], width), dtype).swapaxes(-3, -2)


def _inner_strides(batch, rows, width):
    """The (batch, head, row) element strides of :func:`_heads_inner`'s array seen 4-D."""
    heads = batch[-1] if batch else 1
    if heads == 1:
        return rows * width, rows * width, width
    return rows * heads * width, width, heads * width


class _Call:
    """The 4-D views of one attention call and the kernel arguments they give."""

    def __init__(self, q, k, v, bias, allowed, scale, causal, groups):
        qb, kb, vb = q.shape[:-2], k.shape[:-2], v.shape[:-2]
        if groups > 1:
            kb, vb = kb[:-1] + (kb[-1] * groups,), vb[:-1] + (vb[-1] * groups,)
        self.batch = bt = qb if qb == kb == vb else tuple(np.broadcast_shapes(qb, kb, vb))
        self.lead, self.heads = lead, heads = (bt[:-1] or (1,), bt[-1]) if bt else ((1,), 1)
        self.kv_batch = bt[:-1] + (heads // groups,) if bt else ()
        self.L, self.E = q.shape[-2:]
        self.S, self.EV = k.shape[-2], v.shape[-1]
        self.n, self.groups = math.prod(lead) * heads, groups
        self.dtype = q.dtype
        self.empty = not (q.size and k.size and v.size and self.n)
        rows = []
        for a, h in ((q, heads), (k, heads // groups), (v, heads // groups)):
            a = _view4(a, lead, h, a.shape[-2:])
            if a.strides[-1] != a.itemsize:
                a = cupy.ascontiguousarray(a)
            rows.append(a)
        self.rows = rows
        masks, mstrides = [], []
        for m, dt in ((bias, q.dtype), (allowed, np.bool_)):
            if m is None:
                masks.append(rows[0])
                mstrides += [0] * 4
            else:
                m = _view4(cupy.asarray(m).astype(dt, copy=False), lead, heads, (self.L, self.S))
                masks.append(m)
                mstrides += _strides(m)
        self.bias4 = None if bias is None else masks[0]
        self.args = (
            *rows,
            *masks,
            bias is not None,
            allowed is not None,
            heads,
            groups,
            self.L,
            self.S,
            self.E,
            self.EV,
            *[s for a in rows for s in _strides(a)[:3]],
            *mstrides,
            scale,
            causal,
        )
        self.suffix = _SUFFIX[np.dtype(q.dtype)]

    def four(self, a, width):
        """``a`` (the output or its gradient, ``batch + (L, width)``) as the 4-D view the
        kernels index, unit feature stride (a copy only where that is missing)."""
        if a.strides[-1] != a.itemsize:
            a = cupy.ascontiguousarray(a)
        return _view4(a, self.lead, self.heads, (self.L, width))

    @staticmethod
    def out_args(strides, kv_inner=False):
        """The kernels' last arguments: the (batch, head, row) strides of the output (or
        of its gradient), and whether dk/dv are in ``(N, S, heads, E)`` memory."""
        return (*strides, kv_inner)

    def smem(self, forward):
        """Dynamic shared memory of the plain forward or backward kernel, in bytes."""
        it, ac = np.dtype(self.dtype).itemsize, _acc(self.dtype).itemsize
        e, ev = self.E, self.EV
        if forward:
            t = (_BN * (e + 1) + _BN * ev + _BM * e) * it
            return (t + 15) // 16 * 16 + _BM * _BN * ac
        return (2 * _BR * _BN + 2 * _BR) * ac + (
            _BN * (e + 1) + _BN * (ev + 1) + _BR * (e + ev)
        ) * it

    def mma_dim(self):
        """The padded head dim of the tensor-core forward, or None where it does not apply."""
        if np.dtype(self.dtype).itemsize != 2 or max(self.E, self.EV) > 128:
            return None
        return next(d for d in (32, 64, 128) if max(self.E, self.EV) <= d)

    def vec(self, d, *more):
        """Whether the tensor-core kernel may load 16-byte vectors (unpadded, aligned) of
        q, k, v and ``more``."""
        return int(
            self.E == self.EV == d
            and all(
                a.data.ptr % 16 == 0 and all(s % 8 == 0 for s in _strides(a)[:-1])
                for a in self.rows + list(more)
            )
        )


class CudaAttention:
    """Flash-attention overrides of :meth:`attention_forward` and
    :meth:`attention_backward` (and the preference for them). float64 takes the array
    reference: the kernels take the scale and keep the log-sum-exp in float32. The
    probabilities of the P-saving op are row-major (the row kernels' layout)."""

    probs_transposed = False

    def attention_probs(self, q, k, bias, allowed, scale, causal):
        """One GEMM for the scores (float32 for half inputs), the masks, if any, by array
        kernels, then one row kernel (:func:`.softmax.attention_softmax`: the scale, the
        causal mask and the softmax, in place)."""
        ct = _acc(q.dtype)
        s = self.matmul(q.astype(ct, copy=False), cupy.swapaxes(k.astype(ct, copy=False), -1, -2))
        if s.size == 0:
            return s.astype(q.dtype, copy=False)
        if bias is not None or allowed is not None:
            s *= scale
            scale = 1.0
            if bias is not None:
                s = s + bias.astype(ct, copy=False)
            if allowed is not None:
                s = cupy.where(allowed, s, s.dtype.type(-np.inf))
        return attention_softmax(s, scale, causal).astype(q.dtype, copy=False)

    def prefers_flash_attention(self, npdtype, probs):
        """Half types: always (tensor-core kernels). float32/float64: where :math:`P` is
        small (up to ``_PROBS_SMALL``: the step is launch-bound, and flash is one launch
        forward and a few backward) or would be large (over ``_PROBS_BYTES``: memory);
        in between the P-saving op, whose products are cuBLAS GEMMs, is faster than the
        plain (CUDA-core) flash kernels. Measured on an H200: GPT-2-small in float32
        (400 MB of P a layer) 224 ms a step with P kept against 285 ms with flash; the
        2-layer GPT of benchmarks/train.py (0.5 MB) slower with P kept."""
        dt = np.dtype(npdtype)
        size = probs * dt.itemsize
        return dt.itemsize == 2 or size <= _PROBS_SMALL or size > _PROBS_BYTES

    def attention_forward(self, q, k, v, bias, allowed, scale, causal, groups):
        c = _Call(q, k, v, bias, allowed, scale, causal, groups)
        if not c.empty:
            n = c.n // c.heads

            def alloc():
                out = _heads_inner((n, c.heads), c.L, c.EV, q.dtype)
                return out, empty((n, c.heads, c.L), np.float32)

            got = cudnn.sdpa_forward(*c.rows, c.bias4, allowed, scale, causal, alloc)
            if got is not None:
                return got[0].reshape(c.batch + (c.L, c.EV)), got[1].reshape(c.batch + (c.L,))
        d = c.mma_dim() if _MMA_FORWARD else None
        # grid y: the heads of the plain kernel, the query tiles of the tensor-core one
        grid_y = c.n if d is None else -(-c.L // _TM)
        if (
            c.empty
            or grid_y > _GRID_Y
            or c.dtype == np.float64
            or d is None
            and (max(c.E, c.EV) > 256 or c.smem(True) > _SMEM)
        ):
            return super().attention_forward(q, k, v, bias, allowed, scale, causal, groups)
        out = _heads_inner(c.batch, c.L, c.EV, q.dtype)
        lse = empty(c.batch + (c.L,), _acc(q.dtype))
        tail = c.args + c.out_args(_inner_strides(c.batch, c.L, c.EV))
        if d is not None:
            fn = kernel(_SOURCE, f"attn_fwd_mma{d}_{c.suffix}", params=_DECLS["FWD_MMA"])
            fn((c.n, (c.L + _TM - 1) // _TM), (128,), (out, lse, c.vec(d)) + tail)
        else:
            fn = kernel(_SOURCE, f"attn_fwd_{c.suffix}", params=_DECLS["FWD"])
            fn(((c.L + _BM - 1) // _BM, c.n), (128,), (out, lse) + tail, shared_mem=c.smem(True))
        return out, lse

    def attention_backward(self, g, q, k, v, bias, allowed, out, lse, scale, causal, groups):
        c = _Call(q, k, v, bias, allowed, scale, causal, groups)
        if not c.empty and np.dtype(c.dtype).itemsize == 2:
            got = self._cudnn_backward(c, g, allowed, out, lse, scale, causal)
            if got is not None:
                return got
        d = c.mma_dim() if _MMA_BACKWARD else None
        grid_y = c.n // groups if d is None else -(-c.S // _TM)  # as in the forward
        if (
            c.empty
            or grid_y > _GRID_Y
            or c.dtype == np.float64
            or max(c.E, c.EV) > 128
            or c.smem(False) > _SMEM
        ):
            return super().attention_backward(
                g, q, k, v, bias, allowed, out, lse, scale, causal, groups
            )
        acc, rows = _acc(q.dtype), c.n * c.L
        g4, o4 = c.four(g, c.EV), c.four(out, c.EV)
        dd = empty(rows, acc)
        v = 16 // g4.itemsize  # 16-byte loads where the rows allow them
        vec = c.EV % v == 0 and all(
            a.data.ptr % 16 == 0 and all(st % v == 0 for st in _strides(a)[:3]) for a in (g4, o4)
        )
        lanes = min(32, 1 << (max(c.EV // v, 1) - 1).bit_length()) if vec else 32
        kernel(_SOURCE, f"attn_rowdot{'v' if vec else ''}_{c.suffix}", params=_DECLS["ROWDOT"])(
            blocks(rows * lanes, 256),
            (256,),
            (g4, o4, dd, rows, c.EV, lanes, c.heads, c.L, *_strides(g4)[:3], *_strides(o4)[:3]),
        )
        dq = cupy.zeros(c.batch + (c.L, c.E), acc)
        dk = _heads_inner(c.kv_batch, c.S, c.E, q.dtype)
        dv = _heads_inner(c.kv_batch, c.S, c.EV, q.dtype)
        tail = c.args + c.out_args(_strides(g4)[:3], not dk.flags.c_contiguous)
        head = (g4, cupy.ascontiguousarray(lse), dd, dq, dk, dv)
        if d is not None:
            fn = kernel(_SOURCE, f"attn_bwd_mma{d}_{c.suffix}", params=_DECLS["BWD_MMA"])
            # K, V (TM rows) and two buffers of Q, dO (QM rows) of d + 8 halves, dS^T
            # (TM x QM + 8), two buffers of lse and D
            smem = 2 * (2 * (_TM + 2 * _QM) * (d + 8) + _TM * (_QM + 8)) + 4 * 4 * _QM
            key = (fn, cupy.cuda.runtime.getDevice())
            if key not in _RAISED:  # past 48 KiB a launch must be allowed it
                fn.max_dynamic_shared_size_bytes = smem
                _RAISED.add(key)
            fn(
                (c.n // groups, (c.S + _TM - 1) // _TM),
                (128,),
                head + (c.vec(d, g4),) + tail,
                shared_mem=smem,
            )
        else:
            kernel(_SOURCE, f"attn_bwd_{c.suffix}", params=_DECLS["BWD"])(
                ((c.S + _BN - 1) // _BN, c.n // groups),
                (128,),
                head + tail,
                shared_mem=c.smem(False),
            )
        if dq.dtype != q.dtype:
            half = _heads_inner(c.batch, c.L, c.E, q.dtype)
            v = 16 // dq.itemsize if c.E % (16 // dq.itemsize) == 0 else 1
            kernel(_SOURCE, f"attn_cast{'v' if v > 1 else ''}_{c.suffix}", params=_DECLS["CAST"])(
                blocks(dq.size // v),
                (256,),
                (dq, half, dq.size, c.heads, c.L, c.E, not half.flags.c_contiguous),
            )
            dq = half
        return dq, dk, dv

    @staticmethod
    def _cudnn_backward(c, g, allowed, out, lse, scale, causal):
        """:func:`.cudnn.sdpa_backward` into new gradients in the layouts of the own
        kernels' (heads inner), or None where cuDNN does not take the call."""
        n, kv = c.n // c.heads, c.heads // c.groups

        def alloc():
            # cuDNN writes any layout: a contiguous operand gets a contiguous gradient
            # (which a leaf's ``.grad`` keeps without a copy), others the heads-inner one
            shapes = ((c.heads, c.L, c.E), (kv, c.S, c.E), (kv, c.S, c.EV))
            return tuple(
                empty((n,) + shape, c.dtype)
                if row.flags.c_contiguous
                else _heads_inner((n, shape[0]), *shape[1:], c.dtype)
                for row, shape in zip(c.rows, shapes)
            )

        lse4 = cupy.ascontiguousarray(lse, np.float32).reshape(n, c.heads, c.L)
        o4, g4 = c.four(out, c.EV), c.four(g, c.EV)
        got = cudnn.sdpa_backward(*c.rows, c.bias4, allowed, o4, g4, lse4, scale, causal, alloc)
        if got is None:
            return None
        dq, dk, dv = got
        return (
            dq.reshape(c.batch + (c.L, c.E)),
            dk.reshape(c.kv_batch + (c.S, c.E)),
            dv.reshape(c.kv_batch + (c.S, c.EV)),
        )
