"""The Maestro web application (Gradio 6 Blocks): Ask (with the conversations' History sidebar), Replay (with
"Rerun…"), Rate, Review (assignment, adjudication, annotators), Registry, Export, Handbook and Compare tabs, plus
``EXTRA_TABS`` where later tabs plug in. A header shows who is logged in, their role and a Log out link.

``build_app(maestro)`` builds the page (and the API-only endpoints of ``ui.web_api``); ``launch(...)`` opens the
application object on the configured data directory and serves it. ``launch_options(maestro)`` holds what every
server of this app needs (image store on the allowed paths, the upload size limit, keyboard shortcuts, the login
check when there are accounts), so tests serve exactly what users get.

Logins: the accounts in ``<data dir>/users.txt`` (``maestro users add NAME --role ROLE``; see ``ui.accounts``), plus
the one admin account ``--auth user:password`` may give. With neither, the app has no login and ratings are by
``anonymous``. ``launch`` binds the accounts to the app (``ui.access``: the role check every handler makes) and
serves it behind ``ui.login_guard.Guard`` (throttled logins, sessions that end with their account). Gradio's temporary copies of uploads and outputs are deleted once an hour (``CACHE_MAX_AGE_S``)
and when the server stops; refused uploads at once (``ui.web_upload``).
"""

from __future__ import annotations

import html
import logging
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr
from starlette.middleware import Middleware

from agents.config import Settings
from agents.runtime import Maestro
from ui.access import Access, allowed, bind, role_of
from ui.accounts import MIN_PASSWORD, Accounts
from ui.login_guard import Guard, login_check
from ui.upload_quota import QuotaGuard, UploadQuota
from ui.web_api import build_api
from ui.web_ask import build_ask_tab
from ui.web_assets import CSS, HEAD_JS
from ui.web_compare import RerunPanel, build_compare_tab
from ui.web_export import build_export_tab, exports_dir
from ui.web_handbook import build_handbook_tab
from ui.web_rate import build_rate_tab
from ui.web_registry import build_registry_tab
from ui.web_replay import Filters, build_replay_tab, table_page
from ui.web_review import build_review_tab
from vision_tools.image import MAX_BYTES, MAX_PIXELS

log = logging.getLogger(__name__)

TITLE = "Maestro"
INTRO = (f"Ask a question about an image and watch the orchestrator call (expert, skill) pairs step by step. "
         f"Uploads up to {MAX_BYTES // (1024 * 1024)} MB and {MAX_PIXELS / 1e6:.0f} megapixels.")

#: Later tabs register here: (tab id, label, builder).
#: A builder is called inside its ``gr.Tab`` with the ``Maestro`` and returns nothing.
EXTRA_TABS: list[tuple[str, str, Callable[[Maestro], None]]] = []
#: Gradio's temporary files (upload copies, rendered outputs) older than this are deleted, checked this often.
CACHE_MAX_AGE_S = 3600
CACHE_SWEEP_S = 900


WARMING_NOTE = "Loading the models (sentence encoder, OCR) — a question asked now waits until they are ready."


def build_app(maestro: Maestro, warming: threading.Event | None = None) -> gr.Blocks:
    """The whole page for one ``Maestro`` application object; ``warming`` (set when the models are loaded) shows a
    note at the top until then."""
    with gr.Blocks(title=TITLE, delete_cache=(CACHE_SWEEP_S, CACHE_MAX_AGE_S)) as app:
        with gr.Row(elem_id="app-header", equal_height=True):
            gr.HTML(f"<b>{TITLE}</b><span class='mae-intro'> · {html.escape(INTRO)}</span>", elem_id="app-title")
            who = gr.HTML(elem_id="app-user")
        if warming is not None:
            warm_note = gr.Markdown(WARMING_NOTE, visible=not warming.is_set(), elem_id="warming-note")
            warm_timer = gr.Timer(1.0, active=not warming.is_set())

            def warm_state() -> tuple[Any, Any]:
                ready = warming.is_set()
                return gr.Markdown(visible=not ready), gr.Timer(active=not ready)

            warm_timer.tick(warm_state, None, [warm_note, warm_timer], concurrency_limit=None,
                            api_visibility="private", show_progress="hidden")
        with gr.Tabs(elem_id="tabs") as tabs:
            with gr.Tab("Ask", id="ask"):
                ask = build_ask_tab(maestro)
            with gr.Tab("Replay", id="replay") as replay_tab:
                replay = build_replay_tab(maestro)
                rerun_panel = RerunPanel(maestro)  # "Rerun…" under the open run (ui/web_compare.py)
            with gr.Tab("Rate", id="rate") as rate_tab:
                rate = build_rate_tab(maestro)
            with gr.Tab("Review", id="review") as review_tab:
                review = build_review_tab(maestro)
            with gr.Tab("Registry", id="registry") as registry_tab:
                registry = build_registry_tab(maestro)
            with gr.Tab("Export", id="export", visible=False) as export_tab:  # admins only: shown on load
                export = build_export_tab(maestro)
            with gr.Tab("Handbook", id="handbook") as handbook_tab:
                handbook = build_handbook_tab(maestro)
            with gr.Tab("Compare", id="compare"):
                compare_tab = build_compare_tab(maestro)
            for tab_id, label, builder in EXTRA_TABS:
                with gr.Tab(label, id=tab_id):
                    builder(maestro)
        rerun_panel.connect(replay["run_id"], compare_tab, tabs)

        replay_tab.select(replay["refresh"], [*replay["filters"], replay["page"]], replay["page_outputs"],
                          concurrency_limit=None, api_visibility="private")
        rate_tab.select(rate["refresh"], rate["refresh_inputs"], rate["refresh_outputs"], concurrency_limit=None,
                        api_visibility="private")

        def review_opened(names: Any) -> tuple[Any, ...]:  # named: see new_conversation_view in ui/web_ask.py
            return (*review["refresh"](), names or review["load_names"]())

        review_tab.select(review_opened, review["names"], [*review["outputs"], review["names"]],
                          concurrency_limit=None, api_visibility="private")
        registry_tab.select(registry["quick"], None, registry["quick_outputs"], concurrency_limit=None,
                            api_visibility="private").then(registry["checked"], None,
                                                           registry["checked_outputs"], concurrency_limit=None,
                                                           api_visibility="private")
        export_tab.select(export["refresh"], None, export["outputs"], concurrency_limit=None,
                          api_visibility="private")
        handbook_tab.select(handbook["refresh"], handbook["inputs"], handbook["outputs"], concurrency_limit=None,
                            api_visibility="private")

        # What only admins may use is shown to admins only (the handlers check the role again: ui.access).
        admin_only = [export_tab, *rate["admin_only"], *handbook["admin_only"]]

        def on_load(request: gr.Request) -> tuple[Any, ...]:
            rows, page, _, caption = table_page(maestro, Filters(), 1)
            shown = [gr.update(visible=allowed(maestro, request, "admin"))] * len(admin_only)
            run_id = (request.query_params.get("run") or "").strip() if request is not None else ""
            first = (who_html(request, role_of(maestro, request)), ask["history_choices"](request))
            if not run_id:
                return (*first, gr.Tabs(), rows, page, caption, gr.skip(), *[gr.skip()] * len(replay["shown"]),
                        *shown)
            return (*first, gr.Tabs(selected="replay"), rows, page, caption, run_id, *replay["show"](run_id),
                    *shown)

        app.load(on_load, None, [who, ask["history"], tabs, *replay["page_outputs"], replay["run_id"],
                                 *replay["shown"], *admin_only],
                 concurrency_limit=None, api_visibility="private").then(None, replay["run_id"], None,
                                                                        js=replay["show_js"])
        build_api(maestro)
    return app


def who_html(request: gr.Request | None, role: str | None = None) -> str:
    """The header's right side: who is logged in (and their role) with a Log out link, or that there is no login."""
    name = getattr(request, "username", None) if request is not None else None
    if not name:
        return "<div class='mae-who'>No login: everyone is <b>anonymous</b></div>"
    role_text = f" <span class='mae-role'>{html.escape(role)}</span>" if role else ""
    return (f"<div class='mae-who'>Signed in as <b id='app-user-name'>{html.escape(str(name))}</b>{role_text} · "
            f"<a href='/logout' id='app-logout'>Log out</a></div>")


def launch_options(maestro: Maestro) -> dict[str, Any]:
    """Keyword arguments for ``Blocks.launch`` that the app needs wherever it is served: the image store and the
    export folder (its files are offered for download) on the allowed paths, nothing else of the data directory."""
    images = Path(maestro.store.data_dir) / "images"
    exports = exports_dir(maestro)
    for folder in (images, exports):
        folder.mkdir(parents=True, exist_ok=True)
    return {"allowed_paths": [str(images), str(exports)], "max_file_size": MAX_BYTES, "head": HEAD_JS, "css": CSS,
            "footer_links": ["api", "settings"]}


def access_for(maestro: Maestro, auth: str | None = None) -> Access:
    """The data directory's accounts (and ``--auth``), bound to ``maestro`` for the handlers' role checks."""
    return bind(maestro, Access(Accounts.of(maestro.store.data_dir, parse_auth(auth))))


def guarded(access: Access) -> dict[str, Any]:
    """``launch`` keyword arguments for ``access``: the throttled login check (None when there are no accounts:
    then the app has no login), the session guard in front of every request, and the upload quota
    (``ui.upload_quota``; the session guard runs first, so an ended session's uploads count as nobody's)."""
    return {"auth": None if access.open else login_check(access),
            "app_kwargs": {"middleware": [Middleware(Guard, access=access),
                                          Middleware(QuotaGuard, quota=UploadQuota())]}}


def parse_auth(auth: str | None) -> tuple[str, str] | None:
    """``"user:password"`` -> ``("user", "password")``; the password may itself contain colons."""
    if not auth:
        return None
    user, sep, password = auth.partition(":")
    if not sep or not user or not password:
        raise ValueError("--auth must look like user:password")
    if len(password) < MIN_PASSWORD:  # an admin account: no weaker than one `maestro users add` would accept
        raise ValueError(f"--auth: passwords need at least {MIN_PASSWORD} characters")
    return user, password


def open_maestro(data_dir: str | Path | None = None, registry: str | Path | None = None,
                 db: str | None = None) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry))


#: How many times Gradio's launch may find the new server too slow to answer before the launch fails.
LAUNCH_CHECKS = 3


def launch(host: str = "127.0.0.1", port: int = 7860, auth: str | None = None, share: bool = False,
           data_dir: str | Path | None = None, registry: str | Path | None = None, db: str | None = None,
           *, prevent_thread_lock: bool = False, maestro: Maestro | None = None) -> gr.Blocks:
    """Open the application on the configured data directory and serve it (blocking unless told otherwise)."""
    try:  # before anything opens: otherwise uvicorn logs the error and Gradio blames the port
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ValueError(f"--host {host[:80]!r}: not an address or host name this machine can listen on "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    maestro = maestro or open_maestro(data_dir, registry, db)
    access = access_for(maestro, auth)
    if not access.open and "admin" not in access.accounts.roles().values():
        log.warning("no admin account: nobody can edit the guidelines, export or rebuild the handbook in the web "
                    "app; promote someone with `maestro users role NAME admin`")
    warming = threading.Event()
    app = build_app(maestro, warming)
    app.queue(default_concurrency_limit=1)
    log.info("Maestro web app on http://%s:%d (data in %s)", host, port, maestro.store.data_dir)
    for attempt in range(LAUNCH_CHECKS):
        try:
            app.launch(server_name=host, server_port=port, share=share, **guarded(access),
                       prevent_thread_lock=True, auth_message="Log in with your annotator account.",
                       **launch_options(maestro))
            break
        except ValueError as exc:
            # Gradio gives up on its own server when one HEAD request takes over 3 s (a machine busy with an eval):
            # the server is up, only slow; check again rather than fail the launch.
            if "localhost is not accessible" not in str(exc) or attempt == LAUNCH_CHECKS - 1:
                raise
            log.warning("the server did not answer Gradio's 3-second check (a busy machine?); checking again")
            app.close()
    # The models load once the server is up (a launch that fails, e.g. on a busy port, exits at once instead of
    # waiting on a half-loaded onnxruntime session); the page shows a note until they are ready.
    maestro.start_warming(warming)
    if not prevent_thread_lock:
        app.block_thread()
    return app
