"""A game server for tests: uvicorn in a thread on 127.0.0.1 (a free port), stopped at the end.

`RunningServer.hub` is the server's lobby object, for tests that look at the
state a frame was sent from (the hidden-information test's hook runs on the
server's own loop, at the moment each frame is queued)."""
from __future__ import annotations

import socket
import threading
import time
import warnings
from contextlib import contextmanager
from typing import Any, Iterator

from trainer.server.app import Hub, ServerConfig, create_app

with warnings.catch_warnings():
    # Starlette 1.x prefers httpx2 for its TestClient; httpx works the same for these tests
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: F401 - re-exported for the server tests


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RunningServer:
    def __init__(self, hub: Hub, port: int):
        self.hub = hub
        self.port = port
        self.url = f"ws://127.0.0.1:{port}/ws"


@contextmanager
def running_server(config: ServerConfig) -> Iterator[RunningServer]:
    import uvicorn
    hub = Hub(config)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(hub=hub), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on", ws_max_size=65_536))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield RunningServer(hub, port)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        assert not thread.is_alive(), "the test server did not stop"


def walk_strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (keys included)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack += list(item.keys()) + list(item.values())
        elif isinstance(item, list):
            stack += item
