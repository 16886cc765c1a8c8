"""Shared pytest setup: the ``cuda`` marker skips where no GPU backend is available."""

import os

import pytest


def _cuda_available():
    try:
        import lucid

        return bool(getattr(getattr(lucid, "cuda", None), "is_available", lambda: False)())
    except Exception:
        return False


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA GPU (skipped elsewhere)")


def pytest_collection_modifyitems(config, items):
    if _cuda_available() or os.environ.get("LUCID_CUDA_TEST_DEVICE") == "cpu":
        return  # a GPU, or a CPU dry run of the CUDA suites (tests/cuda/conftest.py)
    skip = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)
