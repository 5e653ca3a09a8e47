"""API-only endpoints for scripts: plain data in, plain data out, no chat markup (``gr.api``).

- ``/answer`` (image, question) → ``{run_id, status, answer, reason, confidence, steps}``: runs the agent like the
  Ask tab (the same upload check first, the run stored) and returns the outcome.
- ``/rate`` (run_id, verdict, correction, step) → the saved rating: the same ``Store.add_rating`` path as the
  Rate tab and ``maestro rate``, attributed to the logged-in user.
- ``/run`` (run_id) → one stored run as JSON (``maestro runs show --json`` has the same fields), with its ratings.
- ``/whoami`` () → ``{name, role}`` of the caller.
- ``/users`` () → ``[{name, role}]`` of every account (admins only; accounts are changed with ``maestro users``).

Every endpoint checks the caller's role with ``ui.access.require_role``, the same check the page's handlers make
(these need any account; exporting, editing the guidelines and rebuilding the handbook need an admin).

With accounts (or ``--auth``) the whole app needs a login, these endpoints included:
``Client(url, auth=(name, password))``. Errors come back as a ``gr.Error`` message, never a stack trace.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import gradio as gr

from agents.runtime import InputError, Maestro
from storage.db import jsonable
from ui import web_handbook
from ui.access import access_of, require_role, role_of
from ui.web_ask import ASK_CONCURRENCY, ASK_GROUP, checked_image, rater_name

if TYPE_CHECKING:
    from storage.trace import Run


def answer_payload(run: Run) -> dict[str, Any]:
    """The ``/answer`` reply for a finished run (the ``maestro ask --json`` fields)."""
    return jsonable(run.to_json())


def build_api(maestro: Maestro) -> None:
    """Register the endpoints (call inside the ``gr.Blocks``)."""

    def answer(image: gr.FileData, question: str, request: gr.Request = None) -> dict[str, Any]:  # type: ignore[assignment]
        """Answer QUESTION about IMAGE; returns {run_id, status, answer, reason, confidence, steps}."""
        require_role(maestro, request, "annotator", "ask")
        path, problem = checked_image(image)
        if problem or path is None:
            raise gr.Error(problem or "Send an image (gradio_client.handle_file(path)).")
        try:
            run = maestro.ask(path, question)
        except InputError as exc:
            raise gr.Error(str(exc)) from None
        return answer_payload(run)

    def rate(run_id: str, verdict: str, correction: str = "", step: int | None = None,
             request: gr.Request = None) -> dict[str, Any]:  # type: ignore[assignment]
        """Save the caller's verdict (correct | incorrect | partial) on a run or one step; rating again edits it."""
        require_role(maestro, request, "annotator", "rate")
        rater = rater_name(request)
        try:
            maestro.store.add_rating(str(run_id or "").strip(), rater=rater, verdict=str(verdict or ""),
                                     corrected_answer=correction, step_index=None if step is None else int(step))
        except (KeyError, ValueError) as exc:
            raise gr.Error(str(exc.args[0] if exc.args else exc)) from None
        web_handbook.feedback(maestro, run_id)
        saved = maestro.store.rating_of(run_id, rater, None if step is None else int(step))
        return jsonable(asdict(saved)) if saved is not None else {}

    def run(run_id: str, request: gr.Request = None) -> dict[str, Any]:  # type: ignore[assignment]
        """One stored run as JSON: question, status, answer, reason, steps with tool calls, live ratings."""
        require_role(maestro, request, "annotator", "read runs")
        record = maestro.store.get_run(str(run_id or "").strip().lower())
        if record is None:
            raise gr.Error(f"No run {str(run_id)[:40]!r} in this data directory.")
        return jsonable(asdict(record))

    gr.api(answer, api_name="answer", concurrency_id=ASK_GROUP, concurrency_limit=ASK_CONCURRENCY)
    gr.api(rate, api_name="rate", concurrency_limit=None)
    gr.api(run, api_name="run", concurrency_limit=None)

    def whoami(request: gr.Request = None) -> dict[str, Any]:  # type: ignore[assignment]
        """The caller's login name and role (admin | reviewer | annotator)."""
        return {"name": rater_name(request), "role": role_of(maestro, request)}

    gr.api(whoami, api_name="whoami", concurrency_limit=None)

    def users(request: gr.Request = None) -> list[dict[str, str]]:  # type: ignore[assignment]
        """Every account's name and role (admins only)."""
        require_role(maestro, request, "admin", "list the accounts")
        return [{"name": n, "role": r} for n, r in access_of(maestro).accounts.roles().items()]

    gr.api(users, api_name="users", concurrency_limit=None)
