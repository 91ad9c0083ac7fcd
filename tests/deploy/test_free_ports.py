"""The ports the hub and the Slurm cluster pick for their daemons (deploy/ports.py) are distinct, even where the
kernel hands a port it has just released out again (it does, about one call in 3,000 on this machine: a CI run's
hub once had its proxy told to listen twice on one port and exit with EADDRINUSE)."""

from __future__ import annotations

import socket

import pytest

from deploy import ports


class _ReissuingSocket:
    """A socket whose ``bind(("127.0.0.1", 0))`` gives the port released last, if any: the worst case of the
    kernel's choice."""

    released: list[int] = []
    next_port = 40000

    def __init__(self, *args) -> None:
        self.port: int | None = None

    def bind(self, address) -> None:
        if self.released:
            self.port = self.released.pop()
        else:
            self.port = _ReissuingSocket.next_port
            _ReissuingSocket.next_port += 1

    def getsockname(self):
        return ("127.0.0.1", self.port)

    def close(self) -> None:
        self.released.append(self.port)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@pytest.fixture
def reissuing(monkeypatch):
    _ReissuingSocket.released = []
    monkeypatch.setattr(socket, "socket", _ReissuingSocket)


def test_the_hub_api_ports_differ_from_each_other_and_from_the_public_port(reissuing):
    public = ports.free_port()
    chosen = ports.free_ports(2, avoid=frozenset({public}))
    assert len(set(chosen)) == 2 and public not in chosen, (public, chosen)


def test_ports_chosen_together_differ(reissuing):
    chosen = ports.free_ports(4)
    assert len(set(chosen)) == 4, chosen


def test_free_ports_are_free_on_this_machine():
    for port in ports.free_ports(3):
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
