"""hpml_lab_utils.config: fast mode, size picking, seeding."""

import random

from hpml_lab_utils import config

import numpy as np
import pytest


@pytest.mark.parametrize(
    "value, expected", [("1", True), ("true", True), ("YES", True), ("0", False), ("", False), ("no", False)]
)
def test_fast_mode_reads_HPML_FAST(monkeypatch, value, expected):
    monkeypatch.setenv("HPML_FAST", value)
    assert config.fast_mode() is expected


def test_fast_mode_off_when_unset(monkeypatch):
    monkeypatch.delenv("HPML_FAST", raising=False)
    assert config.fast_mode() is False


def test_pick_follows_fast_mode(monkeypatch):
    monkeypatch.setenv("HPML_FAST", "1")
    assert config.pick(default=1_000_000, fast=1_000) == 1_000
    monkeypatch.setenv("HPML_FAST", "0")
    assert config.pick(default=1_000_000, fast=1_000) == 1_000_000


def test_grading_reads_nbgrader_variable(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert config.grading() is False
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert config.grading() is True


def test_seed_everything_makes_draws_repeat():
    import torch

    config.seed_everything(123)
    first = (random.random(), np.random.rand(), torch.rand(1).item())
    config.seed_everything(123)
    second = (random.random(), np.random.rand(), torch.rand(1).item())
    assert first == second
    config.seed_everything(124)
    assert (random.random(), np.random.rand(), torch.rand(1).item()) != first
