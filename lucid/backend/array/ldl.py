r"""The symmetric indefinite factorisation :math:`P A P^\top = L D L^\top` (Bunch-Kaufman
diagonal pivoting, LAPACK's ``sytf2``/``hetf2`` for the lower triangle) and its solve
(``sytrs``/``hetrs``), over an array module.

The factor is stored as LAPACK stores it: :math:`L` (unit lower triangular, its unit
diagonal implied) below the diagonal, :math:`D` (1 x 1 and 2 x 2 blocks) on the diagonal
and, for a 2 x 2 block, on the subdiagonal; ``pivots`` (1-based) are :math:`k_p > 0` for a
1 x 1 block whose row and column were swapped with :math:`k_p`, and :math:`-k_p` on both
rows of a 2 x 2 block. Pivots depend on the values, so each matrix of a batch is its own
column loop (vector operations along a column): a kernel for the moderate orders LDL is
used at, not a blocked LAPACK.
"""

_ALPHA = (1 + 17**0.5) / 8  # Bunch-Kaufman's growth bound


class XpLdl:
    """Implements ``ldl_factor`` and ``ldl_solve`` of the decomposition kernels."""

    def _cabs1(self, v):
        """LAPACK's ``|Re| + |Im|`` (``|v|`` for real data), the magnitude pivots compare."""
        xp = self.xp
        return xp.abs(v.real) + xp.abs(v.imag) if v.dtype.kind == "c" else xp.abs(v)

    def ldl_factor(self, a, hermitian):
        xp = self.xp
        n = a.shape[-1]
        flat = a.reshape((-1, n, n))
        ld = xp.array(flat, dtype=a.dtype)
        piv = xp.zeros(flat.shape[:2], dtype=xp.int32)
        info = xp.zeros(flat.shape[0], dtype=xp.int32)
        herm = hermitian and a.dtype.kind == "c"
        for b in range(flat.shape[0]):
            info[b] = self._ldl_one(ld[b], piv[b], herm)
        ld = xp.tril(ld)
        return ld.reshape(a.shape), piv.reshape(a.shape[:-1]), info.reshape(a.shape[:-2])

    def _ldl_one(self, m, piv, herm):
        """Factor the square ``m`` in place (lower triangle); the first zero pivot's
        1-based index, or 0."""
        xp, n, info, k = self.xp, m.shape[0], 0, 0
        cj = xp.conj if herm else (lambda v: v)
        diag = (lambda v: v.real) if herm else (lambda v: v)
        while k < n:
            step = 1
            akk = abs(float(diag(m[k, k]))) if herm else float(self._cabs1(m[k, k]))
            if k + 1 < n:
                col = self._cabs1(m[k + 1 :, k])
                imax = k + 1 + int(xp.argmax(col))
                colmax = float(col[imax - k - 1])
            else:
                imax, colmax = k, 0.0
            if max(akk, colmax) == 0 or akk != akk:  # a zero (or nan) pivot
                info = info or k + 1
                kp = k
                if herm:
                    m[k, k] = m[k, k].real
            else:
                if akk >= _ALPHA * colmax:
                    kp = k
                else:
                    row = self._cabs1(m[imax, k:imax])
                    rowmax = float(row.max())
                    if imax + 1 < n:
                        rowmax = max(rowmax, float(self._cabs1(m[imax + 1 :, imax]).max()))
                    aii = (
                        abs(float(m[imax, imax].real))
                        if herm
                        else float(self._cabs1(m[imax, imax]))
                    )
                    if akk >= _ALPHA * colmax * (colmax / rowmax):
                        kp = k
                    elif aii >= _ALPHA * rowmax:
                        kp = imax
                    else:
                        kp, step = imax, 2
                kk = k + step - 1
                if kp != kk:
                    self._ldl_swap(m, kk, kp, k, step, cj, herm)
                if step == 1:
                    self._ldl_rank1(m, k, herm, cj)
                else:
                    self._ldl_rank2(m, k, herm, cj)
            if step == 1:
                piv[k] = kp + 1
            else:
                piv[k] = piv[k + 1] = -(kp + 1)
            k += step
        return info

    @staticmethod
    def _ldl_swap(m, kk, kp, k, step, cj, herm):
        """Interchange rows and columns ``kk`` and ``kp`` of the trailing lower triangle."""
        if kp + 1 < m.shape[0]:
            m[kp + 1 :, kk], m[kp + 1 :, kp] = m[kp + 1 :, kp].copy(), m[kp + 1 :, kk].copy()
        seg = m[kk + 1 : kp, kk].copy()
        m[kk + 1 : kp, kk] = cj(m[kp, kk + 1 : kp])
        m[kp, kk + 1 : kp] = cj(seg)
        if herm:
            m[kp, kk] = m[kp, kk].conj()
        m[kk, kk], m[kp, kp] = m[kp, kp].copy(), m[kk, kk].copy()
        if step == 2:
            m[k + 1, k], m[kp, k] = m[kp, k].copy(), m[k + 1, k].copy()

    def _ldl_rank1(self, m, k, herm, cj):
        """A 1 x 1 pivot: :math:`A_{22} \\mathrel{-}= x d^{-1} x^{\\mathsf H}`, then
        :math:`l = x / d`."""
        xp = self.xp
        if herm:
            m[k, k] = m[k, k].real
        if k + 1 < m.shape[0]:
            r = 1 / m[k, k]
            x = m[k + 1 :, k]
            m[k + 1 :, k + 1 :] -= xp.tril(r * x[:, None] * cj(x)[None, :])
            m[k + 1 :, k] = x * r
            if herm:
                idx = xp.arange(k + 1, m.shape[0])
                m[idx, idx] = m[idx, idx].real

    def _ldl_rank2(self, m, k, herm, cj):
        """A 2 x 2 pivot (rows ``k``, ``k + 1``): the trailing update by its inverse and
        the two columns of :math:`L`."""
        xp, n = self.xp, m.shape[0]
        if herm:
            m[k, k], m[k + 1, k + 1] = m[k, k].real, m[k + 1, k + 1].real
        if k + 2 >= n:
            return
        d21 = m[k + 1, k]
        if herm:
            d = abs(d21)
            d11, d22 = m[k + 1, k + 1].real / d, m[k, k].real / d
            t = 1 / (d11 * d22 - 1)
            u = d21 / d
            d = t / d
            wk = d * (d11 * m[k + 2 :, k] - u * m[k + 2 :, k + 1])
            wkp1 = d * (d22 * m[k + 2 :, k + 1] - xp.conj(u) * m[k + 2 :, k])
        else:
            d11, d22 = m[k + 1, k + 1] / d21, m[k, k] / d21
            t = 1 / (d11 * d22 - 1)
            d = t / d21
            wk = d * (d11 * m[k + 2 :, k] - m[k + 2 :, k + 1])
            wkp1 = d * (d22 * m[k + 2 :, k + 1] - m[k + 2 :, k])
        a0, a1 = m[k + 2 :, k].copy(), m[k + 2 :, k + 1].copy()
        m[k + 2 :, k + 2 :] -= xp.tril(
            a0[:, None] * cj(wk)[None, :] + a1[:, None] * cj(wkp1)[None, :]
        )
        m[k + 2 :, k] = wk
        m[k + 2 :, k + 1] = wkp1
        if herm:
            idx = xp.arange(k + 2, n)
            m[idx, idx] = m[idx, idx].real

    def ldl_solve(self, ld, pivots, b, hermitian):
        xp = self.xp
        n = ld.shape[-1]
        batch = xp.broadcast_shapes(ld.shape[:-2], pivots.shape[:-1], b.shape[:-2])
        lds = xp.broadcast_to(ld, batch + (n, n)).reshape((-1, n, n))
        ps = xp.broadcast_to(pivots, batch + (n,)).reshape((-1, n))
        x = xp.array(xp.broadcast_to(b, batch + b.shape[-2:]), dtype=b.dtype)
        xs = x.reshape((-1,) + b.shape[-2:])
        herm = hermitian and ld.dtype.kind == "c"
        host = self.to_numpy(ps).tolist()  # the branches, on the host
        for i in range(lds.shape[0]):
            self._ldl_solve_one(lds[i], host[i], xs[i], herm)
        return x

    def _ldl_solve_one(self, a, piv, x, herm):
        """Overwrite ``x`` with :math:`A^{-1} x` for the factor ``a`` (``sytrs``, lower)."""
        xp, n = self.xp, a.shape[0]
        cj = xp.conj if herm else (lambda v: v)
        k = 0
        while k < n:  # L D y = P b
            if piv[k] > 0:
                kp = piv[k] - 1
                if kp != k:
                    x[[k, kp]] = x[[kp, k]]
                x[k + 1 :] -= a[k + 1 :, k, None] * x[k]
                x[k] = x[k] / (a[k, k].real if herm else a[k, k])
                k += 1
            else:
                kp = -piv[k] - 1
                if kp != k + 1:
                    x[[k + 1, kp]] = x[[kp, k + 1]]
                if k + 2 < n:
                    x[k + 2 :] -= a[k + 2 :, k, None] * x[k] + a[k + 2 :, k + 1, None] * x[k + 1]
                akm1k = a[k + 1, k]
                akm1 = a[k, k] / cj(akm1k)
                ak = a[k + 1, k + 1] / akm1k
                denom = akm1 * ak - 1
                bkm1, bk = x[k] / cj(akm1k), x[k + 1] / akm1k
                x[k] = (ak * bkm1 - bk) / denom
                x[k + 1] = (akm1 * bk - bkm1) / denom
                k += 2
        k = n - 1
        while k >= 0:  # L^T (or L^H) P^T x = y
            if piv[k] > 0:
                if k + 1 < n:
                    x[k] -= (cj(a[k + 1 :, k])[:, None] * x[k + 1 :]).sum(0)
                kp = piv[k] - 1
                if kp != k:
                    x[[k, kp]] = x[[kp, k]]
                k -= 1
            else:
                if k + 1 < n:
                    x[k] -= (cj(a[k + 1 :, k])[:, None] * x[k + 1 :]).sum(0)
                    x[k - 1] -= (cj(a[k + 1 :, k - 1])[:, None] * x[k + 1 :]).sum(0)
                kp = -piv[k] - 1
                if kp != k:
                    x[[k, kp]] = x[[kp, k]]
                k -= 2
