"""Environments, the policy network and the trajectory record of the RL-at-scale lab (lab13).

The lab writes the rollout, V-trace, prioritized replay and the actor-learner
loops; this module holds only what they pass around:

* :func:`make_envs`: a Gymnasium vector environment (CartPole-v1 by default) in
  the ``SAME_STEP`` autoreset mode, with episode returns recorded.
* :class:`Trajectory`: what a rollout returns (time-major arrays).
* :class:`ActorCritic`: the policy and value network the learner trains.
* :func:`numpy_weights` and :class:`NumpyPolicy`: the same network's forward
  pass in NumPy, for actors that should not need torch (a process that forks
  after torch has started its thread pool must not use it).
* :func:`start_ray`: a one-machine Ray cluster, as a cluster's head node runs it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch

__all__ = ["ActorCritic", "NumpyPolicy", "RayHead", "Trajectory", "make_envs", "numpy_weights", "start_ray"]


def make_envs(num_envs: int, seed: int = 0, asynchronous: bool = False, env_id: str = "CartPole-v1"):
    """``num_envs`` copies of ``env_id`` as one Gymnasium vector environment, reset with ``seed``.

    Autoreset mode ``SAME_STEP``: when a sub-environment's episode ends, the
    observation ``step`` returns for it is already the first of its next
    episode, and ``infos["final_obs"][i]`` holds the last one of the episode
    that ended (``infos["_final_obs"][i]`` is then True). Wrapped in
    ``RecordEpisodeStatistics``: ``envs.return_queue`` holds the returns of the
    last 100 finished episodes. ``asynchronous=True`` steps each copy in a
    process of its own (``AsyncVectorEnv``). Returns ``(envs, first_obs)``.
    """
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    mode = "async" if asynchronous else "sync"
    kwargs = {"autoreset_mode": AutoresetMode.SAME_STEP}
    if asynchronous:
        kwargs["context"] = "fork"  # the notebook's kernel has no importable __main__ for spawn
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, vector_kwargs=kwargs)
    envs = gym.wrappers.vector.RecordEpisodeStatistics(envs, buffer_length=100)
    obs, _ = envs.reset(seed=seed)
    return envs, obs


class Trajectory(NamedTuple):
    """``T`` steps of ``N`` environments, time-major (what ``rollout`` returns).

    obs [T, N, obs_dim] float32: what each action was chosen on.
    actions [T, N] int64. rewards [T, N] float32 (see the lab for truncated steps).
    discounts [T, N] float32: gamma, or 0 where the episode ended at that step.
    behaviour_logp [T, N] float32: log-probability of the action under the acting policy.
    values [T, N] float32: the acting policy's value of ``obs``.
    bootstrap_value [N] float32: the acting policy's value of the observation after the last step.
    """

    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    discounts: np.ndarray
    behaviour_logp: np.ndarray
    values: np.ndarray
    bootstrap_value: np.ndarray


def _mlp(sizes: list[int]) -> torch.nn.Sequential:
    """Linear layers of the given widths with tanh between them (none after the last)."""
    layers: list[torch.nn.Module] = []
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        layers += [torch.nn.Linear(n_in, n_out)] + ([torch.nn.Tanh()] if i < len(sizes) - 2 else [])
    return torch.nn.Sequential(*layers)


class ActorCritic(torch.nn.Module):
    """A policy MLP and a value MLP, two tanh layers each: ``forward(obs) -> (logits, value)``.

    The two share no layer: the value's squared error, on returns of up to ``1 / (1 - gamma)``, would
    otherwise pull the features the policy uses (with a shared body, CartPole's learner stalled short
    of 475).
    """

    def __init__(self, obs_dim: int = 4, num_actions: int = 2, hidden: int = 64):
        super().__init__()
        self.policy = _mlp([obs_dim, hidden, hidden, num_actions])
        self.value = _mlp([obs_dim, hidden, hidden, 1])
        torch.nn.init.zeros_(self.policy[-1].bias)
        self.policy[-1].weight.data.mul_(0.01)  # a near-uniform first policy

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.policy(obs), self.value(obs).squeeze(-1)


def numpy_weights(net: ActorCritic) -> dict[str, np.ndarray]:
    """The network's parameters as NumPy float32 arrays (a copy): what the learner sends to actors."""
    return {name: p.detach().cpu().numpy().astype(np.float32, copy=True) for name, p in net.named_parameters()}


class NumpyPolicy:
    """:class:`ActorCritic`'s forward pass in NumPy, sampling actions with its own generator.

    ``policy(obs) -> (actions int64 [N], logp float32 [N], values float32 [N])``;
    ``policy.value(obs) -> values float32 [N]`` (no action drawn).
    """

    def __init__(self, weights: dict[str, np.ndarray], seed: int = 0):
        self.w = weights
        self.rng = np.random.default_rng(seed)

    def _mlp(self, name: str, obs: np.ndarray) -> np.ndarray:
        """The Sequential ``name`` of :class:`ActorCritic`: its Linear layers at 0, 2, 4, tanh between."""
        h = obs
        for i in (0, 2, 4):
            h = h @ self.w[f"{name}.{i}.weight"].T + self.w[f"{name}.{i}.bias"]
            h = np.tanh(h) if i < 4 else h
        return h

    def _forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._mlp("policy", obs), self._mlp("value", obs)[:, 0]

    def value(self, obs: np.ndarray) -> np.ndarray:
        return self._forward(np.asarray(obs, dtype=np.float32))[1].astype(np.float32)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        logits, value = self._forward(np.asarray(obs, dtype=np.float32))
        logp_all = logits - logits.max(axis=1, keepdims=True)
        logp_all = logp_all - np.log(np.exp(logp_all).sum(axis=1, keepdims=True))
        u = self.rng.random((len(logits), 1))
        actions = (np.cumsum(np.exp(logp_all), axis=1) < u).sum(axis=1).clip(max=logits.shape[1] - 1)
        logp = logp_all[np.arange(len(actions)), actions]
        return actions.astype(np.int64), logp.astype(np.float32), value.astype(np.float32)


def _free_ports(n: int) -> list[int]:
    """``n`` distinct TCP ports free on 127.0.0.1 now."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def _end_with_parent() -> None:
    """In the child, before exec: SIGTERM when the process that started it dies (Linux), so that a kernel
    that is restarted or killed takes its Ray head (which then ends its daemons) with it."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class RayHead:
    """A one-machine Ray cluster: ``ray start --head --block`` as a child of this process, and this process
    connected to it as a driver (what :func:`start_ray` returns).

    ``address`` is the head's GCS address; ``stop()`` disconnects and ends every Ray process of it (also
    on ``with start_ray(...)`` exit). Started on loopback only, with no dashboard and no usage report:
    the grading sandbox has no network beyond its own loopback.
    """

    READY = "Ray runtime started."  # what `ray start` logs once its node has registered
    ATTEMPTS = 3

    def __init__(self, num_cpus: int, object_store_mb: int = 80, start_timeout_s: float = 180.0):
        import ray

        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")  # no GPUs here, and no warning about it
        os.environ.setdefault("RAY_agent_register_timeout_ms", str(int(start_timeout_s * 1000)))
        self.process: subprocess.Popen | None = None
        self.log = None
        self.temp_dir = ""
        try:
            for attempt in range(1, self.ATTEMPTS + 1):
                # `ray start` gives the raylet a fixed 30 s to register, which a busy 2-core machine can miss the
                # first time (every Ray process imports Ray); a second try finds the files in the page cache
                tail = self._start_head(num_cpus, object_store_mb, start_timeout_s)
                if tail is None:
                    break
                if attempt == self.ATTEMPTS:  # the except below ends this last head
                    raise RuntimeError(f"Ray's head did not start in {attempt} tries; the end of its log:\n{tail}")
                self._end_head()
            ray.init(address=self.address, _node_ip_address="127.0.0.1", log_to_driver=False, configure_logging=False)
        except BaseException:
            # no head and no folder left behind by a start that failed or was interrupted (a cell stopped by
            # the user or by its time limit: the kernel, and the head's parent, live on)
            self._end_head()
            raise

    def _start_head(self, num_cpus: int, object_store_mb: int, timeout_s: float) -> str | None:
        """Start ``ray start --head --block``; None once it is up, else the end of its log."""
        gcs, listen, agent, runtime_env, metrics, node_manager, object_manager = _free_ports(7)
        # a folder of its own (not the shared /tmp/ray): two clusters on one machine never share sessions
        self.temp_dir = tempfile.mkdtemp(prefix="ray-")
        cmd = [
            sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
            f"--port={gcs}", "--node-ip-address=127.0.0.1", f"--num-cpus={num_cpus}", "--num-gpus=0",
            "--include-dashboard=false", "--disable-usage-stats", f"--object-store-memory={object_store_mb << 20}",
            f"--temp-dir={self.temp_dir}",
            f"--dashboard-agent-listen-port={listen}", f"--dashboard-agent-grpc-port={agent}",
            f"--runtime-env-agent-port={runtime_env}", f"--metrics-export-port={metrics}",
            f"--node-manager-port={node_manager}", f"--object-manager-port={object_manager}",
        ]  # fmt: skip
        self.address = f"127.0.0.1:{gcs}"
        self.log = open(os.path.join(self.temp_dir, "head.log"), "w+")  # the head writes it while it runs
        # a session of its own: a failed start leaves daemons that one killpg ends
        self.process = subprocess.Popen(
            cmd,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_end_with_parent,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.process.poll() is None:
            if self.READY in Path(self.log.name).read_text(errors="replace"):
                return None
            time.sleep(0.2)
        tail = Path(self.log.name).read_text(errors="replace").splitlines()[-6:]
        for name in ("raylet.out", "raylet.err", "gcs_server.err"):  # where a daemon that died says why
            log = Path(self.temp_dir, "session_latest", "logs", name)
            if log.exists():
                tail += [f"-- {log}:", *log.read_text(errors="replace").splitlines()[-6:]]
        return "\n".join(tail)

    def _kill_head(self) -> None:
        """SIGTERM the head (it drains and ends its daemons), then SIGKILL whatever is left of its session."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)

    def _end_head(self) -> None:
        """End the head, then remove its folder (its log and session files); nothing to do if none was started."""
        self._kill_head()
        if self.log is not None:
            self.log.close()
        if self.temp_dir:
            shutil.rmtree(self.temp_dir, ignore_errors=True)

    def stop(self) -> None:
        """Disconnect, then end the head and every Ray process it started."""
        import ray

        ray.shutdown()
        self._end_head()

    def __enter__(self) -> RayHead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


_HEAD: RayHead | None = None  # the head this process started last


def start_ray(num_cpus: int, object_store_mb: int = 80) -> RayHead:
    """Start a one-machine Ray cluster and connect this process to it; ``.stop()`` ends it.

    On a real cluster you skip this: its head node runs ``ray start --head``, and your program connects
    with ``ray.init(address="HEAD_HOST:6379")`` (or ``address="auto"`` on a node of the cluster). The
    object store (``object_store_mb``, at least Ray's minimum of 75) is one file in ``/dev/shm``, which the
    grader sizes (its ``shm_mb`` limit); that file must also stay under its ``max_file_bytes`` (100 MiB).
    While a cluster this process started is up, it is returned again (a cell run twice).
    """
    global _HEAD
    import ray

    if _HEAD is not None and _HEAD.process is not None and _HEAD.process.poll() is None and ray.is_initialized():
        return _HEAD  # a cell run twice: the cluster it started is still up
    _HEAD = RayHead(num_cpus, object_store_mb)
    return _HEAD
