"""Build C++ from a notebook: PyTorch extensions with ``load_inline`` and plain shared libraries for ``ctypes``
(week 6, lab11).

- :func:`extensions_dir`: where builds go, ``./torch_extensions`` beside the notebook: private to one
  student's folder (the autograder runs each student in a scratch folder of their own), kept between kernel
  restarts so an unchanged source is not rebuilt. A shared folder is a trap: the same extension name there can
  load someone else's build.
- :func:`build_extension`: ``torch.utils.cpp_extension.load_inline`` with ``-O3 -fopenmp`` into that folder,
  after clearing a ``lock`` file left by a build that was killed (it would make every later load wait forever).
- :func:`build_shared_library`: ``g++ -O3 -march=native -shared -fPIC`` (``-fopenmp`` when asked) and
  ``ctypes.CDLL`` (a tenth of a second).
- :func:`toolchain_status`: is there a C++ compiler (and ninja, which ``load_inline`` needs)?
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path
from types import ModuleType

__all__ = ["build_extension", "build_shared_library", "extensions_dir", "toolchain_status"]


def extensions_dir() -> Path:
    """``$HPML_EXTENSIONS_DIR``, else ``./torch_extensions`` (created): the folder this kernel builds C++ in."""
    path = Path(os.environ.get("HPML_EXTENSIONS_DIR") or Path.cwd() / "torch_extensions")
    path.mkdir(parents=True, exist_ok=True)
    return path


def toolchain_status() -> tuple[bool, str]:
    """(ok, sentence): a C++ compiler and ninja on PATH, or what to install."""
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not cxx:
        return False, "no C++ compiler: install g++ (Debian/Ubuntu: apt-get install g++; macOS: xcode-select --install)"
    if not shutil.which("ninja"):  # the ninja pip package puts it in the virtual environment's bin
        return False, f"compiler {cxx}, but no ninja (pip install ninja): load_inline needs it"
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    return True, f"C++ compiler: {cxx} ({version[0] if version else 'version unknown'}); ninja: {shutil.which('ninja')}"


def _clear_stale_lock(build_dir: Path) -> None:
    # cpp_extension's lock says "a build is under way"; one kernel builds one thing at a time, so a lock that is
    # already there when this kernel starts a build was left by a build that was killed
    lock = build_dir / "lock"
    if lock.exists():
        lock.unlink()


def build_extension(
    name: str,
    cpp_source: str,
    functions: list[str],
    *,
    extra_cflags: list[str] | None = None,
    verbose: bool = False,
) -> ModuleType:
    """Compile ``cpp_source`` (which includes ``<torch/extension.h>``) and return the module exposing ``functions``.

    ``extra_cflags``: the compiler flags, ``["-O3", "-fopenmp"]`` by default (``-fopenmp`` also links OpenMP).
    A rebuild happens only when the source or the flags change (the first build takes 20-60 s). Compiler errors
    are raised as a RuntimeError whose message holds the compiler's output.
    """
    from torch.utils.cpp_extension import load_inline

    build_dir = extensions_dir() / name
    build_dir.mkdir(parents=True, exist_ok=True)
    _clear_stale_lock(build_dir)
    flags = list(extra_cflags) if extra_cflags is not None else ["-O3", "-fopenmp"]
    try:
        return load_inline(
            name=name,
            cpp_sources=[cpp_source],
            functions=functions,
            extra_cflags=flags,
            extra_ldflags=["-fopenmp"] if "-fopenmp" in flags else [],
            build_directory=str(build_dir),
            verbose=verbose,
        )
    except RuntimeError as e:
        errors = [line for line in str(e).splitlines() if "error:" in line]
        if not errors:
            raise
        first = "\n".join(f"  {line.split(str(build_dir) + '/')[-1]}" for line in errors[:5])
        raise RuntimeError(
            f"{name} did not compile; the compiler's first errors (main.cpp:line:column; load_inline puts one "
            f"#include before your source, so line 2 of main.cpp is your line 1):\n{first}\n\nthe whole compiler output:\n{e}"
        ) from None


def build_shared_library(name: str, c_source: str, *, openmp: bool = True) -> ctypes.CDLL:
    """Compile ``c_source`` with ``g++ -O3 -march=native -shared -fPIC`` (and ``-fopenmp`` when ``openmp``), and load
    it with ctypes.

    Functions meant for ctypes need ``extern "C"`` (no C++ name mangling). The library file is named after a hash
    of the source, so an edited source always loads the new build.
    """
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or "g++"
    digest = hashlib.sha1(c_source.encode()).hexdigest()[:12]
    out_dir = extensions_dir() / "ctypes"
    out_dir.mkdir(parents=True, exist_ok=True)
    src, lib = out_dir / f"{name}_{digest}.cpp", out_dir / f"{name}_{digest}.so"
    if not lib.exists():
        src.write_text(c_source)
        tmp = lib.with_suffix(f".{os.getpid()}.{time.time_ns()}.so")
        cmd = [
            cxx,
            "-O3",
            "-march=native",
            "-shared",
            "-fPIC",
            *(["-fopenmp"] if openmp else []),
            str(src),
            "-o",
            str(tmp),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"g++ could not compile {name}:\n{done.stderr.strip()}")
        os.replace(tmp, lib)  # never load a half-written library
    return ctypes.CDLL(str(lib))
