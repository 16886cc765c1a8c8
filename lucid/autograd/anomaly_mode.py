"""Anomaly detection: record each node's forward stack and check backward results for NaN."""

from __future__ import annotations

from .grad_mode import STATE

__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
]


class detect_anomaly:
    """Inside this block, every recorded node keeps the stack of the forward call that made
    it; a backward that returns NaN (``check_nan``) or raises names that node and shows the
    stack. Slow: for debugging only."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = bool(check_nan)

    def __enter__(self):
        self._prev = (STATE.anomaly, STATE.anomaly_nan)
        STATE.anomaly, STATE.anomaly_nan = True, self.check_nan
        return self

    def __exit__(self, *exc):
        STATE.anomaly, STATE.anomaly_nan = self._prev
        return False


class set_detect_anomaly(detect_anomaly):
    """Turn anomaly mode on or off (at once, and restored on exit when used as a context)."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self._prev = (STATE.anomaly, STATE.anomaly_nan)
        STATE.anomaly, STATE.anomaly_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self


def is_anomaly_enabled() -> bool:
    return STATE.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    return STATE.anomaly_nan
