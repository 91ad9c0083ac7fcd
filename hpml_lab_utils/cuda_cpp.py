"""CUDA C++ kernels launched from Python on a GPU, beside Numba's (weeks 5 and 6).

:func:`hpml_lab_utils.ptx.compile_cuda_cpp` turns CUDA C++ into PTX with NVRTC, with or without a GPU. With one,
:func:`load_kernel` hands that PTX to the CUDA driver (``cuModuleLoadData``, which compiles it to the GPU's
machine code) and returns a kernel that launches like Numba's, ``kernel[blocks, threads](x, np.int32(n))``,
through ``cuLaunchKernel`` on Numba's own context and default stream. Numba's device arrays are the C++ kernel's
pointers, and one set of CUDA events (:func:`hpml_lab_utils.cuda_helpers.time_kernel_ms`) times both languages.

The arguments follow the C++ signature, as a ``.cu`` file's host code would pass them: a device array (anything
with ``__cuda_array_interface__``) is its data pointer; a number must say its C++ type, ``np.int32(n)`` for an
``int``, ``np.float32(a)`` for a ``float``, since a bare Python ``int`` could be 4 or 8 bytes.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .device import cuda_kernels_are_simulated, has_cuda

__all__ = ["CppKernel", "kernel_arguments", "load_kernel"]


def _check(result: tuple) -> tuple:
    """Unpack a ``cuda.bindings.driver`` call's ``(error, *values)``; raise RuntimeError naming the error."""
    from cuda.bindings import driver

    error, *values = result
    if error != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(error)
        raise RuntimeError(f"CUDA driver: {name.decode() if name else error}")
    return tuple(values)


def kernel_arguments(args: tuple[Any, ...]) -> list[np.ndarray]:
    """Each argument as the bytes its C++ parameter receives: a device array's data pointer (8 bytes), a NumPy
    scalar's value in its own type. Raises TypeError for anything else, saying which NumPy type to use."""
    packed = []
    for position, arg in enumerate(args):
        if hasattr(arg, "__cuda_array_interface__"):
            packed.append(np.array([arg.__cuda_array_interface__["data"][0]], dtype=np.uint64))
        elif isinstance(arg, np.generic) and arg.dtype.kind in "biuf":
            packed.append(np.array([arg], dtype=arg.dtype))
        elif isinstance(arg, (bool, int, float)):
            raise TypeError(
                f"argument {position} is a Python {type(arg).__name__} ({arg!r}): give its C++ type, e.g. "
                f"np.int32({arg!r}) for an int, np.int64 for a long long, np.float32 for a float"
            )
        else:
            raise TypeError(
                f"argument {position} is a {type(arg).__name__}: a C++ kernel takes device arrays "
                "(cuda.to_device(...)) and NumPy scalars (np.int32, np.float32, ...)"
            )
    return packed


class CppKernel:
    """A ``extern "C"`` kernel loaded from PTX: ``kernel[blocks, threads](*args)`` or
    ``kernel[blocks, threads, shared_bytes](*args)``, blocks and threads an int or a tuple of up to 3."""

    def __init__(self, function: Any, name: str) -> None:
        self.function = function
        self.name = name

    def __getitem__(self, config: tuple) -> Any:
        blocks, threads, *rest = config
        shared_bytes = int(rest[0]) if rest else 0

        def dims(value: int | tuple[int, ...]) -> tuple[int, int, int]:
            xyz = (value,) if isinstance(value, int) else tuple(value)
            return (*xyz, *(1,) * (3 - len(xyz)))  # type: ignore[return-value]

        def launch(*args: Any) -> None:
            from cuda.bindings import driver

            values = kernel_arguments(args)
            pointers = np.array([value.ctypes.data for value in values], dtype=np.uint64)
            _check(
                driver.cuLaunchKernel(
                    self.function, *dims(blocks), *dims(threads), shared_bytes, 0, pointers.ctypes.data, 0
                )
            )

        return launch

    def __repr__(self) -> str:
        return f"CppKernel({self.name!r})"


def load_kernel(ptx: str, name: str) -> CppKernel:
    """Load ``ptx`` into Numba's CUDA context on the GPU and return its kernel ``name``.

    Raises RuntimeError when there is no GPU (the CUDA simulator cannot run C++), or when the PTX has no kernel
    of that name, listing the ones it has: a kernel not marked ``extern "C"`` has a mangled name.
    """
    if cuda_kernels_are_simulated() or not has_cuda():
        raise RuntimeError("a CUDA C++ kernel needs a GPU: Numba's simulator runs only Python kernels")
    from numba import cuda

    try:
        from cuda.bindings import driver
    except ImportError:
        raise RuntimeError("no CUDA driver bindings here: pip install cuda-bindings (numba-cuda brings it)") from None
    cuda.current_context()  # makes Numba's context current in this thread, so the module and its arrays share it
    (module,) = _check(driver.cuModuleLoadData(ptx.encode() + b"\0"))
    try:
        (function,) = _check(driver.cuModuleGetFunction(module, name.encode()))
    except RuntimeError:
        entries = re.findall(r"\.entry\s+([\w$]+)", ptx)
        raise RuntimeError(
            f"no kernel named {name!r} in the PTX (it has: {', '.join(entries) or 'none'}); "
            'mark it extern "C" to keep its C++ name unmangled'
        ) from None
    return CppKernel(function, name)
