"""hpml_lab_utils.mpi.mpi_available: says what to install when the mpiexec found is not MPICH's (a fast unit test;
tests/hpml_lab_utils/test_mpi.py launches real ranks)."""

from __future__ import annotations

import sys
from pathlib import Path

from hpml_lab_utils import mpi

import pytest


@pytest.mark.skipif(not Path("/bin/sh").exists(), reason="needs /bin/sh for a stand-in mpiexec")
def test_an_mpiexec_that_is_not_mpich_is_refused_with_what_to_install(tmp_path, monkeypatch):
    fake = tmp_path / "mpiexec"
    fake.write_text('#!/bin/sh\necho "mpiexec (Open MPI) 4.1.6"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(mpi, "mpiexec_path", lambda: str(fake))
    ok, why = mpi.mpi_available()
    assert not ok
    assert str(fake) in why and "pip install mpich" in why


def test_the_mpich_wheels_mpiexec_is_accepted():
    beside = Path(sys.executable).with_name("mpiexec")
    if not beside.exists():
        pytest.skip("no mpich wheel beside this Python (make setup installs it)")
    assert mpi.mpi_available() == (True, f"mpiexec {beside}")
