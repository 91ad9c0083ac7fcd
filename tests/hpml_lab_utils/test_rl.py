"""lab13's helpers: the environments' autoreset mode, the NumPy policy against the torch network, and a Ray start
that is interrupted or never comes."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import types

from hpml_lab_utils import rl
from hpml_lab_utils.rl import ActorCritic, NumpyPolicy, make_envs, numpy_weights

import numpy as np
import pytest
import torch


def test_make_envs_resets_in_the_same_step_and_keeps_the_last_observation():
    envs, obs = make_envs(3, seed=0)
    try:
        assert obs.shape == (3, 4)
        for _ in range(200):  # pushing right topples every pole within a few dozen steps
            obs, _, terminated, truncated, infos = envs.step(np.ones(3, dtype=np.int64))
            done = terminated | truncated
            if done.any():
                break
        assert done.any() and infos["_final_obs"].tolist() == done.tolist()
        i = int(np.flatnonzero(done)[0])
        assert abs(infos["final_obs"][i][2]) > 0.2  # the pole had fallen: the episode's last observation
        assert abs(obs[i][2]) < 0.06  # what step returned is already the next episode's first
        assert len(envs.return_queue) >= 1
    finally:
        envs.close()


def test_numpy_policy_is_the_network():
    torch.manual_seed(0)
    net = ActorCritic()
    with torch.no_grad():
        net.policy[-1].weight.normal_()  # a policy far from uniform, so that a wrong head would show
    policy = NumpyPolicy(numpy_weights(net), seed=0)
    obs = np.random.default_rng(0).normal(size=(64, 4)).astype(np.float32)
    actions, logp, values = policy(obs)
    with torch.no_grad():
        logits, expected_values = net(torch.from_numpy(obs))
        expected_logp = torch.log_softmax(logits, -1)[torch.arange(64), torch.from_numpy(actions)]
    np.testing.assert_allclose(values, expected_values.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(policy.value(obs), expected_values.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(logp, expected_logp.numpy(), rtol=1e-5, atol=1e-5)
    assert actions.dtype == np.int64 and set(actions.tolist()) == {0, 1}
    again, _, _ = NumpyPolicy(numpy_weights(net), seed=0)(obs)
    assert again.tolist() == actions.tolist()  # seeded


@pytest.mark.slow
def test_a_ray_start_interrupted_leaves_no_head_and_no_folder(monkeypatch):
    """A cell stopped while ``start_ray`` waits for the head (Ctrl-C, its time limit): the kernel lives on, so
    the head must be ended here, not when the kernel exits."""
    pytest.importorskip("ray")
    started, folders = [], []
    real_popen, real_mkdtemp = subprocess.Popen, tempfile.mkdtemp

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    def mkdtemp(*args, **kwargs):
        folders.append(real_mkdtemp(*args, **kwargs))
        return folders[-1]

    def interrupt(seconds):
        raise KeyboardInterrupt

    monkeypatch.setattr(rl.subprocess, "Popen", popen)
    monkeypatch.setattr(rl.tempfile, "mkdtemp", mkdtemp)
    # the first wait for the head's "started" line (rl's own clock only: subprocess's waits must still sleep)
    monkeypatch.setattr(rl, "time", types.SimpleNamespace(monotonic=time.monotonic, sleep=interrupt))
    with pytest.raises(KeyboardInterrupt):
        rl.RayHead(num_cpus=1)
    assert len(started) == 1 and started[0].poll() is not None, "the head outlived the interrupted start"
    assert folders and not any(os.path.exists(f) for f in folders), folders


@pytest.mark.slow
def test_a_head_that_never_starts_is_tried_three_times_and_each_try_is_cleaned_up_once(monkeypatch):
    """Each failed try ends its head and removes its folder, once; the error gives the tries and the log's end."""
    pytest.importorskip("ray")
    heads, ends = [], []

    def start_head(self, num_cpus, object_store_mb, timeout_s):
        self.temp_dir = tempfile.mkdtemp(prefix="ray-test-")
        self.log = open(os.path.join(self.temp_dir, "head.log"), "w+")
        self.process = subprocess.Popen(["sleep", "60"], start_new_session=True)
        heads.append((self.process, self.temp_dir))
        return "raylet: the end of a log"

    real_end_head = rl.RayHead._end_head

    def end_head(self):
        ends.append(self.temp_dir)
        real_end_head(self)

    monkeypatch.setattr(rl.RayHead, "_start_head", start_head)
    monkeypatch.setattr(rl.RayHead, "_end_head", end_head)
    with pytest.raises(RuntimeError, match=r"did not start in 3 tries(.|\n)*raylet: the end of a log"):
        rl.RayHead(num_cpus=1)
    assert len(heads) == rl.RayHead.ATTEMPTS
    assert ends == [folder for _, folder in heads], "each try's head is ended exactly once"
    assert all(process.poll() is not None for process, _ in heads), "a head outlived its failed try"
    assert not any(os.path.exists(folder) for _, folder in heads)
