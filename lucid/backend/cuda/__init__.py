"""The CUDA backend on CuPy, registered for device type ``"cuda"`` where CuPy imports and
the CUDA runtime finds a GPU (``pip install 'lucid[cuda12]'`` or ``'lucid[cuda13]'``).

Elsewhere this package holds nothing: :data:`AVAILABLE` is False and asking for a CUDA
device raises :class:`~lucid.errors.DeviceError` saying how to install CuPy.
"""

try:
    import cupy

    AVAILABLE = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # CuPy missing, or present without a driver / GPU (any CUDA error)
    AVAILABLE = False

if AVAILABLE:
    from . import runtime
    from .backend import CudaBackend

    _BACKENDS: dict = {}

    def backend_of(dev):
        """The backend of device ``dev`` (one per GPU index, made on first use)."""
        be = _BACKENDS.get(dev.index)
        if be is None:
            be = _BACKENDS[dev.index] = CudaBackend(runtime.check_index(dev.index, str(dev)))
        return be
