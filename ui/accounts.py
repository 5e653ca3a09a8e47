"""Accounts of the web app: a users file in the data directory with a role and an Argon2id password hash per name.

``<data dir>/users.txt`` holds one ``name:role:hash`` line per account (``#`` starts a comment), written by
``maestro users add NAME --role admin|reviewer|annotator`` and ``maestro users role NAME ROLE``. Files written
before roles existed hold ``name:hash`` lines; those still load, as **annotators** (the least privilege: an
upgrade never hands anyone the power to edit the guidelines or export everything; an operator promotes someone
with ``maestro users role NAME admin``). Any write rewrites the whole file in the new form.

Roles, each including the ones below it: ``admin`` (edits the guidelines, exports everything, rebuilds the
handbook, manages users) > ``reviewer`` > ``annotator`` (asks, replays, rates). The check is ``ui.access``.

Hashes are Argon2id through ``argon2-cffi``: the reference implementation's binding, maintained, with a
self-describing encoded string (salt and cost parameters travel inside each hash, so costs can be raised later
without breaking old hashes) and constant-time verification. ``fingerprint(name)`` is a digest of the stored hash:
it changes whenever the password is set (a fresh salt each time) and is gone when the account is removed, which
is how ``ui.login_guard`` ends the sessions of a changed or removed account.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

USERS_FILE = "users.txt"
#: OWASP's recommended Argon2id minimum (19 MiB, 2 passes, 1 lane): ~0.1 s per check on a small CPU.
HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
MIN_PASSWORD = 8
#: Roles from the most to the least powerful; each includes every role after it.
ROLES = ("admin", "reviewer", "annotator")
#: The role of a ``name:hash`` line from before roles existed, and of ``users add`` without ``--role``.
DEFAULT_ROLE = "annotator"
#: The role of the one in-memory account ``--auth user:password`` gives: the operator who started the server.
AUTH_ROLE = "admin"


@dataclass(frozen=True)
class Account:
    role: str
    digest: str


def users_path(data_dir: str | Path) -> Path:
    return Path(data_dir) / USERS_FILE


def check_name(name: str) -> str:
    name = (name or "").strip()
    if not NAME.match(name):
        raise ValueError(f"user names are 1-64 letters, digits, '_', '.', '@' or '-', starting with a letter or "
                         f"digit; got {name!r:.70}")
    return name


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}; got {str(role)[:40]!r}")
    return role


def role_includes(role: str | None, needed: str) -> bool:
    """Whether ``role`` may do what ``needed`` may (admin ⊇ reviewer ⊇ annotator); no role may do nothing."""
    return role in ROLES and ROLES.index(role) <= ROLES.index(check_role(needed))


class Accounts:
    """The users file of one data directory; re-read when it changes, so added users can log in at once and a
    removed one is refused at once."""

    def __init__(self, path: Path, extra: dict[str, Account] | None = None) -> None:
        self.path = path
        self._extra = dict(extra or {})  # e.g. from --auth user:password (never written)
        self._accounts: dict[str, Account] = {}
        self._stamp: tuple[int, int, int] | None = None
        self._lock = threading.Lock()
        # Unknown names are checked against this, so a wrong name costs the same time as a wrong password.
        self._dummy = HASHER.hash("not a password of anyone")

    @classmethod
    def of(cls, data_dir: str | Path, single: tuple[str, str] | None = None) -> Accounts:
        """The accounts of ``data_dir``, plus one in-memory admin account from ``--auth user:password``."""
        extra = {check_name(single[0]): Account(AUTH_ROLE, HASHER.hash(single[1]))} if single else None
        return cls(users_path(data_dir), extra)

    def _load(self) -> dict[str, Account]:
        with self._lock:
            try:
                stat = self.path.stat()
            except FileNotFoundError:
                self._accounts, self._stamp = {}, None
                return {**self._accounts, **self._extra}
            stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)  # a rewrite is a new inode (os.replace)
            if stamp != self._stamp:
                self._accounts, self._stamp = _parse(self.path), stamp
            return {**self._accounts, **self._extra}

    def names(self) -> list[str]:
        return sorted(self._load())

    def roles(self) -> dict[str, str]:
        return {name: account.role for name, account in sorted(self._load().items())}

    def role(self, name: str | None) -> str | None:
        """The role of ``name`` (exactly as written), or None for no such account."""
        account = self._load().get(name or "")
        return account.role if account else None

    def fingerprint(self, name: str | None) -> str | None:
        """A digest of ``name``'s stored hash (None for no such account): equal fingerprints, same password set."""
        account = self._load().get(name or "")
        return hashlib.sha256(account.digest.encode()).hexdigest()[:32] if account else None

    def __bool__(self) -> bool:
        return bool(self._load())

    def verify(self, name: str, password: str) -> bool:
        account = self._load().get(name or "")
        try:
            return HASHER.verify(account.digest if account else self._dummy, password or "") and account is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def add(self, name: str, password: str, role: str | None = None) -> bool:
        """Add ``name`` (as ``role``, default annotator) or set their new password (and ``role`` if given);
        returns True when the name already existed."""
        name = check_name(name)
        if role is not None:
            check_role(role)
        if len(password or "") < MIN_PASSWORD:
            raise ValueError(f"passwords need at least {MIN_PASSWORD} characters")
        accounts = self._read()
        old = accounts.get(name)
        accounts[name] = Account(role or (old.role if old else DEFAULT_ROLE), HASHER.hash(password))
        self._write(accounts)
        return old is not None

    def set_role(self, name: str, role: str) -> str:
        """Give ``name`` the ``role``; returns their role before. Sessions stay: roles are checked per request."""
        check_role(role)
        accounts = self._read()
        old = accounts.get((name or "").strip())
        if old is None:
            raise KeyError(f"no user {name!r:.70} in {self.path}")
        accounts[name.strip()] = Account(role, old.digest)
        self._write(accounts)
        return old.role

    def remove(self, name: str) -> bool:
        accounts = self._read()
        if accounts.pop((name or "").strip(), None) is None:
            return False
        self._write(accounts)
        return True

    def _read(self) -> dict[str, Account]:
        return _parse(self.path) if self.path.exists() else {}

    def _write(self, accounts: dict[str, Account]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = ("# Maestro accounts: name:role:argon2id-hash, role one of admin, reviewer, annotator "
                "(manage with `maestro users add|role|remove`)\n")
        body += "".join(f"{name}:{a.role}:{a.digest}\n" for name, a in sorted(accounts.items()))
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # hashes are secrets too
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(body)
        os.replace(tmp, self.path)


def _parse(path: Path) -> dict[str, Account]:
    accounts: dict[str, Account] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (expected name:role:argon2-hash lines)") from None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.partition(":")
        # Argon2 encodings hold no ':', so "name:$argon2..." is the old form and "name:role:$argon2..." the new.
        role, digest = (DEFAULT_ROLE, rest) if rest.startswith("$argon2") else rest.partition(":")[::2]
        if not NAME.match(name) or role not in ROLES or not digest.startswith("$argon2"):
            raise ValueError(f"{path}:{number}: expected name:role:argon2-hash with a role of {', '.join(ROLES)} "
                             f"(use `maestro users add NAME`)")
        accounts[name] = Account(role, digest)
    return accounts
