"""The time budget of one run, visible to everything the run calls (experts, retries, fallbacks) without threading it
through every signature.

``run_budget(seconds)`` opens the budget for the code inside it (a context variable, so concurrent runs in other
threads have their own); budgets nest, and an inner one never outlasts the one around it (the k samples of a
self-consistency call each open a run's budget inside the call's own, and the call's threads copy the context so
its deadline holds there too); ``remaining()`` says how much is left and ``cap(timeout)`` shortens a timeout to fit. An
expert back end calls ``cap`` before each attempt and gives up retrying when the budget is spent, so a run with a
dead expert ends within its budget instead of after every retry of every fallback.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("maestro_run_deadline", default=None)

#: A call is not started with less than this left: it could not finish, and the run must still be closed.
MIN_USEFUL_S = 0.25


class BudgetExceeded(TimeoutError):
    """The run's time budget is spent; the message says so in words a user understands."""


@contextmanager
def run_budget(seconds: float | None) -> Iterator[None]:
    """Give the code inside ``seconds`` of wall time (None: unlimited), never more than an enclosing budget has left."""
    outer = _deadline.get()
    inner = None if seconds is None else time.monotonic() + float(seconds)
    deadline = outer if inner is None else inner if outer is None else min(outer, inner)
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float | None:
    """Seconds left in the current run's budget, or None when there is no budget."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def cap(timeout: float) -> float:
    """``timeout`` shortened to what the budget has left; raises ``BudgetExceeded`` when too little is left."""
    left = remaining()
    if left is None:
        return timeout
    if left < MIN_USEFUL_S:
        raise BudgetExceeded("the run's time budget is spent")
    return min(timeout, left)


def check() -> None:
    """Raise ``BudgetExceeded`` when the budget is spent."""
    cap(MIN_USEFUL_S)
