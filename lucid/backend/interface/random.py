"""Creation and random kernels of the Backend interface.

:class:`CreationKernels` make new arrays from a few numbers (ranges, identity, triangles);
:class:`RandomKernels` draw samples. A random kernel takes the backend's generator object
``rng`` (made by :meth:`RandomKernels.rng_create`, held by a :class:`lucid.Generator`) and
advances it; the same state always gives the same samples on one backend.
"""

from abc import ABC, abstractmethod


class CreationKernels(ABC):
    """Creation primitive kernels (arrays of one backend out)."""

    @abstractmethod
    def arange(self, start, step, n, npdtype):
        r""":math:`y_i = start + i \cdot step` for :math:`i \in [0, n)`, cast to ``npdtype``.

        Computed in int64 for integer and bool ``npdtype`` (``start`` and ``step`` are then
        ints, so the values are exact), in float64 otherwise.
        """

    @abstractmethod
    def linspace(self, start, end, steps, npdtype):
        r"""``steps`` evenly spaced values from ``start`` to ``end``, cast to ``npdtype``.

        With :math:`h = (end - start) / (steps - 1)` the first half is
        :math:`start + i h` and the second half :math:`end - (steps - 1 - i) h` (float64),
        so both ends are exact and the result is symmetric, as in PyTorch.
        """

    @abstractmethod
    def logspace(self, start, end, steps, base, npdtype):
        r""":math:`base^{t_i}` for :math:`t` = :meth:`linspace` ``(start, end, steps)``
        (float64), cast to ``npdtype``."""

    @abstractmethod
    def eye(self, n, m, npdtype):
        """The ``n x m`` matrix with ones on the main diagonal and zeros elsewhere."""

    @abstractmethod
    def tril(self, a, k):
        r""":math:`y_{\ldots, i, j} = a_{\ldots, i, j}` where :math:`j - i \le k`, else 0
        (over the last two axes; a new array)."""

    @abstractmethod
    def triu(self, a, k):
        r""":math:`y_{\ldots, i, j} = a_{\ldots, i, j}` where :math:`j - i \ge k`, else 0
        (over the last two axes; a new array)."""


class RandomKernels(CreationKernels):
    """Random primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def rng_create(self, seed):
        """A new generator object of this backend seeded with int ``seed`` in [0, 2**64)."""

    @abstractmethod
    def rng_get_state(self, rng):
        """The full state of ``rng`` as ``bytes`` (restored exactly by rng_set_state)."""

    @abstractmethod
    def rng_set_state(self, rng, state):
        """Restore ``rng`` from ``bytes`` given by :meth:`rng_get_state`; a ValueError when
        ``state`` has the wrong size or format."""

    @abstractmethod
    def uniform(self, rng, shape, low, high, npdtype):
        r""":math:`y = low + u\,(high - low)` with :math:`u \sim U[0, 1)` on the grid of
        ``npdtype``'s mantissa (so :math:`u < 1` holds even in half precision)."""

    @abstractmethod
    def normal(self, rng, shape, mean, std, npdtype):
        r""":math:`y = mean + std \cdot z`, :math:`z \sim \mathcal{N}(0, 1)`; ``mean`` and
        ``std`` are numbers or arrays broadcasting to ``shape``."""

    @abstractmethod
    def randint(self, rng, shape, low, high, npdtype):
        """Integers uniform on ``[low, high)`` (Python ints), cast to ``npdtype``."""

    @abstractmethod
    def permutation(self, rng, n, npdtype):
        """A uniformly random permutation of ``0 .. n-1``."""

    @abstractmethod
    def bernoulli(self, rng, shape, p, npdtype):
        r""":math:`y = 1` with probability :math:`p`, else 0; ``p`` is a number in [0, 1] or
        an array of them broadcasting to ``shape``."""

    @abstractmethod
    def exponential(self, rng, shape, lambd, npdtype):
        r""":math:`y \sim \mathrm{Exp}(\lambda)`, density :math:`\lambda e^{-\lambda y}`."""

    @abstractmethod
    def geometric(self, rng, shape, p, npdtype):
        r""":math:`y \in \{1, 2, \ldots\}` with :math:`P(y = k) = (1 - p)^{k-1} p`, the
        number of Bernoulli(:math:`p`) trials up to the first success."""

    @abstractmethod
    def cauchy(self, rng, shape, median, sigma, npdtype):
        r""":math:`y = median + \sigma \tan(\pi (u - \tfrac12))`, :math:`u \sim U(0, 1)`:
        density :math:`\frac{1}{\pi\sigma (1 + ((y - median)/\sigma)^2)}`."""

    @abstractmethod
    def log_normal(self, rng, shape, mean, std, npdtype):
        r""":math:`y = e^{z}`, :math:`z \sim \mathcal{N}(mean, std^2)`."""

    @abstractmethod
    def poisson(self, rng, rates, npdtype):
        r"""One sample of :math:`\mathrm{Poisson}(\lambda)` per element of the array
        ``rates`` (non-negative), as ``npdtype``."""

    @abstractmethod
    def multinomial(self, rng, probs, num_samples, replacement):
        r"""int64 ``(rows, num_samples)`` category indices drawn from each row of 2-D
        ``probs`` (non-negative finite weights with positive sums; checked by the caller).

        With replacement: inverse-CDF sampling, :math:`P(i) = p_i / \sum_j p_j`. Without:
        the exponential race (keys :math:`E_i / p_i`, :math:`E_i \sim \mathrm{Exp}(1)`,
        smallest first), which draws categories one by one proportionally to the
        remaining weights; zero-weight categories are never drawn.
        """
