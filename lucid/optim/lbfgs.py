r"""L-BFGS with an optional strong-Wolfe line search (minFunc's algorithm, as PyTorch's).

The parameters are handled as one flat vector (the concatenation of their gradients);
the two-loop recursion, the cubic interpolation and the line search work on it through
Lucid ops under ``no_grad``, with the scalars (:math:`y^\top s`, :math:`\rho`,
:math:`\alpha`) kept as 0-d tensors of the parameters' dtype, as PyTorch keeps them, so
that the iterates agree step for step.
"""

from __future__ import annotations

from ..autograd.grad_mode import enable_grad, no_grad
from ..ops import cat, view_as_real, zeros
from .optimizer import Optimizer, invalid

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through ``(x1, f1, g1)`` and ``(x2, f2, g2)`` (values
    and slopes; the slopes are 0-d tensors), clipped to ``bounds`` (default: between the
    points); the bounds' middle when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Line search along ``d`` from step ``t`` for a point satisfying the strong Wolfe
    conditions: sufficient decrease :math:`f(x+td) \\le f + c_1 t\\, g^\\top d` and
    curvature :math:`|g(x+td)^\\top d| \\le -c_2\\, g^\\top d`. Brackets a step, then
    zooms by cubic interpolation. Returns ``(f_new, g_new, t, evaluations)``."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    it = 0
    while it < max_ls:  # bracketing phase
        if f_new > (f + c1 * t * gtd) or (it > 1 and f_new >= f_prev):
            br, br_f, br_g, br_gtd = (
                [t_prev, t],
                [f_prev, f_new],
                [g_prev, g_new.clone()],
                [gtd_prev, gtd_new],
            )
            break
        if abs(gtd_new) <= -c2 * gtd:
            br, br_f, br_g, br_gtd = [t], [f_new], [g_new], None
            done = True
            break
        if gtd_new >= 0:
            br, br_f, br_g, br_gtd = (
                [t_prev, t],
                [f_prev, f_new],
                [g_prev, g_new.clone()],
                [gtd_prev, gtd_new],
            )
            break
        lo_step, hi_step = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = (
            t,
            _cubic_interpolate(
                t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(lo_step, hi_step)
            ),
        )
        f_prev, g_prev, gtd_prev = f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        br, br_f, br_g, br_gtd = [0, t], [f, f_new], [g, g_new], None
    insuf = False
    low, high = (0, 1) if br_f[0] <= br_f[-1] else (1, 0)
    while not done and it < max_ls:  # zoom phase
        if abs(br[1] - br[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(br[0], br_f[0], br_gtd[0], br[1], br_f[1], br_gtd[1])
        top, bottom = max(br), min(br)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insuf or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insuf = False
            else:
                insuf = True
        else:
            insuf = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > (f + c1 * t * gtd) or f_new >= br_f[low]:
            br[high], br_f[high], br_g[high], br_gtd[high] = t, f_new, g_new.clone(), gtd_new
            low, high = (0, 1) if br_f[0] <= br_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br[high] - br[low]) >= 0:
                br[high], br_f[high], br_g[high], br_gtd[high] = (
                    br[low],
                    br_f[low],
                    br_g[low],
                    br_gtd[low],
                )
            br[low], br_f[low], br_g[low], br_gtd[low] = t, f_new, g_new.clone(), gtd_new
    return br_f[low], br_g[low], br[low], evals


def _real(t):
    """``t``, or for a complex tensor its (real, imaginary) pairs (a view: writes reach t)."""
    return view_as_real(t) if t.dtype.is_complex else t


class LBFGS(Optimizer):
    r"""L-BFGS: a quasi-Newton method keeping the last ``history_size`` pairs
    :math:`s_k = \theta_{k+1} - \theta_k`, :math:`y_k = g_{k+1} - g_k` (those with
    :math:`y^\top s > 10^{-10}`) and computing the direction :math:`d = -H g` by the
    two-loop recursion with :math:`H_0 = \frac{y^\top s}{y^\top y} I`.

    ``step(closure)`` runs up to ``max_iter`` iterations (``max_eval`` closure calls,
    default ``max_iter * 5 // 4``), stopping when :math:`\|g\|_\infty \le`
    ``tolerance_grad`` or the step or the loss changes by less than ``tolerance_change``.
    The step length is ``lr`` (the first iteration: :math:`\min(1, 1/\|g\|_1)\,` ``lr``),
    or found by a strong-Wolfe line search with ``line_search_fn="strong_wolfe"``. One
    param group only; all parameters on one device.
    """

    def __init__(
        self,
        params,
        lr=1,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
    ):
        if not 0.0 <= lr:
            raise invalid("LBFGS", "learning rate", lr, "lr >= 0")
        if line_search_fn not in (None, "strong_wolfe"):
            raise invalid("LBFGS", "line_search_fn", line_search_fn, "None or 'strong_wolfe'")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(
            params,
            dict(
                lr=lr,
                max_iter=max_iter,
                max_eval=max_eval,
                tolerance_grad=tolerance_grad,
                tolerance_change=tolerance_change,
                history_size=history_size,
                line_search_fn=line_search_fn,
            ),
        )
        if len(self.param_groups) != 1:
            raise invalid(
                "LBFGS",
                "parameter groups",
                len(self.param_groups),
                "one group (LBFGS doesn't support per-parameter options)",
            )
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        """The gradients as one flat real vector (a complex one as its (real, imaginary)
        pairs, as PyTorch's: the method runs on the real coordinates)."""
        return cat(
            [
                _real(
                    zeros(p.shape, dtype=p.dtype, device=p.device) if p._grad is None else p._grad
                ).reshape(-1)
                for p in self._params
            ]
        )

    def _add_grad(self, step, update):
        """``params += step * update`` (``update`` flat, over the real coordinates)."""
        offset = 0
        for p in self._params:
            r = _real(p)
            n = r.numel()
            r.add_(update[offset : offset + n].view(r.shape), alpha=step)
            offset += n

    def _set_params(self, values):
        for p, v in zip(self._params, values):
            p.copy_(v)

    def _directional_evaluate(self, closure, x, t, d):
        """Loss and flat gradient at ``x + t d``; the parameters are put back to ``x``."""
        self._add_grad(t, d)
        with enable_grad():
            loss = float(closure())
        g = self._flat_grad()
        self._set_params(x)
        return loss, g

    def step(self, closure):
        """Run the L-BFGS iterations; ``closure`` (required) clears the gradients,
        recomputes the loss, calls ``backward`` and returns the loss. Returns the loss
        of the first evaluation."""
        with no_grad():
            return self._run(closure)

    def _run(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = float(group["lr"]), group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if g.abs().max() <= tol_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_g = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = g.neg()
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                y = g.sub(prev_g)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = g.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-al[i])
                d = r = q.mul(h_diag)
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=al[i] - be_i)
            if prev_g is None:
                prev_g = g.clone()
            else:
                prev_g.copy_(g)
            prev_loss = loss
            t = min(1.0, 1.0 / g.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = g.dot(d)
            if gtd > -tol_change:
                break
            ls_evals = 0
            if group["line_search_fn"] is not None:
                x0 = [p.clone() for p in self._params]
                loss, g, t, ls_evals = _strong_wolfe(
                    lambda x, t_, d_: self._directional_evaluate(closure, x, t_, d_),
                    x0,
                    t,
                    d,
                    loss,
                    g,
                    gtd,
                    max_ls=max_eval - evals,
                )
                self._add_grad(t, d)
                opt_cond = g.abs().max() <= tol_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    g = self._flat_grad()
                    opt_cond = g.abs().max() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state.update(
            d=d,
            t=t,
            old_dirs=old_dirs,
            old_stps=old_stps,
            ro=ro,
            H_diag=h_diag,
            prev_flat_grad=prev_g,
            prev_loss=prev_loss,
        )
        return orig_loss
