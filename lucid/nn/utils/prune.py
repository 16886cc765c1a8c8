"""Pruning, as ``torch.nn.utils.prune``: zero out entries (unstructured) or whole slices
along a dim (structured) of a module's parameter, by magnitude, norm, at random or from a
given mask.

Pruning parameter ``name`` of a module moves the original into the parameter
``name + "_orig"``, registers the 0/1 ``name + "_mask"`` buffer (the parameter's dtype),
and makes ``name`` a plain attribute :math:`w = w_{orig} \\odot m`, recomputed by a forward
pre-hook (the pruning method object itself) before each call, so gradients reach
``name_orig`` through the mask. Pruning the same parameter again combines the methods in a
:class:`PruningContainer`: the new method acts only on what is still unpruned (the
remaining entries, or the remaining slices along its dim), and the masks multiply.
:func:`remove` makes the pruning permanent: ``name`` becomes a parameter again holding
:math:`w_{orig} \\odot m`, and ``name_orig``, ``name_mask`` and the hook go.

``amount`` is a fraction in [0, 1] (of the entries, or of the slices, rounded to the
nearest integer) or a non-negative count. Ties in magnitude or norm are broken as
:func:`lucid.topk` breaks them.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ... import ops as _ops
from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError, ArgumentTypeError, DimError, ShapeError
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


class BasePruningMethod(ABC):
    """A pruning method: :meth:`compute_mask` says what to keep; :meth:`apply` prunes a
    module's parameter with it. An instance is the forward pre-hook that recomputes the
    pruned parameter, so it remembers the parameter's name (``_tensor_name``)."""

    _tensor_name: str | None = None
    PRUNING_TYPE: str

    def __call__(self, module, inputs):
        """The forward pre-hook: ``name = name_orig * name_mask``."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new 0/1 mask of ``t`` (same shape), given the mask ``default_mask`` of what
        earlier pruning removed (which the result must keep removed)."""

    def apply_mask(self, module):
        """``name_orig * name_mask`` of ``module``, the pruned parameter."""
        if self._tensor_name is None:
            raise ArgumentError(
                f"{type(self).__name__}.apply_mask: the method has not been "
                "applied to a module's parameter yet"
            )
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune parameter ``name`` of ``module`` with ``cls(*args, **kwargs)`` (scored by
        ``importance_scores`` when given, else by the parameter itself); returns the method
        now hooked on the module (a :class:`PruningContainer` when ``name`` was pruned
        before)."""
        old, old_keys = None, []
        for key, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old, old_keys = hook, old_keys + [key]
        if len(old_keys) > 1:
            raise ArgumentError(
                f"prune: {len(old_keys)} pruning hooks act on parameter "
                f"'{name}' of {type(module).__name__}; expected at most one"
            )
        orig = getattr(module, name)
        if importance_scores is not None and tuple(importance_scores.shape) != tuple(orig.shape):
            raise ShapeError(
                f"prune: importance_scores should have the shape of parameter "
                f"'{name}', {tuple(orig.shape)}, got "
                f"{tuple(importance_scores.shape)}"
            )
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old is not None:
            container = old if isinstance(old, PruningContainer) else PruningContainer(old)
            container.add_pruning_method(method)
            method = container
            default_mask = getattr(module, name + "_mask").detach().clone()
        else:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _ops.ones_like(orig)
        try:
            with no_grad():
                mask = method.compute_mask(
                    importance_scores if importance_scores is not None else orig,
                    default_mask=default_mask,
                )
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if old is None:  # put the parameter back as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        for key in old_keys:
            del module._forward_pre_hooks[key]
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it (from ``importance_scores``
        when given), after ``default_mask`` (default: nothing pruned yet)."""
        if importance_scores is not None and tuple(importance_scores.shape) != tuple(t.shape):
            raise ShapeError(
                f"prune: importance_scores should have the shape of the "
                f"tensor, {tuple(t.shape)}, got {tuple(importance_scores.shape)}"
            )
        scores = importance_scores if importance_scores is not None else t
        mask = default_mask if default_mask is not None else _ops.ones_like(t)
        with no_grad():
            mask = self.compute_mask(scores, default_mask=mask)
        return t * mask

    def remove(self, module):
        """Make the pruning of ``module`` permanent: ``name`` becomes a parameter holding
        ``name_orig * name_mask``; ``name_orig`` and ``name_mask`` go."""
        name = self._tensor_name
        if name is None:
            raise ArgumentError(
                f"{type(self).__name__}.remove: the method has not been "
                "applied to a module's parameter yet"
            )
        with no_grad():
            weight = self.apply_mask(module)
        if name in module.__dict__:
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        orig.data = weight.data
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """The sequence of methods that pruned one parameter in turn; its mask is the last
    method's, computed on what the earlier ones left (see the module doc)."""

    def __init__(self, *methods):
        self._pruning_methods = ()
        if len(methods) == 1:
            self._tensor_name = methods[0]._tensor_name
        for m in methods:
            self.add_pruning_method(m)

    def add_pruning_method(self, method):
        """Append ``method`` (one acting on the same parameter name)."""
        if not isinstance(method, BasePruningMethod):
            raise ArgumentTypeError(
                f"PruningContainer.add_pruning_method: expected a "
                f"BasePruningMethod, got {type(method).__name__}"
            )
        if self._tensor_name is not None and method._tensor_name != self._tensor_name:
            raise ArgumentError(
                f"PruningContainer.add_pruning_method: this container "
                f"prunes '{self._tensor_name}', got a method acting on "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the last method's mask written over what it still keeps:
        the entries equal to 1 (unstructured), the slices along its dim not all zero
        (structured), or everything (global)."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            where = mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise ArgumentError(
                    f"PruningContainer: structured method "
                    f"{type(method).__name__} has no attribute 'dim'"
                )
            dim = method.dim + t.ndim if method.dim < 0 else method.dim
            if not 0 <= dim < t.ndim:
                raise DimError(
                    f"PruningContainer: dim {method.dim} is out of range for a "
                    f"tensor of shape {tuple(t.shape)}"
                )
            others = [d for d in range(t.ndim) if d != dim]
            where = [slice(None)] * t.ndim
            where[dim] = mask.sum(dim=others) != 0
            where = tuple(where)
        elif kind == "global":
            where = (slice(None),) * t.ndim
        else:
            raise ArgumentError(
                f"PruningContainer: unknown PRUNING_TYPE {kind!r} of {type(method).__name__}"
            )
        mask[where] = method.compute_mask(t[where], default_mask=mask[where]).to(mask.dtype)
        return mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask stays all ones (or the earlier mask)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _check_amount(amount):
    if not isinstance(amount, numbers.Real) or isinstance(amount, bool):
        raise ArgumentTypeError(
            f"prune: amount must be an int or a float, got {type(amount).__name__}"
        )
    if isinstance(amount, numbers.Integral):
        if amount < 0:
            raise ArgumentError(
                f"prune: amount={amount} should be a float in [0, 1] or a non-negative integer"
            )
    elif not 0.0 <= float(amount) <= 1.0:
        raise ArgumentError(
            f"prune: amount={amount} should be a float in [0, 1] or a non-negative integer"
        )


def _count(amount, size):
    """How many of ``size`` units ``amount`` prunes (a count, or a fraction rounded)."""
    n = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if n > size:
        raise ArgumentError(
            f"prune: amount={amount} should be at most the number of units to prune, {size}"
        )
    return n


def _check_structured(t, dim):
    if t.ndim <= 1:
        raise ShapeError(
            f"prune: structured pruning needs a tensor of at least 2 dims, "
            f"got shape {tuple(t.shape)}"
        )
    if not -t.ndim <= dim < t.ndim:
        raise DimError(f"prune: dim {dim} is out of range for a tensor of shape {tuple(t.shape)}")


def _keep_slices(t, dim, keep, default_mask):
    """The mask keeping the slices ``keep`` (indices or a bool mask) of ``t`` along
    ``dim``, times ``default_mask``."""
    mask = _ops.zeros_like(t)
    where = [slice(None)] * t.ndim
    where[dim] = keep
    mask[tuple(where)] = 1
    return mask * default_mask.to(mask.dtype)


class _Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of lowest :meth:`score`."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def score(self, t):
        raise NotImplementedError

    def compute_mask(self, t, default_mask):
        n = _count(self.amount, t.numel())
        mask = default_mask.clone()
        if n:
            mask.view(-1)[_ops.topk(self.score(t).view(-1), n, largest=False).indices] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries chosen uniformly at random (the lowest of uniform
    random scores)."""

    def score(self, t):
        return _ops.rand_like(t)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest absolute value."""

    def score(self, t):
        return t.abs()

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` slices along ``dim`` chosen uniformly at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        n = _count(self.amount, size)
        if not n:
            return default_mask
        score = _ops.rand(size, device=t.device)
        return _keep_slices(t, self.dim, score > _ops.kthvalue(score, n).values, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` slices along ``dim`` of smallest ``n``-norm (``n``: a
    number, ``inf``, ``-inf`` or ``"fro"``, as :func:`lucid.norm`'s ``p``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        n = _count(self.amount, size)
        if not n:
            return default_mask
        dim = self.dim % t.ndim
        norms = _ops.norm(t, p=self.n, dim=[d for d in range(t.ndim) if d != dim])
        return _keep_slices(t, dim, _ops.topk(norms, size - n).indices, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise ShapeError(
                f"prune: the mask has shape {tuple(self.mask.shape)}, "
                f"expected the parameter's, {tuple(default_mask.shape)}"
            )
        return default_mask * self.mask.to(default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Prune nothing, but set up ``name_orig``, ``name_mask`` (ones) and the hook;
    returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest magnitude (of
    ``importance_scores`` when given); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random slices along ``dim`` of ``module.<name>``; returns
    ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` slices along ``dim`` of ``module.<name>`` of smallest
    ``n``-norm (of ``importance_scores`` when given); returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the ``(module, name)`` pairs of ``parameters`` together, as one flat vector:
    ``pruning_method(**kwargs)`` (an unstructured method class such as
    :class:`L1Unstructured`) picks the entries across all of them (scored by
    ``importance_scores[(module, name)]`` where given); each gets its part of the mask as a
    :class:`CustomFromMask`."""
    if not isinstance(parameters, Iterable):
        raise ArgumentTypeError(
            f"global_unstructured: parameters must be an iterable of "
            f"(module, name) pairs, got {type(parameters).__name__}"
        )
    parameters = list(parameters)
    scores = {} if importance_scores is None else importance_scores
    if not isinstance(scores, dict):
        raise ArgumentTypeError(
            f"global_unstructured: importance_scores must be a dict, got {type(scores).__name__}"
        )
    method = pruning_method(**kwargs)
    if method.PRUNING_TYPE != "unstructured":
        raise ArgumentTypeError(
            f"global_unstructured: expected an unstructured pruning "
            f"method, got {pruning_method.__name__} of PRUNING_TYPE "
            f"{method.PRUNING_TYPE!r}"
        )
    method._tensor_name = "temp"
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    with no_grad():
        flat = parameters_to_vector(
            [scores.get((m, name), getattr(m, name)) for m, name in parameters]
        )
        masks = [getattr(m, name + "_mask", None) for m, name in parameters]
        default = parameters_to_vector(
            [
                _ops.ones_like(getattr(m, name)) if k is None else k
                for k, (m, name) in zip(masks, parameters)
            ]
        )
        final = container.compute_mask(flat, default)
    start = 0
    for m, name in parameters:
        p = getattr(m, name)
        custom_from_mask(m, name, mask=final[start : start + p.numel()].view_as(p))
        start += p.numel()


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (see the module doc); returns
    ``module``. A parameter that was not pruned raises an ``ArgumentError``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ArgumentError(
        f"prune.remove: parameter '{name}' of module "
        f"{type(module).__name__} has to be pruned before its pruning can "
        "be removed"
    )


def is_pruned(module):
    """Whether ``module`` or one of its submodules has a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, sub in module.named_modules()
        for hook in sub._forward_pre_hooks.values()
    )
