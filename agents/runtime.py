"""The application object every front end shares: registry + storage + policy, and ``ask`` that records a run.

``Maestro.open(settings)`` loads and validates the registry, opens the store (running migrations and marking runs
of dead processes ``interrupted``) and builds the configured policy. ``ask`` validates the input, stores the image
once by content, and drives the loop with a recorder, so every run is in the database from its first moment.
"""

from __future__ import annotations

import functools
import io
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from agents.config import Settings
from agents.loop import EventSink, run
from agents.policies.base import Policy
from agents.provenance.fingerprint import fingerprint
from agents.recorder import StorageRecorder
from agents.registry import Registry, load_registry
from agents.replay.tool_cache import LiveToolCache
from agents.routing import embeddings
from agents.trust import calibration as trust_calibration
from skills.answer_form import answer_form
from skills.base import ToolCache, image_known_as, reusing_tool_outputs
from storage import open_store
from storage.trace import Event, Run
from vision_tools.image import load_image

if TYPE_CHECKING:
    from storage import Store

#: Longest question accepted, in characters.
MAX_QUESTION_CHARS = 4000


class InputError(ValueError):
    """Bad input from the user (empty question, unusable image); the message is meant for them."""


def has_text(question: str) -> bool:
    """Whether ``question`` holds anything visible: not only spaces and control characters."""
    return any(ch.isprintable() and not ch.isspace() for ch in question or "")


@dataclass
class Maestro:
    settings: Settings
    registry: Registry
    store: Store
    policy: Policy

    @classmethod
    def open(cls, settings: Settings | None = None, policy: Policy | None = None) -> Maestro:
        settings = settings or Settings.resolve()
        registry = load_registry(settings.registry_path, settings.skills_paths)
        # The data directory's calibration (``maestro calibrate``) wins over the shipped one.
        registry.calibration = trust_calibration.load(settings.data_dir)
        store = open_store(settings.data_dir, settings.db_url)
        embeddings.keep_on_disk(settings.data_dir / "cache" / "embeddings.sqlite3")
        return cls(settings, registry, store, policy or build_policy(registry, store))

    @functools.cached_property
    def live_tool_cache(self) -> LiveToolCache:
        """The tool outputs of this data directory, for reuse by every new question (one per ``Maestro``)."""
        return LiveToolCache(self.store)

    def warm(self) -> list[str]:
        """Load what the first question would otherwise wait for (the router's sentence encoder, the OCR models);
        what could not be loaded, one line each (the question then loads or works without it, as before)."""
        from vision_tools.text.backends import get_backend

        problems: list[str] = []
        if not embeddings.warm():
            problems.append("sentence embeddings unavailable: routing uses keywords")
        try:
            warm_ocr = getattr(get_backend("rapidocr"), "warm", None)
            if warm_ocr is not None:
                warm_ocr()
        except Exception as exc:  # a broken OCR install is reported by the tool that needs it, on use
            problems.append(f"OCR models not loaded: {type(exc).__name__}: {exc}")
        return problems

    def start_warming(self, done: threading.Event | None = None) -> threading.Event:
        """``warm()`` in a background thread; the event (``done``, or a new one) is set when it is done."""
        done = done or threading.Event()

        def work() -> None:
            try:
                self.warm()
            finally:
                done.set()

        threading.Thread(target=work, name="maestro-warm", daemon=True).start()
        return done

    def ask(self, image: str | Path | bytes | Image.Image, question: str, *, on_event: EventSink | None = None,
            max_turns: int | None = None, dataset: str | None = None, item_id: str | None = None,
            expected: str | None = None, expected_kind: str | None = None, policy: Policy | None = None,
            run_config: dict[str, Any] | None = None, cancel: threading.Event | None = None,
            parent_run_id: str | None = None, tool_cache: ToolCache | None = None,
            sc: int | None = None, stored_image: bool = False, live_tools: bool = False,
            provenance: dict[str, Any] | None = None) -> Run:
        """Answer ``question`` about ``image``; the run and its steps are stored as they happen.

        ``expected_kind`` is a dataset's declared answer kind (``choice``, ``relaxed``, ``text``…): it fixes the
        answer form when the wording alone would not. ``cancel``, when set, stops the run between turns (stored as
        ``cancelled``). A rerun (``agents.replay.rerun``) passes the run it repeats as ``parent_run_id``, to reuse
        stored tool outputs a ``tool_cache``, and ``stored_image`` (the bytes come from this data directory's
        image store, so they are decoded only when a tool needs the pixels).

        Without a ``tool_cache``, a tool call made before on the same image with the same arguments, by a tool of
        the same version (code and thresholds), gets its stored output (``agents.replay.tool_cache.LiveToolCache``: a
        second question on a chart does not parse it again); ``live_tools`` runs every tool instead.

        With self-consistency k > 1 (``sc``, else the registry's ``orchestrator.self_consistency``) this samples k
        runs and returns the voted one (``agents.evaluation.self_consistency``); ``policy`` and ``run_config`` (merged into
        the stored run config) are how it asks for each sample, and passing ``run_config`` asks for exactly one
        run. Every run stores its reproducibility record (``agents.provenance.fingerprint``) in
        ``config["reproducibility"]``, with ``provenance`` (an evaluation's option order, repetition) added."""
        spec = self.registry.orchestrator
        k = spec.self_consistency if sc is None else int(sc)
        if k < 1:
            raise InputError(f"self-consistency needs k of at least 1; got {k}")
        if k > 1 and run_config is None:
            from agents.evaluation.self_consistency import ask_self_consistent

            return ask_self_consistent(self, image, question, k=k, concurrency=spec.self_consistency_concurrency,
                                       on_event=on_event, max_turns=max_turns, dataset=dataset, item_id=item_id,
                                       expected=expected, expected_kind=expected_kind, cancel=cancel,
                                       provenance=provenance)
        question = (question or "").strip()
        if not has_text(question):
            raise InputError("empty question: ask something about the image")
        if len(question) > MAX_QUESTION_CHARS:
            raise InputError(f"question too long: {len(question)} characters (limit {MAX_QUESTION_CHARS})")
        if any("\ud800" <= c <= "\udfff" for c in question):  # undecodable argv bytes, or "\ud800" in JSON
            raise InputError("question is not valid text: it holds undecodable bytes (lone surrogates)")
        try:
            decoded = load_image(image, lazy=stored_image, to_ask=True)
        except ValueError as exc:
            raise InputError(str(exc)) from exc
        ref = self.store.images.put_bytes(_original_bytes(image, decoded))
        turns = max_turns or self.settings.max_turns or self.registry.orchestrator.max_turns
        snapshot = self.registry.snapshot()
        digest = self.registry.snapshot_hash()
        self.store.save_registry_snapshot(digest, snapshot)
        record = fingerprint(self.registry, policy or self.policy, extra=provenance, registry_hash=digest)
        recorder = StorageRecorder(self.store, image_id=ref.id, registry_hash=digest,
                                   config={"max_turns": turns, "policy": (policy or self.policy).name,
                                           "registry": str(self.registry.path), "reproducibility": record,
                                           **(run_config or {})},
                                   dataset=dataset, item_id=item_id, expected=expected,
                                   parent_run_id=parent_run_id)

        def sink(event: Event) -> None:
            recorder.on_event(event)
            if on_event is not None:
                on_event(event)

        if tool_cache is None and not live_tools:
            tool_cache = self.live_tool_cache
        with reusing_tool_outputs(tool_cache), image_known_as(decoded, ref.id):
            return run(question, decoded, registry=self.registry, policy=policy or self.policy, max_turns=turns,
                       on_event=sink, form=answer_form(question, expected_kind), cancel=cancel)


def build_policy(registry: Registry, store: Store | None = None) -> Policy:
    """The orchestrator the registry asks for."""
    kind = registry.orchestrator.policy
    if kind == "keyword":
        from agents.policies.keyword import KeywordPolicy

        return KeywordPolicy()
    if kind == "router":
        from agents.policies.router import RouterPolicy

        return RouterPolicy(registry, store)
    from agents.policies.vlm import VLMPolicy

    return VLMPolicy(registry)


def _original_bytes(source: str | Path | bytes | Image.Image, decoded: Image.Image) -> bytes:
    """The bytes to keep: the upload exactly as given, or a lossless PNG of an in-memory image."""
    if isinstance(source, bytes):
        return source
    if isinstance(source, str | Path):
        return Path(source).read_bytes()
    buffer = io.BytesIO()
    decoded.save(buffer, format="PNG")
    return buffer.getvalue()
