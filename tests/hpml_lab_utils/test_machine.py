"""hpml_lab_utils.machine: CPU facts for the week-1 peak-FLOP/s formula."""

import os
from pathlib import Path

from hpml_lab_utils import machine

import pytest

XEON = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz
cpu MHz\t\t: 2095.078
flags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512dq

processor\t: 1
model name\t: something else
flags\t\t: sse2
"""

GRAVITON = """processor\t: 0
BogoMIPS\t: 243.75
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics
CPU implementer\t: 0x41
"""


def test_parse_cpuinfo_reads_the_first_block_only():
    info = machine.parse_cpuinfo(XEON)
    assert info["model name"].startswith("Intel(R) Xeon(R) Gold 6230")
    assert "avx512f" in info["flags"]


@pytest.mark.parametrize(
    "flags, expected",
    [
        ({"sse2", "avx", "avx2", "fma", "avx512f"}, ("AVX-512", 512, True)),
        ({"sse2", "avx", "avx2", "fma"}, ("AVX2", 256, True)),
        ({"sse2", "avx"}, ("AVX", 256, False)),
        ({"sse2"}, ("SSE2", 128, False)),
        ({"fp", "asimd"}, ("NEON (ASIMD)", 128, True)),
        (set(), ("unknown", 128, False)),
    ],
)
def test_simd_of(flags, expected):
    assert machine.simd_of(frozenset(flags)) == expected


def test_flops_per_cycle_known_cores():
    # Skylake-SP Gold/Platinum: 2 AVX-512 FMA units -> 32 FP64, 64 FP32 FLOP/cycle
    assert machine.flops_per_cycle(512, 64, units=2, fma=True) == 32
    assert machine.flops_per_cycle(512, 32, units=2, fma=True) == 64
    # Haswell: 2 AVX2 FMA units -> 16 FP64; Sandy Bridge: AVX add + mul pipes, no FMA -> 8 FP64
    assert machine.flops_per_cycle(256, 64, units=2, fma=True) == 16
    assert machine.flops_per_cycle(256, 64, units=2, fma=False) == 8
    with pytest.raises(ValueError):
        machine.flops_per_cycle(0, 64)


def test_cpu_facts_from_files(tmp_path: Path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(XEON)
    freq = tmp_path / "cpufreq"
    freq.mkdir()
    (freq / "cpuinfo_max_freq").write_text("3900000\n")
    facts = machine.cpu_facts(cpuinfo, freq)
    assert (facts.simd, facts.vector_bits, facts.fma) == ("AVX-512", 512, True)
    assert facts.clock_ghz == pytest.approx(3.9) and "max" in facts.clock_source
    assert facts.clocks["nominal (model name)"] == pytest.approx(2.1)
    assert facts.clocks["current (cpu MHz)"] == pytest.approx(2.095078)
    assert facts.cores >= 1 and not [n for n in facts.notes if "hyper-threading" not in n]  # this machine's cores
    assert facts.datapath_bits == 512  # an Intel Xeon: full-width AVX-512 units


def test_cpu_facts_without_sysfs_uses_the_model_name_then_cpu_mhz(tmp_path: Path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(XEON)
    facts = machine.cpu_facts(cpuinfo, tmp_path / "missing")
    assert facts.clock_ghz == pytest.approx(2.1) and facts.clock_source == "nominal (model name)"
    cpuinfo.write_text(XEON.replace(" @ 2.10GHz", ""))
    facts = machine.cpu_facts(cpuinfo, tmp_path / "missing")
    assert facts.clock_source == "current (cpu MHz)"


def test_cpu_facts_arm_and_missing_files(tmp_path: Path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(GRAVITON)
    facts = machine.cpu_facts(cpuinfo, tmp_path / "missing")
    assert facts.simd == "NEON (ASIMD)" and facts.clock_ghz is None and facts.notes
    facts = machine.cpu_facts(tmp_path / "nothing", tmp_path / "missing")
    assert facts.simd == "unknown" and facts.clock_ghz is None and len(facts.notes) >= 2


def test_cpu_facts_of_this_machine_is_sane():
    facts = machine.cpu_facts()
    assert facts.cores >= 1 and facts.vector_bits >= 128
    assert facts.clock_ghz is None or 0.2 < facts.clock_ghz < 10


def test_data_cache_bytes_of_this_machine_grow_with_the_level():
    sizes = machine.data_cache_bytes()
    if not sizes:
        pytest.skip("no /sys/devices/system/cpu/cpu*/cache here")
    levels = sorted(sizes)
    assert levels[0] == 1 and all(sizes[a] < sizes[b] for a, b in zip(levels, levels[1:]))
    assert 4096 <= sizes[1] <= 1 << 20


def _fake_cache(cpu_dir: Path, index: int, level: int, kind: str, size: str, shared: str, line: str | None = "64"):
    folder = cpu_dir / "cache" / f"index{index}"
    folder.mkdir(parents=True)
    for name, text in (("level", str(level)), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
        (folder / name).write_text(text + "\n")
    if line is not None:
        (folder / "coherency_line_size").write_text(line + "\n")


def test_caches_of_cpu_reads_sysfs_and_leaves_out_instruction_caches(tmp_path: Path):
    cpu = tmp_path / "cpu3"
    _fake_cache(cpu, 0, 1, "Data", "48K", "3")
    _fake_cache(cpu, 1, 1, "Instruction", "32K", "3")
    _fake_cache(cpu, 2, 2, "Unified", "2048K", "3", line=None)  # no line size: 64 assumed
    _fake_cache(cpu, 3, 3, "Unified", "105M", "0-7")
    assert machine.caches_of_cpu(3, tmp_path) == [
        machine.Cache(1, "Data", 48 << 10, 64, "3"),
        machine.Cache(2, "Unified", 2 << 20, 64, "3"),
        machine.Cache(3, "Unified", 105 << 20, 64, "0-7"),
    ]
    assert machine.caches_of_cpu(4, tmp_path) == []


def test_physical_cores_counts_hyper_threads_once(tmp_path: Path):
    cpus = sorted(os.sched_getaffinity(0))
    for cpu in cpus:
        topology = tmp_path / f"cpu{cpu}" / "topology"
        topology.mkdir(parents=True)
        (topology / "physical_package_id").write_text("0\n")
        (topology / "core_id").write_text(f"{cpu // 2}\n")  # pairs of logical CPUs share a core
    assert machine.physical_cores(tmp_path) == len({cpu // 2 for cpu in cpus})
    assert machine.physical_cores(tmp_path / "missing") == machine.usable_cores()


def test_zen4_avx512_counts_256_bit_fma_units():
    assert machine.fma_datapath_bits(512, "AuthenticAMD", 0x19)[0] == 256
    assert machine.fma_datapath_bits(512, "AuthenticAMD", 0x1A) == (512, None)  # Zen 5
    assert machine.fma_datapath_bits(512, "GenuineIntel", 6) == (512, None)
    assert machine.fma_datapath_bits(256, "AuthenticAMD", 0x19) == (256, None)  # Zen 3: AVX2 only


def test_cpu_facts_of_a_zen4_cpu(tmp_path: Path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
        "model name\t: AMD EPYC 9654 96-Core Processor\ncpu MHz\t\t: 2400.000\n"
        "flags\t\t: fpu sse2 avx avx2 fma avx512f avx512bw\n\n"
    )
    facts = machine.cpu_facts(cpuinfo, tmp_path / "missing")
    assert (facts.vector_bits, facts.datapath_bits) == (512, 256) and any("Zen 4" in n for n in facts.notes)
