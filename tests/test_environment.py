"""environment.yml (conda users) installs exactly what pyproject.toml installs (`make setup`)."""

import re
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]
tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")


def pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    reqs = [Requirement(r) for r in project["dependencies"] + extras["kernels"] + extras["ptx"] + extras["dev"]]
    return {r.name.lower(): str(r.specifier) for r in reqs}


def environment() -> tuple[list, list[str]]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    return conda, pip


def test_pip_section_lists_exactly_the_project_requirements():
    _conda, pip = environment()
    listed = {}
    for line in pip:
        if line.startswith("-e"):
            continue
        r = Requirement(line)
        listed[r.name.lower()] = str(r.specifier)
    expected = pyproject_requirements()
    assert listed.keys() == expected.keys(), (
        f"only in environment.yml: {sorted(listed.keys() - expected.keys())}; "
        f"only in pyproject.toml: {sorted(expected.keys() - listed.keys())}"
    )
    for name, spec in expected.items():
        assert SpecifierSet(listed[name]) == SpecifierSet(spec), f"{name}: {listed[name]!r} vs {spec!r}"


def test_installs_the_project_itself():
    _conda, pip = environment()
    assert [p for p in pip if p.startswith("-e")] == ["-e ."]


def test_conda_python_satisfies_requires_python():
    conda, _pip = environment()
    [python] = [d for d in conda if d.startswith("python")]
    version = re.fullmatch(r"python=(\d+\.\d+)", python).group(1)
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert SpecifierSet(requires).contains(version + ".0"), f"python={version} vs requires-python {requires}"
