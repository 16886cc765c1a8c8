"""Decomposition and matrix-function kernels over an array module (NumPy or CuPy)."""

import numpy as np

from ...errors import ArgumentError


class XpDecomp:
    """Implements :class:`~lucid.backend.interface.decomp.DecompKernels` with ``self.xp``
    (``xp.linalg`` where it has the factorisation; LU, triangular solves and the matrix
    exponential are written here because NumPy has no batched form of them)."""

    def _linalg_error(self):
        return getattr(self.xp.linalg, "LinAlgError", ValueError)

    def _singular(self, op, a):
        """The error for a singular ``a``, naming the first zero pivot as LAPACK does."""
        info = self.lu_factor(a)[2].reshape(-1)
        bad = int(self.xp.argmax(info > 0))
        where = f" (batch element {bad})" if a.ndim > 2 else ""
        return ArgumentError(
            f"linalg.{op}: the diagonal element {int(info[bad])} is zero"
            f"{where}, the {op} could not be completed because the input "
            "matrix is singular"
        )

    def inv(self, a):
        try:
            return self.xp.linalg.inv(a)
        except self._linalg_error():
            raise self._singular("inv", a) from None

    def det(self, a):
        return self.xp.linalg.det(a)

    def slogdet(self, a):
        sign, logabs = self.xp.linalg.slogdet(a)
        return sign.astype(a.dtype, copy=False), logabs.astype(a.real.dtype, copy=False)

    def solve(self, a, b):
        xp = self.xp
        batch = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(b, batch + b.shape[-2:])
        try:
            return xp.linalg.solve(a, b)
        except self._linalg_error():
            raise self._singular("solve", a) from None

    def solve_triangular(self, a, b, upper, unitriangular):
        xp = self.xp
        n = a.shape[-1]
        batch = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        x = xp.array(xp.broadcast_to(b, batch + b.shape[-2:]), dtype=b.dtype)
        rows = range(n - 1, -1, -1) if upper else range(n)
        for i in rows:  # substitution: x_i = (b_i - sum_{j solved} T_ij x_j) / T_ii
            lo, hi = (i + 1, n) if upper else (0, i)
            if hi > lo:
                x[..., i, :] -= (a[..., i, None, lo:hi] @ x[..., lo:hi, :])[..., 0, :]
            if not unitriangular:
                x[..., i, :] /= a[..., i, i, None]
        return x

    def cholesky(self, a):
        xp = self.xp
        info = xp.zeros(a.shape[:-2], xp.int32)
        try:
            low = xp.linalg.cholesky(a)
        except self._linalg_error():  # NumPy: find which matrices fail, and where
            flat = a.reshape((-1,) + a.shape[-2:])
            low = xp.full(flat.shape, xp.nan, a.dtype)
            finfo = info.reshape(-1)
            for i in range(flat.shape[0]):
                try:
                    low[i] = xp.linalg.cholesky(flat[i])
                except self._linalg_error():
                    finfo[i] = next(
                        k for k in range(1, a.shape[-1] + 1) if not self._posdef(flat[i, :k, :k])
                    )
            return low.reshape(a.shape), info
        # CuPy does not raise: a failed factor holds NaN from its first bad pivot on
        bad = xp.isnan(xp.diagonal(low, 0, -2, -1))
        first = xp.argmax(bad, axis=-1).astype(xp.int32) + 1
        return low, xp.where(bad.any(-1), first, info)

    def _posdef(self, a):
        try:
            self.xp.linalg.cholesky(a)
            return True
        except self._linalg_error():
            return False

    def qr_decompose(self, a, complete):
        return self.xp.linalg.qr(a, mode="complete" if complete else "reduced")

    def svd(self, a, full_matrices):
        try:
            return self.xp.linalg.svd(a, full_matrices=full_matrices)
        except self._linalg_error():
            raise self._no_svd() from None

    def svdvals(self, a):
        try:
            return self.xp.linalg.svd(a, compute_uv=False)
        except self._linalg_error():
            raise self._no_svd() from None

    @staticmethod
    def _no_svd():
        return ArgumentError(
            "linalg.svd: the algorithm failed to converge (NaN or inf entries in the input?)"
        )

    def eigh(self, a):
        return self.xp.linalg.eigh(a, UPLO="L")

    def eigvalsh(self, a):
        return self.xp.linalg.eigvalsh(a, UPLO="L")

    def eig(self, a):
        ct = (a[..., :0, :0] * 1j).dtype  # the complex dtype of a's precision
        if a.size == 0:
            return (self.xp.empty(a.shape[:-1], dtype=ct), self.xp.empty(a.shape, dtype=ct))
        fn = getattr(self.xp.linalg, "eig", None)
        try:
            if fn is None:  # an array module without geev (older CuPy): the host's
                w, v = (self.asarray(r) for r in np.linalg.eig(self.to_numpy(a)))
            else:
                w, v = fn(a)
        except (self._linalg_error(), np.linalg.LinAlgError):
            raise ArgumentError(
                "linalg.eig: the eigenvalue algorithm did not converge "
                "(or the input has NaN/inf entries)"
            ) from None
        return w.astype(ct, copy=False), v.astype(ct, copy=False)

    def lu_factor(self, a):
        xp = self.xp
        m, n = a.shape[-2:]
        k = min(m, n)
        lu = xp.array(a.reshape((-1, m, n)), dtype=a.dtype)
        nb = lu.shape[0]
        rows = xp.arange(nb)
        piv = xp.empty((nb, k), xp.int32)
        info = xp.zeros(nb, xp.int32)
        cplx = lu.dtype.kind == "c"
        for j in range(k):
            col = lu[:, j:, j]  # the first largest, as i?amax (|Re|+|Im| if complex)
            size = xp.abs(col.real) + xp.abs(col.imag) if cplx else xp.abs(col)
            p = j + xp.argmax(size, axis=1)
            piv[:, j] = p + 1
            top = lu[rows, j].copy()
            lu[rows, j] = lu[rows, p]
            lu[rows, p] = top
            d = lu[:, j, j]
            zero = d == 0
            info = xp.where((info == 0) & zero, j + 1, info)
            lu[:, j + 1 :, j] /= xp.where(zero, 1, d)[:, None]  # a zero pivot's column is 0
            lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j : j + 1] * lu[:, j : j + 1, j + 1 :]
        batch = a.shape[:-2]
        return lu.reshape(a.shape), piv.reshape(batch + (k,)), info.reshape(batch)

    def lu_permutation(self, pivots, m, npdtype):
        xp = self.xp
        k = pivots.shape[-1]
        piv = pivots.reshape(-1, k).astype(xp.int64) - 1
        nb = piv.shape[0]
        rows = xp.arange(nb)
        perm = xp.broadcast_to(xp.arange(m), (nb, m)).copy()  # A[perm] = LU
        for j in range(k):
            top = perm[:, j].copy()
            perm[:, j] = perm[rows, piv[:, j]]
            perm[rows, piv[:, j]] = top
        p = xp.zeros((nb, m, m), npdtype)
        p[rows[:, None], perm, xp.arange(m)[None, :]] = 1  # column i of P is e_perm[i]
        return p.reshape(pivots.shape[:-1] + (m, m))

    def matrix_exp(self, a):
        """Scaling and squaring: :math:`e^{A} = (e^{A/2^s})^{2^s}` with :math:`s` per matrix
        such that :math:`\\lVert A/2^s \\rVert_1 \\le 1/2`, and :math:`e^{A/2^s}` by its
        Taylor series to degree 18 (truncation below :math:`10^{-22}`)."""
        xp = self.xp
        n = a.shape[-1]
        norm = xp.abs(a).sum(-2).max(-1) if n else xp.zeros(a.shape[:-2], a.real.dtype)
        s = xp.maximum(xp.ceil(xp.log2(xp.maximum(norm, 1e-300) * 2)), 0)
        s = xp.where(xp.isfinite(s), s, 0)
        x = a * (2.0**-s)[..., None, None].astype(a.dtype)
        eye = xp.eye(n, dtype=a.dtype)
        r = eye + x / 18
        for k in range(17, 0, -1):  # Horner: I + x/1 (I + x/2 (I + ...))
            r = eye + (x @ r) / k
        steps = int(s.max()) if s.size else 0
        for i in range(steps):
            r = xp.where((s > i)[..., None, None], r @ r, r)
        return r
