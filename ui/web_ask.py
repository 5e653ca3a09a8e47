"""The Ask tab: upload, paste or pick an image, ask, watch the run stream in step by step, rate the answer.

``maestro.ask`` runs in a worker thread; its events go through a queue to a generator that, after each event,
re-reads the run from storage and renders it with ``ui.render.render_run`` — the same function Replay uses, so a
live run and its replay are identical by construction. The loop's ``action`` event (a pair chosen, its skill not
yet finished) titles the pending step, e.g. ``Tools@@OCR · reading text…``. Chat events share their own
concurrency group, so rating and browsing never queue behind a run. A saved thumbs rating goes straight to the
skill handbook (``ui.web_handbook.feedback``), so routing learns from it at once.

Enter in the question submits (Shift+Enter starts a new line). While a run goes, Ask is disabled and Stop sets the
run's cancel event (``Maestro.ask(..., cancel=)``): the run ends after the step in flight and is stored as
``cancelled``. The outcome is repeated in a box above the chat, so it stays in view while the steps collapse. The
image is never decoded by Gradio: uploads are checked from their header first (``ui.web_upload``).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr

from agents.runtime import InputError, Maestro
from storage import team
from storage.trace import Event
from ui import render, web_handbook
from ui.web_conversation import (
    Turn,
    build_history,
    earlier_turns,
    history_choices,
    next_turn,
    open_conversation,
)
from ui.web_evidence import EvidencePanel
from ui.web_upload import check_upload, discard, payload_name, payload_path

if TYPE_CHECKING:
    from storage import RunRecord

log = logging.getLogger(__name__)

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "assets" / "examples"
#: Runs allowed at once across all sessions (the machine is a small CPU box; more would just thrash).
ASK_CONCURRENCY = 2
ASK_GROUP = "ask"
_DONE = object()
#: The cancel event of the run in flight, per browser session (Stop finds its run here).
_IN_FLIGHT: dict[str, threading.Event] = {}


def rater_name(request: gr.Request | None) -> str:
    """The logged-in user, or ``anonymous`` when the app runs without ``--auth``."""
    name = getattr(request, "username", None) if request is not None else None
    return str(name) if name else "anonymous"


def image_file(maestro: Maestro) -> render.ImageFile:
    """Resolve an image id to its file in the image store (``None`` for a missing or malformed id)."""
    def resolve(image_id: str) -> Path | None:
        try:
            path = maestro.store.images.path(image_id)
        except ValueError:
            return None
        return path if path.is_file() else None

    return resolve


def examples() -> list[list[str]]:
    """The bundled ``[image path, question]`` pairs listed in ``assets/examples/examples.json``."""
    listing = EXAMPLES_DIR / "examples.json"
    if not listing.is_file():
        return []
    rows = json.loads(listing.read_text(encoding="utf-8"))
    return [[str(EXAMPLES_DIR / r["image"]), r["question"]] for r in rows if (EXAMPLES_DIR / r["image"]).is_file()]


def ask_stream(maestro: Maestro, image: str | None, question: str, cancel: threading.Event | None = None,
               turn: Turn | None = None, owner: str = "anonymous") -> Iterator[tuple[list[gr.ChatMessage], str]]:
    """Yield ``(chat messages, run id)`` as the run grows: the question at once, then after every event. With a
    ``turn`` (``ui.web_conversation``) the run is stored as the conversation's next turn, shown below the earlier
    ones, and a follow-up reads the stored image and reuses its stored tool outputs."""
    question = (question or "").strip()
    if not image:
        yield [render.error_message("Upload or paste an image first, or pick one of the examples.")], ""
        return
    if not question:
        yield [render.error_message("Type a question about the image.")], ""
        return
    events: queue.Queue[Any] = queue.Queue()

    def work() -> None:
        try:
            if turn is None:
                maestro.ask(image, question, on_event=events.put, cancel=cancel)
            else:
                maestro.ask(turn.image, question, on_event=events.put, cancel=cancel, tool_cache=turn.tool_cache,
                            stored_image=turn.follow_up)
        except InputError as exc:
            events.put(("error", str(exc)))
        except Exception as exc:  # never a stack trace in the page: the message, with the details in the log
            log.exception("ask failed")
            events.put(("error", f"Something went wrong: {type(exc).__name__}: {exc}"))
        finally:
            events.put(_DONE)

    threading.Thread(target=work, name="maestro-ask", daemon=True).start()
    resolve = image_file(maestro)
    earlier = earlier_turns(maestro, turn.conversation_id) if turn is not None and turn.follow_up else []
    asked = render.question_messages(question, render.file_data(image))
    history = earlier + asked + [render.pending_message(0)]
    run_id = ""
    yield history, run_id
    errors: list[str] = []
    action: Any = None  # the chosen step whose skill is running, until storage holds it finished
    skill_names = maestro.registry.skill_names.resolve
    finished = False
    while not finished:
        batch = _drain(events)  # the worker may be ahead: render once per batch, from what storage holds now
        finished = batch[-1] is _DONE
        for item in batch:
            if isinstance(item, Event):
                if turn is not None and item.run.id and not run_id:  # stored: make it the conversation's turn
                    team.link_turn(maestro.store, item.run.id, turn.conversation_id, owner)
                run_id = item.run.id or run_id
                if item.kind == "action":
                    action = item.step
            elif isinstance(item, tuple):
                errors.append(item[1])
        record = maestro.store.get_run(run_id) if run_id else None
        if record is not None:
            history = earlier + render.render_run(record, resolve, in_flight=_in_flight(record), action=action,
                                                  resolve=skill_names)
        if errors:
            shown = [m for m in history if (m.metadata or {}).get("status") != "pending"]
            yield shown + [render.error_message(e) for e in errors], run_id
        else:
            yield history, run_id


def checked_image(payload: Any) -> tuple[str | None, str | None]:
    """(path, None) for an acceptable un-preprocessed image value, (None, why not) otherwise; a refused
    temporary upload is deleted at once."""
    path = payload_path(payload)
    if path is None:
        return None, None
    problem = check_upload(path, payload_name(payload))
    if problem:
        discard(path)
        return None, problem
    return path, None


def _drain(events: queue.Queue[Any]) -> list[Any]:
    """Block for one item, then take whatever else is already queued."""
    batch = [events.get()]
    while batch[-1] is not _DONE:
        try:
            batch.append(events.get_nowait())
        except queue.Empty:
            break
    return batch


def _in_flight(record: RunRecord) -> bool:
    """A running run has a step in flight unless its last step is the answer (only the finish is left)."""
    if record.status != "running":
        return False
    return not (record.steps and record.steps[-1].kind == "answer" and record.steps[-1].status != "error")


def save_quick_rating(maestro: Maestro, run_id: str, verdict: str, corrected: str | None,
                      request: gr.Request | None) -> str:
    """Store a thumbs up/down (with the corrected answer if one was typed); returns a line for the page."""
    if not run_id:
        return "Ask a question first: there is no run to rate yet."
    record = maestro.store.get_run(run_id)
    if record is None:
        return f"Run {run_id} was not found."
    if record.status == "running":
        return "The run is still going: rate it when the answer is in."
    corrected = (corrected or "").strip() or None
    maestro.store.add_rating(run_id, rater=rater_name(request), verdict=verdict, corrected_answer=corrected)
    if record.status == "abstained":
        label = "right to abstain" if verdict == "correct" else "should have answered"
    else:
        label = "correct" if verdict == "correct" else "incorrect"
    extra = f", corrected answer: {render.md_escape(corrected)}" if corrected else ""
    learned = web_handbook.feedback(maestro, run_id)
    return f"Saved: {label}{extra} (rated as {render.md_escape(rater_name(request))}).{learned}"


def turn_line(maestro: Maestro, run_id: str) -> str:
    """Which turn of its conversation a run is, and how many of its tool calls reused stored outputs."""
    conversation = team.conversation_of(maestro.store, run_id) if run_id else None
    record = maestro.store.get_run(run_id) if conversation else None
    if record is None or conversation is None:
        return ""
    turn = team.conversation_runs(maestro.store, conversation).index(run_id) + 1
    calls = [c for s in record.steps for c in s.tool_calls]
    reused = sum(bool(c.reused) for c in calls)
    cache = f" · {reused} of {len(calls)} tool calls reused stored outputs" if turn > 1 and calls else ""
    return (f"<sub>Turn {turn} of conversation {conversation[:8]} · ask again about this image to follow up, or "
            f"New conversation{cache}</sub>")


def outcome_line(maestro: Maestro, run_id: str) -> str:
    """The outcome box above the chat: the answer (or abstention, stop, failure) of the run, as text."""
    record = maestro.store.get_run(run_id) if run_id else None
    if record is None:
        return ""
    meaning = (" Rate it: Correct = right to abstain, Incorrect = it should have answered (type that answer below)."
               if record.status == "abstained" else "")
    return render.outcome_text(record) + meaning


def build_ask_tab(maestro: Maestro) -> dict[str, Any]:
    """The Ask tab's components and events (call inside a ``gr.Tab``). On a narrow screen the two columns stack
    with the answer first and the examples last (``ui.web_assets``: ``#ask-row``)."""
    history = build_history(maestro)
    conversation = gr.State(None)  # {"id", "image_id"} of the conversation a next question continues
    with gr.Row(elem_id="ask-row"):
        with gr.Column(scale=2, min_width=300, elem_id="ask-left"):
            image = gr.Image(label="Image (upload, paste or drop)", type="filepath", sources=["upload", "clipboard"],
                             height=320, elem_id="ask-image")
            upload_note = gr.Markdown(elem_id="ask-upload-note")
            question = gr.Textbox(label="Question", placeholder="What is written on the sign? (Enter asks, "
                                  "Shift+Enter adds a line)", lines=1, max_lines=6, elem_id="ask-question")
            with gr.Row(elem_id="ask-buttons"):
                ask = gr.Button("Ask", variant="primary", elem_id="ask-button", scale=3)
                stop = gr.Button("Stop", variant="stop", elem_id="ask-stop", interactive=False, scale=1,
                                 elem_classes=["mae-icon-stop"])
            if rows := examples():
                with gr.Column(elem_id="ask-examples"):
                    gr.Examples(rows, inputs=[image, question], label="Examples (click one)", examples_per_page=10)
        with gr.Column(scale=3, min_width=300, elem_id="ask-right"):
            answer = gr.Markdown(elem_id="ask-answer")
            turn_note = gr.Markdown(elem_id="ask-turn")
            chat = gr.Chatbot(label="Run", height=620, elem_id="ask-chat", feedback_options=None,
                              buttons=["copy"], group_consecutive_messages=False)
            with gr.Row(elem_id="ask-run-row", equal_height=True):
                run_id = gr.Textbox(label="Run id", interactive=False, elem_id="ask-run-id", max_lines=1, scale=4)
                clear = gr.Button("Clear view", size="sm", scale=1, elem_id="ask-clear",
                                  elem_classes=["mae-icon-clear"])
                new_conversation = gr.Button("New conversation", size="sm", scale=1, elem_id="ask-new")
            with gr.Row(elem_id="ask-rating"):
                up = gr.Button("Correct", elem_id="ask-thumbs-up", size="sm", elem_classes=["mae-icon-up"])
                down = gr.Button("Incorrect", elem_id="ask-thumbs-down", size="sm", elem_classes=["mae-icon-down"])
            corrected = gr.Textbox(label="Correct answer (optional, saved with Incorrect; for an abstention: the answer it "
                                         "should have given)", max_lines=2, elem_id="ask-corrected")
            feedback = gr.Markdown(elem_id="ask-feedback")
    evidence = EvidencePanel("ask", image_file(maestro)).build()

    def on_image(payload: Any) -> tuple[Any, str]:
        if payload is None:  # cleared (by us after a refusal, or by the person): the warning stays until a good one
            return gr.skip(), gr.skip()
        path, problem = checked_image(payload)
        return (gr.skip(), "") if path else (None, f"**Refused:** {render.md_escape(problem)}")

    image.change(on_image, image, [image, upload_note], preprocess=False, queue=False,
                 api_visibility="private")

    def start(request: gr.Request) -> tuple[Any, ...]:
        if _session(request) in _IN_FLIGHT:  # a second Enter while a run goes: leave everything as it is
            return (gr.skip(),) * 5
        return (gr.Button(interactive=False), gr.Button(interactive=True), "**Working…**", "", "")

    def run(payload: Any, text: str, conv: dict[str, str] | None,
            request: gr.Request) -> Iterator[tuple[Any, ...]]:
        session = _session(request)
        if session in _IN_FLIGHT:
            yield gr.skip(), gr.skip(), gr.skip(), gr.skip()
            return
        path, problem = checked_image(payload)
        if problem or not path or not (text or "").strip():
            for history, rid in ask_stream(maestro, None if problem else path, text):
                yield ([render.error_message(problem)] if problem else history), rid, "", gr.skip()
            return
        turn = next_turn(maestro, path, conv)
        cancel = _IN_FLIGHT[session] = threading.Event()
        try:
            for history, rid in ask_stream(maestro, path, text, cancel, turn, rater_name(request)):
                record = maestro.store.get_run(rid) if rid else None
                record_image = record.image_id if record is not None else ""
                yield history, rid, "", ({"id": turn.conversation_id, "image_id": record_image} if rid
                                         else gr.skip())
        finally:
            _IN_FLIGHT.pop(session, None)

    def finish(rid: str, request: gr.Request) -> tuple[Any, ...]:
        if _session(request) in _IN_FLIGHT:
            return (gr.skip(),) * 5 + (gr.skip(),) * len(evidence.outputs)
        record = maestro.store.get_run(rid) if rid else None
        return (gr.Button(interactive=True), gr.Button(interactive=False), outcome_line(maestro, rid),
                turn_line(maestro, rid), gr.Radio(choices=history_choices(maestro, rater_name(request))),
                *evidence.values(record))

    started = gr.on([ask.click, question.submit], start, None, [ask, stop, answer, corrected, feedback],
                    concurrency_limit=None, api_visibility="private")
    running = started.then(run, [image, question, conversation], [chat, run_id, feedback, conversation],
                           api_name="ask", preprocess=False, concurrency_id=ASK_GROUP,
                           concurrency_limit=ASK_CONCURRENCY)
    running.then(finish, run_id, [ask, stop, answer, turn_note, history["list"], *evidence.outputs],
                 concurrency_limit=None, api_visibility="private").then(None, None, None, js=SHOW_ANSWER_JS)

    cleared = ([], "", "", "", "", *evidence.values(None))
    view = [chat, run_id, answer, turn_note, feedback, *evidence.outputs]

    # Named functions, not lambdas: a private endpoint takes its function's name, and a "lambda" here would
    # push the public endpoints Gradio names "lambda" (component value callables) to other names.
    def clear_view() -> tuple[Any, ...]:
        return cleared

    def new_conversation_view() -> tuple[Any, ...]:
        return (None, *cleared)

    clear.click(clear_view, None, view, concurrency_limit=None, api_visibility="private")
    gr.on([new_conversation.click, history["new"].click], new_conversation_view, None, [conversation, *view],
          concurrency_limit=None, api_visibility="private")

    def pick(conversation_id: str | None) -> tuple[Any, ...]:
        path, messages, rid, state = open_conversation(maestro, conversation_id or "")
        if state is None:
            return (gr.skip(),) * (3 + len(view))
        record = maestro.store.get_run(rid)
        return (path, state, messages, rid, outcome_line(maestro, rid), turn_line(maestro, rid), "",
                *evidence.values(record))

    history["list"].input(pick, history["list"], [image, conversation, *view], concurrency_limit=None,
                          api_visibility="private")

    def halt(request: gr.Request) -> str:
        cancel = _IN_FLIGHT.get(_session(request))
        if cancel is None:
            return gr.skip()
        cancel.set()
        return "**Stopping…** the step in flight finishes first, then the run is stored as cancelled."

    stop.click(halt, None, answer, concurrency_limit=None, api_visibility="private")

    def thumbs(verdict: str) -> Any:
        def handler(rid: str, text: str, request: gr.Request) -> str:
            return save_quick_rating(maestro, rid, verdict, text, request)
        return handler

    up.click(thumbs("correct"), [run_id, corrected], feedback, api_name="rate_correct", concurrency_limit=None)
    down.click(thumbs("incorrect"), [run_id, corrected], feedback, api_name="rate_incorrect",
               concurrency_limit=None)
    return {"image": image, "question": question, "history": history["list"],
            "history_choices": lambda request: gr.Radio(choices=history_choices(maestro, rater_name(request)))}


# On a phone the answer sits first, above the image and the question; once a run ends, bring it into view if the
# page was scrolled past it (asking scrolls down to the Ask button).
SHOW_ANSWER_JS = """
() => {
  const answer = document.querySelector('#ask-answer');
  if (window.innerWidth <= 700 && answer && answer.getBoundingClientRect().top < 0) {
    answer.scrollIntoView({block: 'start'});
  }
}
"""


def _session(request: gr.Request | None) -> str:
    return str(getattr(request, "session_hash", None) or "")
