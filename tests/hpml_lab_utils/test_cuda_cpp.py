"""hpml_lab_utils.cuda_cpp without a GPU: how arguments become a C++ kernel's parameters, and the message where a
kernel cannot run. tests/gpu/test_gpu.py launches one on a GPU."""

from __future__ import annotations

import hpml_lab_utils as hl
from hpml_lab_utils import cuda_cpp

import numpy as np
import pytest


class FakeDeviceArray:
    """What a C++ kernel reads from a device array: the data pointer of its CUDA array interface."""

    def __init__(self, pointer: int) -> None:
        self.__cuda_array_interface__ = {"data": (pointer, False), "shape": (4,), "typestr": "<f4", "version": 3}


def test_arguments_are_pointers_and_numpy_scalars_in_their_own_types():
    packed = cuda_cpp.kernel_arguments(
        (FakeDeviceArray(0x7F00_0000_1000), np.int32(-7), np.float32(2.5), np.int64(1 << 40), np.float64(0.1))
    )
    assert [p.dtype for p in packed] == [np.uint64, np.int32, np.float32, np.int64, np.float64]
    assert [p.nbytes for p in packed] == [8, 4, 4, 8, 8]
    assert packed[0][0] == 0x7F00_0000_1000
    assert (packed[1][0], packed[2][0], packed[3][0], packed[4][0]) == (-7, 2.5, 1 << 40, 0.1)


@pytest.mark.parametrize("bare", [5, 2.5, True])
def test_a_bare_python_number_asks_for_its_cpp_type(bare):
    with pytest.raises(TypeError, match=r"argument 1 is a Python .*np\.int32"):
        cuda_cpp.kernel_arguments((np.int32(1), bare))


def test_a_host_array_is_refused_with_what_to_pass_instead():
    with pytest.raises(TypeError, match=r"argument 0 is a ndarray.*cuda\.to_device"):
        cuda_cpp.kernel_arguments((np.zeros(3, np.float32),))


@pytest.mark.skipif(hl.has_cuda(), reason="checks the message shown without a GPU")
def test_without_a_gpu_loading_says_the_simulator_runs_only_python_kernels():
    with pytest.raises(RuntimeError, match="needs a GPU"):
        cuda_cpp.load_kernel(".version 8.0\n.target sm_90\n.address_size 64\n", "add_one")
