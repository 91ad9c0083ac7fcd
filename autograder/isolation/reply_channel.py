"""A kernel client that never sleeps through a reply it has already received.

nbclient (behind nbgrader, ``jupyter nbconvert --execute`` and this project's
grading) waits for a cell's ``execute_reply`` with one long
``await shell_channel.get_msg(timeout=<cell timeout>)``: a ``zmq.asyncio``
poll on the shell socket. While it waits, a cell that writes into an
ipywidgets ``Output`` widget (``interact``, ``with out: plt.show()``) makes
nbclient's Output-widget stand-in (``nbclient.output_widget.OutputWidget``)
*send* a ``comm_msg`` on that same shell socket. ZeroMQ announces incoming
messages through an edge-triggered file descriptor, and a send processes the
socket's pending commands: when the reply arrived just before the send, the
edge is spent and the poll sleeps until its timeout, then finds the reply at
once. The cell "hangs" for the whole cell timeout with the kernel idle; a busy
machine widens the window. Measured here (lab01's roofline explorer, three CPU
burners, three runs at a time): 5 of 15 runs waited the full timeout with
nbclient's client, 0 of 15 with nbclient's widget sends switched off.
Upstream: jupyter/nbclient issue 312 and pull request 311 (both open); the
maintainers' view is that ``get_msg`` should not miss the message.

The fix here: :class:`PromptShellChannel` polls in slices of
:data:`POLL_SLICE_S` until the deadline, and each new poll looks at the socket
afresh, so a missed edge costs at most one slice. Use it through
:class:`PromptKernelManager` (``NotebookClient(nb,
kernel_manager_class=PromptKernelManager)``, or
``--NotebookClient.kernel_manager_class=autograder.isolation.reply_channel.PromptKernelManager``
for ``jupyter nbconvert --execute``); the sandboxed grading kernels use it too.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type

POLL_SLICE_S = 0.25  # longest extra wait for a reply whose wake-up was missed


class PromptShellChannel(AsyncZMQSocketChannel):
    """The shell channel, with ``get_msg`` polling in slices of :data:`POLL_SLICE_S` seconds."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message, or ``queue.Empty`` after ``timeout`` seconds (``None``: wait for ever)."""
        assert self.socket is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            wait_s = POLL_SLICE_S if left is None else min(POLL_SLICE_S, left)
            if await self.socket.poll(int(wait_s * 1000)):
                return await self._recv()
            if left is not None and left <= POLL_SLICE_S:
                raise Empty


class PromptKernelClient(AsyncKernelClient):
    """nbclient's asynchronous kernel client with :class:`PromptShellChannel`."""

    shell_channel_class = Type(PromptShellChannel)  # type: ignore[arg-type]


class PromptKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` whose clients are :class:`PromptKernelClient`."""

    # AsyncKernelManager gives client_factory a fixed default, so the class is named in both traits
    client_class = DottedObjectName("autograder.isolation.reply_channel.PromptKernelClient")
    client_factory = Type(PromptKernelClient, klass=AsyncKernelClient)
