"""Logins an attacker cannot use to lock anyone out, and sessions that end with their account.

**Throttling** is per (client address, exact name): a guesser's wrong passwords slow down only that client's
attempts for that name, never the same name from another client (the account's owner) and never another name
(names are compared exactly, as typed). The first ``FREE_ATTEMPTS`` wrong passwords are checked at once; after that
each further wrong one closes the pair for 1, 2, 4 … (at most 30) seconds. An attempt that arrives while its pair
is closed, or while as many attempts as are still free are being checked, is answered at once with HTTP 429 and a
``Retry-After`` header: nothing waits, sleeps or queues, so parallel guesses cost the server nothing but the
answer. A right password clears the pair. Hashing runs in a worker thread, off the event loop.

**Sessions**: Gradio keeps login tokens in ``App.tokens`` (token -> name) and sets them as cookies. ``Guard``, an
ASGI middleware given to ``launch(app_kwargs={"middleware": ...})``, sees each login's reply and records the token
with the fingerprint of the password hash that was checked (``Accounts.fingerprint``). On every request it looks
up the cookie's token: when the account is gone or its password has changed since (fingerprint differs), or the
token was never recorded, the token is deleted from ``App.tokens`` before Gradio looks at it, so the API answers
401 and the page shows the login form.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from typing import Any

from fastapi import HTTPException

from ui.access import Access

#: Wrong passwords for one (client, name) that are checked without a pause.
FREE_ATTEMPTS = 3
MAX_DELAY_S = 30.0
#: A pair's failures are forgotten after this long without attempts.
FORGET_AFTER_S = 15 * 60
#: How many (client, name) pairs are kept before stale ones are dropped.
MAX_PAIRS = 10_000

#: Per login request: the client's address in, the (name, fingerprint) that passed the password check out.
_LOGIN: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("maestro_login", default=None)


class Throttled(HTTPException):
    """HTTP 429 with ``Retry-After``: raised inside Gradio's login route, answered by FastAPI as is."""

    def __init__(self, seconds: float) -> None:
        wait = max(1, math.ceil(seconds))
        super().__init__(status_code=429, headers={"Retry-After": str(wait)},
                         detail=f"Too many wrong passwords from here for this name: try again in {wait} s.")


@dataclass
class _Pair:
    failures: int = 0
    checking: int = 0
    closed_until: float = 0.0
    last: float = 0.0


@dataclass
class LoginThrottle:
    """Wrong passwords per (client, name) and until when the pair is closed."""

    _pairs: dict[tuple[str, str], _Pair] = field(default_factory=dict)

    @staticmethod
    def delay(failures: int) -> float:
        """Seconds a pair stays closed after its ``failures``-th wrong password in a row."""
        return 0.0 if failures < FREE_ATTEMPTS else min(MAX_DELAY_S, 2.0 ** (failures - FREE_ATTEMPTS))

    def admit(self, client: str, name: str) -> tuple[str, str]:
        """Start checking an attempt (the key to pass to ``done``), or raise ``Throttled``. Runs on the event
        loop without awaiting, so admission and counting are atomic."""
        now = time.monotonic()
        if len(self._pairs) > MAX_PAIRS:  # many made-up names: forget the stale pairs, then the never-closed ones
            for key in [k for k, p in self._pairs.items() if now - p.last > FORGET_AFTER_S and not p.checking]:
                del self._pairs[key]
        if len(self._pairs) > MAX_PAIRS:  # a closed pair is kept: forgetting it would reopen it to its guesser
            for key in [k for k, p in self._pairs.items() if p.failures < FREE_ATTEMPTS and not p.checking]:
                del self._pairs[key]
        key = (client, name)
        pair = self._pairs.setdefault(key, _Pair(last=now))
        if now - pair.last > FORGET_AFTER_S and not pair.checking:
            pair.failures, pair.closed_until = 0, 0.0
        if now < pair.closed_until:
            raise Throttled(pair.closed_until - now)
        if pair.failures + pair.checking >= FREE_ATTEMPTS and pair.checking:
            raise Throttled(1.0)  # the attempts being checked decide whether the pair closes
        pair.checking += 1
        pair.last = now
        return key

    def done(self, key: tuple[str, str], ok: bool) -> None:
        pair = self._pairs.setdefault(key, _Pair())
        pair.checking = max(0, pair.checking - 1)
        pair.last = time.monotonic()
        if ok:
            pair.failures, pair.closed_until = 0, 0.0
            return
        pair.failures += 1
        wait = self.delay(pair.failures)
        if wait:
            pair.closed_until = max(pair.closed_until, pair.last + wait)


def login_check(access: Access, throttle: LoginThrottle | None = None) -> Callable[[str, str], Awaitable[bool]]:
    """The ``auth`` coroutine function for ``gr.Blocks.launch`` (see the module docstring).

    It must be a plain ``async def``: Gradio awaits only what ``inspect.iscoroutinefunction`` recognises, and would
    take an un-awaited coroutine object for a successful login."""
    throttle = throttle or LoginThrottle()

    async def check(username: str, password: str) -> bool:
        state = _LOGIN.get()
        name = username or ""
        # No account name is longer than 64 characters: longer ones share one key, so made-up names of a megabyte
        # each cannot fill memory with throttle pairs.
        key = throttle.admit(str((state or {}).get("client") or "unknown"), name if len(name) <= 64 else name[:65])
        ok = False
        try:
            fingerprint = access.accounts.fingerprint(name)  # taken before the check: a change after it ends it
            ok = await asyncio.to_thread(access.accounts.verify, name, password)
        finally:
            throttle.done(key, ok)
        if ok and state is not None and fingerprint is not None:
            state["verified"] = (name, fingerprint)
        return ok and state is not None  # a login that the guard did not see could never be recorded

    return check


def _cookies(scope: dict[str, Any]) -> SimpleCookie:
    jar: SimpleCookie = SimpleCookie()
    for key, value in scope.get("headers") or []:
        if key == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except CookieError:
                continue
    return jar


def posted_to(scope: dict[str, Any], route: str) -> bool:
    """Whether the request is an HTTP POST to Gradio's ``route`` (under any mount prefix, with or without "/")."""
    path = str(scope.get("path") or "").rstrip("/")
    return scope["type"] == "http" and scope.get("method") == "POST" and path.endswith(route)


def cookie_user(scope: dict[str, Any]) -> str | None:
    """The login name of the request's session cookie (None without a live session)."""
    tokens: dict[str, str] = getattr(scope.get("app"), "tokens", None) or {}
    for morsel in _cookies(scope).values():
        if morsel.key.startswith("access-token") and morsel.value in tokens:
            return tokens[morsel.value]
    return None


class Guard:
    """ASGI middleware: records the sessions logins start, and ends those whose account changed or went away."""

    def __init__(self, app: Any, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        gradio_app = scope.get("app")
        tokens: dict[str, str] | None = getattr(gradio_app, "tokens", None)
        if tokens:
            self._end_stale(tokens, _cookies(scope))
        if not posted_to(scope, "/login"):
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("unknown", 0))[0]
        state: dict[str, Any] = {"client": client}
        reset = _LOGIN.set(state)
        prefix = f"access-token-{getattr(gradio_app, 'cookie_id', '')}=".encode()

        async def send_recording(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 200 and "verified" in state:
                for key, value in message.get("headers") or []:
                    if key.lower() == b"set-cookie" and value.startswith(prefix):
                        token = value[len(prefix):].split(b";", 1)[0].decode("latin-1").strip('"')
                        self.access.sessions[token] = state["verified"]
            await send(message)

        try:
            await self.app(scope, receive, send_recording)
        finally:
            _LOGIN.reset(reset)

    def _end_stale(self, tokens: dict[str, str], jar: SimpleCookie) -> None:
        accounts, sessions = self.access.accounts, self.access.sessions
        for morsel in jar.values():
            if not morsel.key.startswith("access-token"):
                continue
            token = morsel.value
            name = tokens.get(token)
            if name is None:
                continue
            recorded = sessions.get(token)
            if recorded is None or recorded[0] != name or accounts.fingerprint(name) != recorded[1]:
                tokens.pop(token, None)
                sessions.pop(token, None)
        if len(sessions) > 2 * len(tokens) + 1000:  # logged-out tokens: forget them
            for token in [t for t in sessions if t not in tokens]:
                sessions.pop(token, None)
