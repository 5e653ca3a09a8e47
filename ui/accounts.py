"""Annotator accounts: a users file in the data directory with Argon2id password hashes, and a login check that
slows down repeated wrong passwords.

``<data dir>/users.txt`` holds one ``name:hash`` line per annotator (``#`` starts a comment), written by
``maestro users add NAME``. Hashes are Argon2id through ``argon2-cffi``: the reference implementation's binding,
maintained, with a self-describing encoded string (salt and cost parameters travel inside each hash, so costs can
be raised later without breaking old hashes) and constant-time verification. Stdlib ``hashlib.scrypt`` would
have avoided a dependency but leaves the encoding, salting and comparison to our own code.

``login_check(accounts)`` builds the coroutine Gradio's ``launch(auth=...)`` calls with (username, password):
after three wrong passwords for a name, each further attempt for that name waits 1, 2, 4 … (at most 30) seconds
before it is even checked, attempts for one name are checked one at a time (parallel guesses queue up), and a
right password clears the count. Waiting is ``asyncio.sleep`` and hashing runs in a worker thread, so neither
blocks the server's event loop.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

USERS_FILE = "users.txt"
#: OWASP's recommended Argon2id minimum (19 MiB, 2 passes, 1 lane): ~0.1 s per check on a small CPU.
HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
MIN_PASSWORD = 8
#: Wrong passwords for one name that are checked at once; from then on each attempt waits (seconds, doubling).
FREE_ATTEMPTS = 3
MAX_DELAY_S = 30.0
#: A name's failures are forgotten after this long without attempts.
FORGET_AFTER_S = 15 * 60


def users_path(data_dir: str | Path) -> Path:
    return Path(data_dir) / USERS_FILE


def check_name(name: str) -> str:
    name = (name or "").strip()
    if not NAME.match(name):
        raise ValueError(f"user names are 1-64 letters, digits, '_', '.', '@' or '-', starting with a letter or "
                         f"digit; got {name!r:.70}")
    return name


class Accounts:
    """The users file of one data directory; re-read when it changes, so added users can log in at once."""

    def __init__(self, path: Path, extra: dict[str, str] | None = None) -> None:
        self.path = path
        self._extra = dict(extra or {})  # name -> hash, e.g. from --auth user:password (never written)
        self._hashes: dict[str, str] = {}
        self._stamp: tuple[float, int] | None = None
        self._lock = threading.Lock()
        # Unknown names are checked against this, so a wrong name costs the same time as a wrong password.
        self._dummy = HASHER.hash("not a password of anyone")

    @classmethod
    def of(cls, data_dir: str | Path, single: tuple[str, str] | None = None) -> Accounts:
        """The accounts of ``data_dir``, plus one in-memory account from ``--auth user:password``."""
        extra = {check_name(single[0]): HASHER.hash(single[1])} if single else None
        return cls(users_path(data_dir), extra)

    def _load(self) -> dict[str, str]:
        with self._lock:
            try:
                stat = self.path.stat()
            except FileNotFoundError:
                self._hashes, self._stamp = {}, None
                return {**self._hashes, **self._extra}
            stamp = (stat.st_mtime, stat.st_size)
            if stamp != self._stamp:
                self._hashes, self._stamp = _parse(self.path), stamp
            return {**self._hashes, **self._extra}

    def names(self) -> list[str]:
        return sorted(self._load())

    def __bool__(self) -> bool:
        return bool(self._load())

    def verify(self, name: str, password: str) -> bool:
        stored = self._load().get((name or "").strip())
        try:
            return HASHER.verify(stored or self._dummy, password or "") and stored is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def add(self, name: str, password: str) -> bool:
        """Add ``name`` or set their new password; returns True when the name already existed."""
        name = check_name(name)
        if len(password or "") < MIN_PASSWORD:
            raise ValueError(f"passwords need at least {MIN_PASSWORD} characters")
        hashes = _parse(self.path) if self.path.exists() else {}
        existed = name in hashes
        hashes[name] = HASHER.hash(password)
        self._write(hashes)
        return existed

    def remove(self, name: str) -> bool:
        hashes = _parse(self.path) if self.path.exists() else {}
        if hashes.pop((name or "").strip(), None) is None:
            return False
        self._write(hashes)
        return True

    def _write(self, hashes: dict[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = "# Maestro annotator accounts: name:argon2id-hash (manage with `maestro users add|remove`)\n"
        body += "".join(f"{name}:{digest}\n" for name, digest in sorted(hashes.items()))
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # hashes are secrets too
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(body)
        os.replace(tmp, self.path)


def _parse(path: Path) -> dict[str, str]:
    hashes: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, digest = line.partition(":")
        if not sep or not NAME.match(name) or not digest.startswith("$argon2"):
            raise ValueError(f"{path}:{number}: expected name:argon2-hash (use `maestro users add NAME`)")
        hashes[name] = digest
    return hashes


@dataclass
class _Attempts:
    failures: int = 0
    last: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class LoginThrottle:
    """Consecutive wrong passwords per name, and how long the next attempt for that name must wait."""

    _by_name: dict[str, _Attempts] = field(default_factory=dict)

    def entry(self, name: str) -> _Attempts:
        now = time.monotonic()
        if len(self._by_name) > 10_000:  # many made-up names: forget the stale ones
            for key in [k for k, v in self._by_name.items() if now - v.last > FORGET_AFTER_S and not v.lock.locked()]:
                del self._by_name[key]
        entry = self._by_name.setdefault(name.strip().lower(), _Attempts(last=now))
        if now - entry.last > FORGET_AFTER_S:
            entry.failures = 0
        return entry

    @staticmethod
    def delay(failures: int) -> float:
        return 0.0 if failures < FREE_ATTEMPTS else min(MAX_DELAY_S, 2.0 ** (failures - FREE_ATTEMPTS))


def login_check(accounts: Accounts, throttle: LoginThrottle | None = None) -> Callable[[str, str], Awaitable[bool]]:
    """The ``auth`` coroutine function for ``gr.Blocks.launch`` (see the module docstring).

    It must be a plain ``async def``: Gradio awaits only what ``inspect.iscoroutinefunction`` recognises, and would
    take an un-awaited coroutine object for a successful login."""
    throttle = throttle or LoginThrottle()

    async def check(username: str, password: str) -> bool:
        entry = throttle.entry(username or "")
        async with entry.lock:
            wait = throttle.delay(entry.failures)
            if wait:
                await asyncio.sleep(wait)
            ok = await asyncio.to_thread(accounts.verify, username, password)
            entry.failures = 0 if ok else entry.failures + 1
            entry.last = time.monotonic()
        return ok

    return check
