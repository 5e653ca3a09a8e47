"""Who may do what in the web app: one server-side role check for the Gradio UI handlers and the HTTP API alike.

``launch`` binds an ``Access`` (the data directory's accounts, plus ``--auth``) to the application object;
every handler that does something only some roles may do calls

    require_role(maestro, request, "admin", "edit the guidelines")

before it acts. The role is read from the accounts file on every call (a promotion or demotion takes effect at
the next click, no new login needed); a request without a logged-in account has no role and is refused. The page
also hides what a role cannot use (``allowed``), but hiding is a courtesy: the check in the handler is the rule.

Without any account the app has no login at all (it listens on 127.0.0.1 unless told otherwise) and its one
user, ``anonymous``, may do everything, as before accounts existed.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import gradio as gr

from ui.accounts import ROLES, Accounts, role_includes

if TYPE_CHECKING:
    from agents.runtime import Maestro

#: The user of an app without accounts (no login), and the role that user has.
ANONYMOUS = "anonymous"
OPEN_ROLE = "admin"


@dataclass
class Access:
    """The accounts one served app checks logins and roles against, and the sessions it has issued."""

    accounts: Accounts
    #: login token -> (name, fingerprint of the password hash at login); see ``ui.login_guard``.
    sessions: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        """True when there are no accounts at all: no login, everyone is ``anonymous`` with every right."""
        return not self.accounts

    def role(self, name: str | None) -> str | None:
        if not name:
            return None
        return self.accounts.role(name)


#: id(Maestro) -> Access (Maestro is an unhashable dataclass); an entry goes when its Maestro is collected.
_BOUND: dict[int, Access] = {}


def bind(maestro: Maestro, access: Access) -> Access:
    """Make ``access`` the one that handlers serving ``maestro`` check against."""
    key = id(maestro)
    if key not in _BOUND:
        weakref.finalize(maestro, _BOUND.pop, key, None)
    _BOUND[key] = access
    return access


def access_of(maestro: Maestro) -> Access:
    """The bound ``Access``, or (for an app served some other way) the data directory's accounts."""
    found = _BOUND.get(id(maestro))
    if found is None:
        found = bind(maestro, Access(Accounts.of(Path(maestro.store.data_dir))))
    return found


def user_of(request: gr.Request | None) -> str | None:
    name = getattr(request, "username", None) if request is not None else None
    return str(name) if name else None


def role_of(maestro: Maestro, request: gr.Request | None) -> str | None:
    """The caller's role now: from the accounts file for a logged-in user, ``admin`` for the open app's
    anonymous user, None for anyone else (e.g. a request without a session on an app with accounts)."""
    access = access_of(maestro)
    name = user_of(request)
    if name is None:
        return OPEN_ROLE if access.open else None
    return access.role(name)


def allowed(maestro: Maestro, request: gr.Request | None, role: str) -> bool:
    return role_includes(role_of(maestro, request), role)


def require_role(maestro: Maestro, request: gr.Request | None, role: str, action: str) -> str:
    """The caller's name when their role includes ``role``; otherwise ``gr.Error`` saying who may ``action``."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    have = role_of(maestro, request)
    if not role_includes(have, role):
        who = user_of(request) or ANONYMOUS
        what = f"you are {who}, {_article(have)}" if have else f"{who} has no account here"
        raise gr.Error(f"Only {_article(role, plural=True)} can {action} ({what}).", print_exception=False)
    return user_of(request) or ANONYMOUS


def _article(role: str | None, plural: bool = False) -> str:
    if plural:
        return {"admin": "admins", "reviewer": "reviewers or admins", "annotator": "logged-in users"}[str(role)]
    return f"an {role}" if str(role)[:1] in "aeiou" else f"a {role}"
