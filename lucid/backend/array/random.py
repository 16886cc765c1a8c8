"""Creation and random kernels over an array module (NumPy or CuPy).

The generator object is ``xp.random.Generator`` over PCG64; a backend whose array module
has another bit generator overrides :meth:`XpRandom.rng_create` and the state methods.
"""

# float types NumPy cannot sample directly: their mantissa bits (with the implicit one)
_HALF_BITS = {"float16": 11, "bfloat16": 8}
_PCG64_STATE_BYTES = 37  # state (16) + increment (16) + has_uint32 (1) + uinteger (4)


class XpCreation:
    """Implements :class:`CreationKernels` with ``self.xp``."""

    def arange(self, start, step, n, npdtype):
        """``start + i * step`` for ``i < n``, computed in float64 (int64 for integer
        dtypes) and cast; a unit step from zero of a real dtype is one kernel."""
        xp = self.xp
        kind = xp.dtype(npdtype).kind
        cdt = xp.float64 if kind == "f" else xp.int64
        i = xp.arange(n, dtype=cdt)
        if not (step == 1 and kind in "fiu"):
            i = i * step
        elif start == 0:
            return i.astype(npdtype, copy=False)
        return (i + start).astype(npdtype, copy=False)

    def _linspace64(self, start, end, steps):
        xp = self.xp
        i = xp.arange(steps, dtype=xp.float64)
        if steps == 1:
            return i + start
        h = (end - start) / (steps - 1)
        return xp.where(i < steps // 2, start + h * i, end - h * (steps - 1 - i))

    def linspace(self, start, end, steps, npdtype):
        return self._linspace64(start, end, steps).astype(npdtype, copy=False)

    def logspace(self, start, end, steps, base, npdtype):
        return (float(base) ** self._linspace64(start, end, steps)).astype(npdtype, copy=False)

    def eye(self, n, m, npdtype):
        return self.xp.eye(n, m, dtype=npdtype)

    def tril(self, a, k):
        return self.xp.tril(a, k)

    def triu(self, a, k):
        return self.xp.triu(a, k)


class XpRandom(XpCreation):
    """Implements :class:`RandomKernels` with ``self.xp``."""

    def rng_create(self, seed):
        r = self.xp.random
        return r.Generator(r.PCG64(seed))

    def rng_get_state(self, rng):
        st = rng.bit_generator.state
        return (
            st["state"]["state"].to_bytes(16, "little")
            + st["state"]["inc"].to_bytes(16, "little")
            + st["has_uint32"].to_bytes(1, "little")
            + st["uinteger"].to_bytes(4, "little")
        )

    def rng_set_state(self, rng, state):
        if len(state) != _PCG64_STATE_BYTES:
            raise ValueError(
                f"expected a PCG64 state of {_PCG64_STATE_BYTES} bytes, got {len(state)}"
            )
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": int.from_bytes(state[:16], "little"),
                "inc": int.from_bytes(state[16:32], "little"),
            },
            "has_uint32": state[32],
            "uinteger": int.from_bytes(state[33:], "little"),
        }

    @staticmethod
    def _compute_dtype(xp, npdtype):
        """float64 for float64 output, float32 for every narrower float type."""
        return xp.float64 if xp.dtype(npdtype) == xp.float64 else xp.float32

    def uniform(self, rng, shape, low, high, npdtype):
        xp = self.xp
        bits = _HALF_BITS.get(xp.dtype(npdtype).name)
        if bits is None:
            cdt = self._compute_dtype(xp, npdtype)
            u = rng.random(shape, dtype=cdt)
        else:
            cdt = xp.float32
            u = rng.integers(0, 1 << bits, size=shape).astype(cdt) * cdt(2.0**-bits)
        if low != 0 or high != 1:
            u = u * cdt(high - low) + cdt(low)
        return xp.asarray(u).astype(npdtype, copy=False)

    def normal(self, rng, shape, mean, std, npdtype):
        xp = self.xp
        z = rng.standard_normal(shape, dtype=self._compute_dtype(xp, npdtype))
        return xp.asarray(z * std + mean).astype(npdtype, copy=False)

    def randint(self, rng, shape, low, high, npdtype):
        xp = self.xp
        direct = xp.dtype(npdtype).kind in "iu"
        out = rng.integers(low, high, size=shape, dtype=npdtype if direct else xp.int64)
        return xp.asarray(out).astype(npdtype, copy=False)

    def permutation(self, rng, n, npdtype):
        return rng.permutation(n).astype(npdtype, copy=False)

    def bernoulli(self, rng, shape, p, npdtype):
        return self.xp.asarray(rng.random(shape) < p).astype(npdtype, copy=False)

    def exponential(self, rng, shape, lambd, npdtype):
        xp = self.xp
        e = rng.standard_exponential(shape, dtype=self._compute_dtype(xp, npdtype))
        return xp.asarray(e / lambd).astype(npdtype, copy=False)

    def geometric(self, rng, shape, p, npdtype):
        return self.xp.asarray(rng.geometric(p, size=shape)).astype(npdtype, copy=False)

    def cauchy(self, rng, shape, median, sigma, npdtype):
        xp = self.xp
        c = rng.standard_cauchy(shape)
        return xp.asarray(c * sigma + median).astype(npdtype, copy=False)

    def log_normal(self, rng, shape, mean, std, npdtype):
        xp = self.xp
        return xp.asarray(rng.lognormal(mean, std, size=shape)).astype(npdtype, copy=False)

    def poisson(self, rng, rates, npdtype):
        xp = self.xp
        lam = rates.astype(xp.float64)
        return xp.asarray(rng.poisson(lam)).astype(npdtype, copy=False)

    def multinomial(self, rng, probs, num_samples, replacement):
        xp = self.xp
        p = probs.astype(xp.float64)
        rows, n = p.shape
        if replacement:
            cdf = xp.cumsum(p, axis=1)
            cdf /= cdf[:, -1:]  # exactly 1 from the last positive weight on
            u = rng.random((rows, num_samples))
            out = xp.empty((rows, num_samples), dtype=xp.int64)
            for r in range(rows):
                out[r] = xp.searchsorted(cdf[r], u[r], side="right")
            return out
        e = rng.standard_exponential((rows, n))
        pos = p > 0
        keys = xp.where(pos, e / xp.where(pos, p, 1.0), xp.inf)
        return xp.argsort(keys, axis=1, kind="stable")[:, :num_samples].astype(xp.int64)
