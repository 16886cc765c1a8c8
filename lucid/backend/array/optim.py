"""Optimizer kernels over an array module: in-place ufuncs with ``out=``.

One loop over the group's parameters; per parameter a handful of whole-array ufunc calls
writing into the state arrays or one scratch array (``empty_like`` of the parameter), so
no other temporaries are made. The user's gradients are never written: where the
effective gradient differs from them (``maximize``, coupled weight decay) it is computed
once into an array of its own, which then also serves as scratch.
"""


def count_step(s):
    """Add one to the 0-d host array ``s`` (a parameter's step count) in place and return
    the new count as a float (an item read and write: the in-place ufunc on a 0-d array
    costs ten times as much)."""
    v = s.item() + 1.0
    s[()] = v
    return v


class XpOptim:
    """Optimizer update kernels on ``self.xp``."""

    def _eff_grad(self, g, p, weight_decay, maximize):
        """The effective gradient ``(+-g + wd * p)`` and whether it is a fresh array the
        kernel may overwrite. (Fresh arrays are made with ``out=``: a ufunc on 0-d arrays
        would otherwise return a scalar, which later in-place steps cannot write to.)"""
        xp = self.xp
        if weight_decay:
            out = xp.multiply(p, weight_decay, out=xp.empty_like(p))
            if maximize:
                out -= g
            else:
                out += g
            return out, True
        if maximize:
            return xp.negative(g, out=xp.empty_like(g)), True
        return g, False

    def _lerp_(self, m, g, w, tmp):
        """``m += w * (g - m)`` (PyTorch's ``lerp_`` for weights below 0.5)."""
        xp = self.xp
        xp.subtract(g, m, out=tmp)
        tmp *= w
        m += tmp

    def _ema_sq_(self, v, g, beta, tmp):
        """``v = beta * v + (1 - beta) * g * g``."""
        xp = self.xp
        v *= beta
        xp.multiply(g, g, out=tmp)
        tmp *= 1.0 - beta
        v += tmp

    def sgd_step(
        self, params, grads, bufs, lr, momentum, dampening, weight_decay, nesterov, maximize
    ):
        xp = self.xp
        bufs = list(bufs)
        for i, p in enumerate(params):
            g, owned = self._eff_grad(grads[i], p, weight_decay, maximize)
            d = g
            if momentum:
                b = bufs[i]
                if b is None:
                    b = bufs[i] = xp.array(g, copy=True)
                else:
                    b *= momentum
                    if dampening:
                        tmp = g if owned else xp.empty_like(p)
                        xp.multiply(g, 1.0 - dampening, out=tmp)
                        b += tmp
                    else:
                        b += g
                if nesterov:
                    tmp = xp.multiply(b, momentum, out=xp.empty_like(b))
                    tmp += g
                    d, g, owned = tmp, tmp, True
                else:
                    d = b
            tmp = g if owned else xp.empty_like(p)
            xp.multiply(d, -lr, out=tmp)
            p += tmp
        return bufs

    def _scratch(self, params):
        """``scratch(p)``: an uninitialised array of ``p``'s shape and dtype, a view of one
        buffer per dtype as large as the largest parameter (one allocation per step, not
        one per parameter); consecutive calls may return the same memory."""
        xp = self.xp
        bufs = {}
        for p in params:
            dt = p.dtype
            bufs[dt] = max(bufs.get(dt, 0), p.size)
        bufs = {dt: xp.empty(n, dt) for dt, n in bufs.items()}

        def scratch(p):
            return bufs[p.dtype][: p.size].reshape(p.shape)

        return scratch

    def _adam_moments_(
        self,
        i,
        p,
        grads,
        exp_avgs,
        exp_avg_sqs,
        steps,
        lr,
        beta1,
        beta2,
        weight_decay,
        maximize,
        decoupled,
        tmp,
    ):
        r"""The first half of an Adam-family update of parameter ``i``, shared by Adam(W),
        NAdam and RAdam: count its step, apply the weight decay (decoupled: :math:`p
        \mathrel{*}= 1 - \eta\lambda`; else :math:`g + \lambda p`), then
        :math:`m \leftarrow \beta_1 m + (1 - \beta_1) g` and :math:`v \leftarrow \beta_2 v
        + (1 - \beta_2) g^2` in place (``tmp``: scratch of ``p``'s shape). Returns
        ``(step, g, m, v)``."""
        step = count_step(steps[i])
        if decoupled:
            if weight_decay:
                p *= 1.0 - lr * weight_decay
            g, _ = self._eff_grad(grads[i], p, 0.0, maximize)
        else:
            g, _ = self._eff_grad(grads[i], p, weight_decay, maximize)
        m, v = exp_avgs[i], exp_avg_sqs[i]
        self._lerp_(m, g, 1.0 - beta1, tmp)
        self._ema_sq_(v, g, beta2, tmp)
        return step, g, m, v

    def adam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        max_exp_avg_sqs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        amsgrad,
        maximize,
        decoupled,
    ):
        xp = self.xp
        scratch = self._scratch(params)
        for i, p in enumerate(params):
            tmp = scratch(p)
            step, _, m, v = self._adam_moments_(
                i,
                p,
                grads,
                exp_avgs,
                exp_avg_sqs,
                steps,
                lr,
                beta1,
                beta2,
                weight_decay,
                maximize,
                decoupled,
                tmp,
            )
            step_size = lr / (1.0 - beta1**step)
            bc2_sqrt = (1.0 - beta2**step) ** 0.5
            if amsgrad:
                xp.maximum(max_exp_avg_sqs[i], v, out=max_exp_avg_sqs[i])
                v = max_exp_avg_sqs[i]
            # step_size m / (sqrt(v) / bc2_sqrt + eps) with bc2_sqrt moved into the scalars:
            # one pass fewer (a rounding or so from PyTorch's order)
            xp.sqrt(v, out=tmp)
            tmp += eps * bc2_sqrt
            xp.divide(m, tmp, out=tmp)
            tmp *= -step_size * bc2_sqrt
            p += tmp

    def adamax_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_infs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        maximize,
    ):
        xp = self.xp
        for i, p in enumerate(params):
            step = count_step(steps[i])
            g, _ = self._eff_grad(grads[i], p, weight_decay, maximize)
            m, u = exp_avgs[i], exp_infs[i]
            tmp = xp.empty_like(p)
            self._lerp_(m, g, 1.0 - beta1, tmp)
            u *= beta2
            xp.abs(g, out=tmp)
            tmp += eps
            xp.maximum(u, tmp, out=u)
            clr = lr / (1.0 - beta1**step)
            xp.divide(m, u, out=tmp)
            tmp *= -clr
            p += tmp

    def nadam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        mu_products,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        momentum_decay,
        maximize,
        decoupled,
    ):
        xp = self.xp
        for i, p in enumerate(params):
            denom = xp.empty_like(p)
            step, g, m, v = self._adam_moments_(
                i,
                p,
                grads,
                exp_avgs,
                exp_avg_sqs,
                steps,
                lr,
                beta1,
                beta2,
                weight_decay,
                maximize,
                decoupled,
                denom,
            )
            bc2 = 1.0 - beta2**step
            mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
            mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1.0) * momentum_decay))
            mp = mu_products[i]
            mp *= mu
            mu_prod = float(mp)
            xp.divide(v, bc2, out=denom)
            xp.sqrt(denom, out=denom)
            denom += eps
            tmp = xp.divide(g, denom, out=xp.empty_like(g))
            tmp *= -lr * (1.0 - mu) / (1.0 - mu_prod)
            p += tmp
            xp.divide(m, denom, out=tmp)
            tmp *= -lr * mu_next / (1.0 - mu_prod * mu_next)
            p += tmp

    def radam_step(
        self,
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        steps,
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        maximize,
        decoupled,
    ):
        xp = self.xp
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        for i, p in enumerate(params):
            tmp = xp.empty_like(p)
            step, _, m, v = self._adam_moments_(
                i,
                p,
                grads,
                exp_avgs,
                exp_avg_sqs,
                steps,
                lr,
                beta1,
                beta2,
                weight_decay,
                maximize,
                decoupled,
                tmp,
            )
            bc1 = 1.0 - beta1**step
            bc2 = 1.0 - beta2**step
            rho_t = rho_inf - 2.0 * step * (beta2**step) / bc2
            upd = xp.divide(m, bc1, out=xp.empty_like(m))
            upd *= lr
            if rho_t > 5.0:
                rect = (
                    (rho_t - 4.0)
                    * (rho_t - 2.0)
                    * rho_inf
                    / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t)
                ) ** 0.5
                xp.sqrt(v, out=tmp)
                tmp += eps
                xp.divide(bc2**0.5, tmp, out=tmp)
                upd *= tmp
                upd *= rect
            p -= upd

    def rmsprop_step(
        self,
        params,
        grads,
        square_avgs,
        grad_avgs,
        bufs,
        steps,
        lr,
        alpha,
        eps,
        weight_decay,
        momentum,
        centered,
        maximize,
    ):
        xp = self.xp
        for i, p in enumerate(params):
            count_step(steps[i])
            g, _ = self._eff_grad(grads[i], p, weight_decay, maximize)
            v = square_avgs[i]
            tmp = xp.empty_like(p)
            self._ema_sq_(v, g, alpha, tmp)
            if centered:
                ga = grad_avgs[i]
                self._lerp_(ga, g, 1.0 - alpha, tmp)
                xp.multiply(ga, ga, out=tmp)
                xp.subtract(v, tmp, out=tmp)
                xp.sqrt(tmp, out=tmp)
            else:
                xp.sqrt(v, out=tmp)
            tmp += eps
            xp.divide(g, tmp, out=tmp)
            if momentum > 0:
                b = bufs[i]
                b *= momentum
                b += tmp
                xp.multiply(b, -lr, out=tmp)
            else:
                tmp *= -lr
            p += tmp

    def adagrad_step(
        self, params, grads, state_sums, steps, lr, lr_decay, eps, weight_decay, maximize
    ):
        xp = self.xp
        for i, p in enumerate(params):
            step = count_step(steps[i])
            g, _ = self._eff_grad(grads[i], p, weight_decay, maximize)
            clr = lr / (1.0 + (step - 1.0) * lr_decay)
            acc = state_sums[i]
            tmp = xp.multiply(g, g, out=xp.empty_like(g))
            acc += tmp
            xp.sqrt(acc, out=tmp)
            tmp += eps
            xp.divide(g, tmp, out=tmp)
            tmp *= -clr
            p += tmp

    def adadelta_step(
        self, params, grads, square_avgs, acc_deltas, steps, lr, rho, eps, weight_decay, maximize
    ):
        xp = self.xp
        for i, p in enumerate(params):
            count_step(steps[i])
            g, _ = self._eff_grad(grads[i], p, weight_decay, maximize)
            v, u = square_avgs[i], acc_deltas[i]
            std = xp.empty_like(p)
            self._ema_sq_(v, g, rho, std)
            xp.add(v, eps, out=std)
            xp.sqrt(std, out=std)
            delta = xp.add(u, eps, out=xp.empty_like(u))
            xp.sqrt(delta, out=delta)
            delta /= std
            delta *= g
            self._ema_sq_(u, delta, rho, std)
            delta *= -lr
            p += delta

    def asgd_step(
        self, params, grads, axs, etas, mus, steps, lr, lambd, alpha, t0, weight_decay, maximize
    ):
        xp = self.xp
        for i, p in enumerate(params):
            step = count_step(steps[i])
            g, _ = self._eff_grad(grads[i], p, weight_decay, maximize)
            eta = float(etas[i])
            p *= 1.0 - lambd * eta
            tmp = xp.multiply(g, -eta, out=xp.empty_like(g))
            p += tmp
            ax = axs[i]
            mu = float(mus[i])
            if mu != 1.0:
                xp.subtract(p, ax, out=tmp)
                tmp *= mu
                ax += tmp
            else:
                xp.copyto(ax, p)
            etas[i][...] = lr / ((1.0 + lambd * lr * step) ** alpha)
            mus[i][...] = 1.0 / max(1.0, step - t0)

    def rprop_step(
        self,
        params,
        grads,
        prevs,
        step_sizes,
        steps,
        etaminus,
        etaplus,
        step_size_min,
        step_size_max,
        maximize,
    ):
        xp = self.xp
        for i, p in enumerate(params):
            count_step(steps[i])
            g, owned = self._eff_grad(grads[i], p, 0.0, maximize)
            prev, size = prevs[i], step_sizes[i]
            sign = xp.multiply(g, prev, out=xp.empty_like(g))
            xp.sign(sign, out=sign)
            down = sign < 0
            factor = xp.ones_like(sign)
            factor[sign > 0] = etaplus
            factor[down] = etaminus
            size *= factor
            xp.clip(size, step_size_min, step_size_max, out=size)
            if not owned:
                g = xp.array(g, copy=True)
            g[down] = 0
            xp.sign(g, out=sign)
            sign *= size
            p -= sign
            xp.copyto(prev, g)
