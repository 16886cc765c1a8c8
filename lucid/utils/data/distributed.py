"""``DistributedSampler``: each of ``num_replicas`` processes takes its own share of a
dataset, as ``torch.utils.data.distributed.DistributedSampler``."""

from __future__ import annotations

import math
import sys

from ...ops import randperm
from ...random import Generator
from ...errors import ArgumentError
from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _process_group(what):
    """World size or rank from ``lucid.distributed``, when it was imported and initialised."""
    dist = sys.modules.get("lucid.distributed")
    if dist is None or not dist.is_available() or not dist.is_initialized():
        raise ArgumentError(
            f"DistributedSampler: {what} not given and no initialized "
            "lucid.distributed process group to take it from"
        )
    return dist.get_world_size() if what == "num_replicas" else dist.get_rank()


class DistributedSampler(Sampler):
    """The indices of replica ``rank`` of ``num_replicas``: every ``num_replicas``-th index
    of one common order (a permutation seeded by ``seed + epoch`` with ``shuffle``, call
    :meth:`set_epoch` each epoch; else ``0..n-1``), padded by repeating its start so every
    replica gets ``ceil(n / num_replicas)`` indices, or cut to ``floor`` with
    ``drop_last``."""

    def __init__(
        self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False
    ):
        if num_replicas is None:
            num_replicas = _process_group("num_replicas")
        if rank is None:
            rank = _process_group("rank")
        if not 0 <= rank < num_replicas:
            raise ArgumentError(
                f"DistributedSampler: invalid rank {rank}, rank should be in "
                f"the interval [0, {num_replicas - 1}]"
            )
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g, device="cpu").tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        elif indices:
            pad = self.total_size - n
            indices += (indices * math.ceil(pad / n))[:pad]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use permutation ``seed + epoch`` from the next pass on."""
        self.epoch = epoch
