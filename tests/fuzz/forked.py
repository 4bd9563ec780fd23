"""One piece of a campaign's work in a forked child, under memory and wall-clock limits (and a CPU limit if asked).

A hostile input may make the code under test loop, exhaust memory or crash
its process; a campaign must record that and go on. The child reports a JSON
dict through a pipe; the parent waits at most the given seconds. Used by the
tamper campaign of evidence bundles and by the soundness campaign.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import time
from collections.abc import Callable
from typing import Any

MEMORY = 3 << 30
"""Address-space limit of the child (3 GiB)."""


def forked(
    work: Callable[[], dict[str, Any]],
    seconds: float,
    memory: int = MEMORY,
    cpu_seconds: int | None = None,
    timeout: str = "hang",
) -> dict[str, Any]:
    """``work()`` in a forked child: its dict; ``{timeout: why}`` past ``seconds`` of wall time; ``{"crash": why}``
    when the child died or did not report (``memory``: its address-space limit; ``cpu_seconds``: its CPU limit)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            if cpu_seconds is not None:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
            payload = json.dumps(work()).encode()
        except BaseException as exc:  # reported to the parent, which decides what it means
            payload = json.dumps({"crash": f"{type(exc).__name__}: {exc}"[:500]}).encode()
        with os.fdopen(write_fd, "wb") as out:
            out.write(payload)
        os._exit(0)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {timeout: f"more than {seconds:.0f} s of wall time"}
            ready, _, _ = select.select([read_fd], [], [], min(remaining, 1.0))
            if ready:
                block = os.read(read_fd, 1 << 16)
                if not block:
                    break
                chunks.append(block)
    finally:
        os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"crash": f"killed by signal {os.WTERMSIG(status)}"}
    try:
        result: dict[str, Any] = json.loads(b"".join(chunks).decode())
    except ValueError:
        return {"crash": "the child ended without reporting"}
    return result
