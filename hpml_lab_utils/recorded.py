"""Hand a hidden test's results to the grader, which judges them outside your kernel.

A hidden test runs your function on its inputs and calls :func:`record` with
what came back; it does not compare anything itself. The grader runs the
reference solution on the same inputs in a clean process of its own, and
compares the two there, in its own process, within the tolerance the test
states (``|got - expected| <= atol + rtol * |expected|``, elementwise). A test
cell whose results differ, or are missing, scores zero. So the expected values
never enter your kernel, and no change to the kernel earns points: only the
right results do.

Recording happens only when the grader asks for it (``HPML_RECORD_RESULTS=1``
in the kernel's environment); in your own runs :func:`record` does nothing.
A record travels as an output of the cell (MIME type :data:`RECORD_MIME`):
plain JSON data, never code and never a pickle (:func:`encode`).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from typing import Any

import numpy as np

RECORD_MIME = "application/vnd.hpml.record+json"
RECORD_ENV = "HPML_RECORD_RESULTS"
MAX_ARRAY_BYTES = 4 << 20  # one array; a larger one is recorded as "too large" (and so differs)
MAX_DEPTH = 16  # nesting of lists, tuples and dicts
ARRAY_DTYPES = frozenset(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"]
)


def recording() -> bool:
    """True when the grader asked this kernel to record results (``HPML_RECORD_RESULTS=1``)."""
    return os.environ.get(RECORD_ENV, "") == "1"


def record(name: str, value: Any, *, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Hand ``value`` to the grader under ``name`` (unique within the test cell).

    The grader compares it with the reference's value of the same name:
    numbers and arrays within ``atol + rtol * |expected|`` (NaN equals NaN),
    everything else exactly. The tolerance it uses is the one the reference's
    run stated.
    """
    if not recording():
        return
    from IPython.display import publish_display_data

    data = {"name": str(name), "value": encode(value), "rtol": float(rtol), "atol": float(atol)}
    publish_display_data({RECORD_MIME: data})


def record_call(name: str, fn: Callable[..., Any], *args: Any, rtol: float = 0.0, atol: float = 0.0) -> Any:
    """Call ``fn(*args)``; record what it returned, or the class of the exception it raised; return the result.

    The grader then checks that a call that must raise (say ``ValueError``)
    raised that class or a subclass of it, and that one that must return did.
    Returns None when the call raised.
    """
    try:
        result = fn(*args)
    except Exception as exc:  # noqa: BLE001 - which exception is what gets recorded
        record(name, Raised(type(exc)))
        return None
    record(name, result, rtol=rtol, atol=atol)
    return result


class Raised:
    """What :func:`record_call` records for a call that raised: the exception's class and its base classes."""

    def __init__(self, cls: type[BaseException]):
        self.names = [c.__name__ for c in cls.__mro__ if c is not object]


def encode(value: Any, depth: int = 0) -> dict:
    """``value`` as JSON data tagged with its kind: ``{"t": "float", "v": "0.5"}``, ``{"t": "array", ...}``.

    Python and NumPy scalars, strings, None, lists, tuples, dicts, NumPy arrays
    and torch tensors (as arrays) are kept; anything else is recorded as its
    type's name only (``"t": "unsupported"``), which never equals a result.
    """
    if depth > MAX_DEPTH:
        return {"t": "unsupported", "v": "nested too deeply"}
    if isinstance(value, Raised):
        return {"t": "raises", "v": value.names}
    if value is None:
        return {"t": "none"}
    if isinstance(value, (bool, np.bool_)):
        return {"t": "bool", "v": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"t": "int", "v": str(int(value))}
    if isinstance(value, (float, np.floating)):
        return {"t": "float", "v": repr(float(value))}
    if isinstance(value, str):
        return {"t": "str", "v": value}
    if isinstance(value, (list, tuple)):
        return {"t": "tuple" if isinstance(value, tuple) else "list", "v": [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"t": "dict", "v": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    array = _as_array(value)
    if array is not None:
        if array.dtype.name not in ARRAY_DTYPES:
            return {"t": "unsupported", "v": f"array of {array.dtype.name}"}
        if array.nbytes > MAX_ARRAY_BYTES:
            return {"t": "unsupported", "v": f"array of {array.nbytes} bytes (too large to record)"}
        data = np.ascontiguousarray(array)
        return {
            "t": "array",
            "dtype": array.dtype.name,
            "shape": list(array.shape),
            "b64": base64.b64encode(data.tobytes()).decode("ascii"),
        }
    return {"t": "unsupported", "v": type(value).__name__}


def _as_array(value: Any) -> np.ndarray | None:
    if isinstance(value, np.ndarray):
        return value
    torch = __import__("sys").modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        tensor = value.detach().cpu()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        return tensor.numpy()
    return None


def decode(data: Any, depth: int = 0) -> Any:
    """The value :func:`encode` recorded (arrays as NumPy arrays, a raised exception as :class:`Raised`).

    Raises ``ValueError`` for anything :func:`encode` cannot have written.
    """
    if depth > MAX_DEPTH + 1 or not isinstance(data, dict):
        raise ValueError("not a recorded value")
    kind, v = data.get("t"), data.get("v")
    if kind == "none":
        return None
    if kind == "bool" and isinstance(v, bool):
        return v
    if kind == "int" and isinstance(v, str) and len(v) <= 400:
        return int(v)
    if kind == "float" and isinstance(v, str) and len(v) <= 40:
        return float(v)
    if kind in ("str", "unsupported") and isinstance(v, str):
        return v if kind == "str" else Unsupported(v)
    if kind in ("list", "tuple") and isinstance(v, list):
        items = [decode(x, depth + 1) for x in v]
        return items if kind == "list" else tuple(items)
    if kind == "dict" and isinstance(v, list):
        return Pairs((decode(k, depth + 1), decode(x, depth + 1)) for k, x in (_pair(p) for p in v))
    if kind == "raises" and isinstance(v, list) and all(isinstance(n, str) for n in v):
        raised = Raised.__new__(Raised)
        raised.names = list(v)
        return raised
    if kind == "array":
        return _decode_array(data)
    raise ValueError(f"not a recorded value (kind {kind!r})")


class Unsupported(str):
    """A value :func:`encode` could not record (its type's name): it equals nothing."""


class Pairs(list):
    """A recorded dict, as its (key, value) pairs (keys may be unhashable after decoding: arrays)."""


def _pair(p: Any) -> tuple[Any, Any]:
    if not (isinstance(p, list) and len(p) == 2):
        raise ValueError("not a recorded dict item")
    return p[0], p[1]


def _decode_array(data: dict) -> np.ndarray:
    dtype, shape, b64 = data.get("dtype"), data.get("shape"), data.get("b64")
    if dtype not in ARRAY_DTYPES or not isinstance(shape, list) or not isinstance(b64, str):
        raise ValueError("not a recorded array")
    if not all(isinstance(n, int) and 0 <= n for n in shape) or len(b64) > 2 * MAX_ARRAY_BYTES:
        raise ValueError("not a recorded array")
    raw = base64.b64decode(b64, validate=True)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if count * np.dtype(dtype).itemsize != len(raw):
        raise ValueError("a recorded array whose size does not match its shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape)
