"""Real HTTP servers on 127.0.0.1 for tests: stdlib ``http.server`` in a daemon thread, one base handler.

Tests that talk to an OpenAI-compatible endpoint (the expert client, the VLM orchestrator, ``doctor``, the
Registry tab's health check) subclass ``JsonHandler`` with the replies they need and start it with ``serve``:

    with serve(MyHandler, state=state) as base_url:   # "http://127.0.0.1:PORT"
        ...
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class JsonHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive (as real inference servers speak it), quiet logs, JSON replies."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass

    def send_json(self, status: int, payload: dict[str, Any] | bytes) -> None:
        """Reply with ``payload`` (a dict as JSON, or raw bytes sent as they are, broken JSON included)."""
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_json(self) -> dict[str, Any]:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))


def models_reply(*model_ids: str) -> dict[str, Any]:
    """The body of ``GET /v1/models`` for a server serving ``model_ids``."""
    return {"object": "list", "data": [{"id": model_id, "object": "model"} for model_id in model_ids]}


@contextmanager
def serve(handler: type[BaseHTTPRequestHandler], **attributes: Any) -> Iterator[str]:
    """Serve ``handler`` (given ``attributes`` as class attributes, e.g. a shared state) on a free port."""
    bound = type(handler.__name__, (handler,), attributes)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), bound)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def refused_url() -> str:
    """A base URL on which connections are refused: a port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
