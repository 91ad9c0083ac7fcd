"""Free TCP ports on 127.0.0.1 for the daemons the deploy scripts start: the hub, its proxy, the formgraders, Slurm."""

from __future__ import annotations

import socket


def free_ports(n: int, avoid: frozenset[int] = frozenset()) -> list[int]:
    """``n`` distinct TCP ports free on 127.0.0.1 now, none of them in ``avoid``.

    The sockets stay bound until all are chosen: the kernel hands a port it has just released out again (about
    one call in 3,000 here), and a daemon told to listen twice on one port exits with EADDRINUSE.
    """
    socks: list[socket.socket] = []
    try:
        while len([s for s in socks if s.getsockname()[1] not in avoid]) < n:
            socks.append(socket.socket())
            socks[-1].bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks if s.getsockname()[1] not in avoid]
    finally:
        for s in socks:
            s.close()


def free_port() -> int:
    """One TCP port free on 127.0.0.1 now."""
    return free_ports(1)[0]
