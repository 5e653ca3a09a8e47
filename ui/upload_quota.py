"""Upload quotas: how many bytes one user, and the whole server, may upload per hour.

Gradio receives every file (the page's image box and ``gradio_client.handle_file`` alike) on its ``/upload`` route
and streams it to a temporary file before any handler runs, so the quota is enforced in front of that route, in
``QuotaGuard`` (ASGI middleware): an upload must declare its ``Content-Length`` and no ``Transfer-Encoding`` (browsers and ``httpx`` do; the
server reads exactly that many bytes), and one that would take its user, or the server, over the limit for the
last hour is answered at once with HTTP 429, a ``Retry-After`` and a sentence naming the limit, before a byte of
it is read. The user is the login name (the session cookie, after ``ui.login_guard.Guard`` has dropped ended
sessions); an app without accounts counts per client address.

Limits (MB per hour, 0 for none) come from ``MAESTRO_UPLOAD_MB_PER_USER`` (default 200: four of the largest
images Maestro accepts) and ``MAESTRO_UPLOAD_MB_PER_SERVER`` (default 1000).
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ui.login_guard import cookie_user, posted_to

WINDOW_S = 3600.0
USER_ENV, SERVER_ENV = "MAESTRO_UPLOAD_MB_PER_USER", "MAESTRO_UPLOAD_MB_PER_SERVER"
DEFAULT_USER_MB, DEFAULT_SERVER_MB = 200, 1000
MB = 1024 * 1024


def _limit(env: str, default: int) -> int:
    raw = os.environ.get(env, "").strip()
    try:
        value = float(raw) if raw else float(default)
    except ValueError:
        raise ValueError(f"{env} must be a number of MB per hour (0 for no limit); got {raw[:40]!r}") from None
    if value < 0 or not math.isfinite(value):
        raise ValueError(f"{env} must be 0 or more; got {raw[:40]!r}")
    return int(value * MB)


@dataclass
class _Window:
    entries: deque[tuple[float, int]] = field(default_factory=deque)
    total: int = 0

    def used(self, now: float) -> int:
        while self.entries and now - self.entries[0][0] >= WINDOW_S:
            self.total -= self.entries.popleft()[1]
        return self.total

    def free_at(self, need: int, limit: int) -> float:
        """When enough of the window has expired for ``need`` more bytes to fit ``limit``."""
        over = self.total + need - limit
        for stamp, size in self.entries:
            over -= size
            if over <= 0:
                return stamp + WINDOW_S
        return time.monotonic() + WINDOW_S


@dataclass
class UploadQuota:
    """Bytes uploaded in the last hour per user and in all; ``take`` admits an upload or says why not."""

    per_user: int = field(default_factory=lambda: _limit(USER_ENV, DEFAULT_USER_MB))
    per_server: int = field(default_factory=lambda: _limit(SERVER_ENV, DEFAULT_SERVER_MB))
    _users: dict[str, _Window] = field(default_factory=dict)
    _server: _Window = field(default_factory=_Window)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, who: str, size: int) -> tuple[str, float] | None:
        """Count ``size`` bytes for ``who`` and return None, or (why not, seconds until it would fit)."""
        now = time.monotonic()
        with self._lock:
            if len(self._users) > 10_000:
                for key in [k for k, w in self._users.items() if not w.used(now)]:
                    del self._users[key]
            mine = self._users.setdefault(who, _Window())
            for window, limit, whose in ((mine, self.per_user, "your"), (self._server, self.per_server, "this server's")):
                if limit and window.used(now) + size > limit:
                    wait = max(1.0, window.free_at(size, limit) - now) if size <= limit else WINDOW_S
                    return (f"Upload refused: {whose} upload quota is {limit / MB:.0f} MB per hour and "
                            f"{window.total / MB:.0f} MB were uploaded in the last hour; this file is "
                            f"{size / MB:.1f} MB. Try again in {math.ceil(wait / 60)} min."), wait
            for window in (mine, self._server):
                window.entries.append((now, size))
                window.total += size
        return None


class QuotaGuard:
    """ASGI middleware applying an ``UploadQuota`` to Gradio's ``/upload`` route."""

    def __init__(self, app: Any, quota: UploadQuota) -> None:
        self.app = app
        self.quota = quota

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if not posted_to(scope, "/upload"):
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers") or []
        length = next((v for k, v in headers if k == b"content-length"), None)
        # With Transfer-Encoding the server reads the chunks, whatever Content-Length says: refuse it, or a
        # "Content-Length: 1" would count one byte for a body of any size.
        if length is None or not length.isdigit() or any(k == b"transfer-encoding" for k, _ in headers):
            await _answer(send, 411, "An upload must say its length (Content-Length).")
            return
        user = cookie_user(scope)
        who = f"user:{user}" if user else f"client:{(scope.get('client') or ('unknown', 0))[0]}"
        refused = self.quota.take(who, int(length))
        if refused is not None:
            await _answer(send, 429, refused[0], retry_after=refused[1])
            return
        await self.app(scope, receive, send)


async def _answer(send: Any, status: int, detail: str, retry_after: float | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(math.ceil(retry_after)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
