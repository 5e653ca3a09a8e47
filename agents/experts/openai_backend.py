"""The ``openai`` back end: an expert served by any OpenAI-compatible chat-completions server (vLLM, SGLang, hosted).

Speaks the protocol with httpx directly. Images become ``image_url`` data URLs (downscaled to ``max_pixels``
first, keeping the aspect ratio), in the order the chat lists them, so crops follow the main image. Transient
failures (connection errors, timeouts, 5xx, a stream cut short) are retried a bounded number of times with
exponential backoff; 4xx and malformed replies are not, since repeating the same request cannot fix them. Every
attempt's timeout and every retry fit inside the current run's time budget (``agents.budget``).
Boxes in the reply are converted from the model's frame (``box_frame``) to pixels of the chat's first image; for
Qwen2.5-VL's resized-input pixels that takes the size the image was sent at, after the downscale above, and the
processor limits the registry declares (``min_pixels``/``max_pixels``, which ``serve-experts`` passes to vLLM).
Sampling (``temperature``, ``top_p``, ``top_k``, ``presence_penalty``, ``seed``), ``stop`` and ``extra_body`` (e.g.
``chat_template_kwargs``) go into every request as the registry entry sets them. Reasoning returned beside the reply
(``reasoning_content``/``reasoning``) or as a leading ``<think>`` block is kept apart (``ExpertReply.reasoning``).
"""

from __future__ import annotations

import base64
import io
import json
import math
import threading
import time
import weakref
from typing import Any

import httpx
from PIL import Image

from agents import budget
from agents.experts.base import ChatMessage, ExpertBox, ExpertError, ExpertReply, first_image
from agents.experts.coordinates import expert_boxes, load_resize_rule, needs_resize_rule, rewrite_in_pixels
from agents.experts.reasoning import reasoning_field, split_reasoning


def fit_within(size: tuple[int, int], max_pixels: int) -> tuple[int, int]:
    """The (w, h) an image of ``size`` is sent at: unchanged when within ``max_pixels``, else scaled down evenly."""
    width, height = size
    if width * height <= max_pixels:
        return width, height
    scale = math.sqrt(max_pixels / (width * height))
    return max(1, math.floor(width * scale)), max(1, math.floor(height * scale))


def encode_image(image: Image.Image, *, max_pixels: int, image_format: str = "png", jpeg_quality: int = 90) -> str:
    """A ``data:`` URL for ``image`` as sent: RGB, bicubic-downscaled to fit ``max_pixels``, PNG or JPEG."""
    target = fit_within(image.size, max_pixels)
    # VLM servers convert to RGB anyway; doing it here keeps PNG/JPEG output identical across input modes.
    picture = image.convert("RGB")
    if target != picture.size:
        picture = picture.resize(target, Image.Resampling.BICUBIC)
    buffer = io.BytesIO()
    fmt = "JPEG" if image_format.lower() in ("jpeg", "jpg") else "PNG"
    picture.save(buffer, format=fmt, **({"quality": jpeg_quality} if fmt == "JPEG" else {}))
    return f"data:image/{fmt.lower()};base64,{base64.b64encode(buffer.getvalue()).decode('ascii')}"


class _Transient(Exception):
    """A failure worth retrying; carries the message to raise if the retries run out."""


class OpenAIExpert:
    """An expert behind an OpenAI-compatible ``/chat/completions`` endpoint. Safe to call from many threads."""

    neural = True

    def __init__(self, name: str, *, base_url: str, model: str, api_key: str | None = None,
                 timeout_s: float = 60.0, max_tokens: int = 1024, max_pixels: int = 1_003_520, retries: int = 2,
                 backoff_s: float = 0.5, stream: bool = False, temperature: float = 0.0,
                 extra_body: dict[str, Any] | None = None, image_format: str = "png",
                 box_frame: str = "pixels", top_p: float | None = None, top_k: int | None = None,
                 presence_penalty: float | None = None, stop: list[str] | None = None, seed: int | None = None,
                 jpeg_quality: int = 90, min_pixels: int | None = None) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self.max_pixels = max_pixels
        self.retries = max(0, retries)
        self.backoff_s = backoff_s
        self.stream = stream
        self.temperature = temperature
        self.extra_body = dict(extra_body or {})
        self.image_format = image_format
        self.box_frame = box_frame
        self.jpeg_quality = jpeg_quality
        self.min_pixels = min_pixels
        #: Sent with every request when set (None: the server's default).
        self.sampling: dict[str, Any] = {k: v for k, v in {
            "top_p": top_p, "top_k": top_k, "presence_penalty": presence_penalty, "seed": seed,
            "stop": list(stop) if stop else None}.items() if v is not None}
        # Each image object's data URL, encoded once: the orchestrator sends the question's image on every turn,
        # and encoding a photo costs far more than the request. Keyed by object identity, checked through a weak
        # reference (PIL images are unhashable); images handed to an expert are never changed in place.
        self._encoded: dict[int, tuple[weakref.ref[Image.Image], str]] = {}
        self._encoded_lock = threading.Lock()
        if needs_resize_rule(model, box_frame):
            load_resize_rule()  # transformers is imported now, not during the first call (and its latency)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # One client (one connection pool) per expert; httpx.Client is safe to share between threads.
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout_s))

    # -- public ---------------------------------------------------------------------------------------------------

    def sent_size(self, image_size: tuple[int, int]) -> tuple[int, int]:
        """The size an image of ``image_size`` is sent at (needed to convert Qwen2.5-VL boxes)."""
        return fit_within(image_size, self.max_pixels)

    def to_openai_messages(self, messages: list[ChatMessage]) -> list[dict[str, Any]]:
        """The neutral chat as OpenAI messages: text parts stay, images become ``image_url`` data URLs."""
        out: list[dict[str, Any]] = []
        for message in messages:
            content = message.get("content")
            if isinstance(content, str):
                out.append({"role": message["role"], "content": content})
                continue
            parts: list[dict[str, Any]] = []
            for part in content or []:
                if part.get("type") == "image":
                    url = self.data_url(part["image"])
                    parts.append({"type": "image_url", "image_url": {"url": url}})
                elif part.get("type") == "text":
                    parts.append({"type": "text", "text": str(part.get("text", ""))})
                else:
                    raise ExpertError(f"expert {self.name!r}: unsupported message part type {part.get('type')!r}")
            out.append({"role": message["role"], "content": parts})
        return out

    def request_params(self, *, max_tokens: int | None = None, temperature: float | None = None) -> dict[str, Any]:
        """Everything a request carries besides model and messages: what a run records to be reproduced."""
        return {"max_tokens": int(max_tokens or self.max_tokens),
                "temperature": float(temperature if temperature else self.temperature),
                **self.sampling, **self.extra_body}

    def data_url(self, image: Image.Image) -> str:
        """``image`` as this expert sends it (format, quality, downscale), encoded once per image object."""
        key = id(image)
        with self._encoded_lock:
            known = self._encoded.get(key)
        if known is not None and known[0]() is image:
            return known[1]
        url = encode_image(image, max_pixels=self.max_pixels, image_format=self.image_format,
                           jpeg_quality=self.jpeg_quality)

        def forget(_: object, key: int = key) -> None:
            with self._encoded_lock:
                entry = self._encoded.get(key)
                if entry is not None and entry[0]() is None:
                    del self._encoded[key]

        with self._encoded_lock:
            self._encoded[key] = (weakref.ref(image, forget), url)
        return url

    def generate(self, messages: list[ChatMessage], *, max_tokens: int | None = None,
                 temperature: float | None = 0.0) -> ExpertReply:
        """One chat completion. ``max_tokens`` None and ``temperature`` 0/None fall back to the expert's settings."""
        payload: dict[str, Any] = {"model": self.model, "messages": self.to_openai_messages(messages),
                                   **self.request_params(max_tokens=max_tokens, temperature=temperature)}
        if self.stream:
            payload["stream"] = True
            payload["stream_options"] = {"include_usage": True}
        last, tries = "", 0
        for attempt in range(self.retries + 1):
            if attempt:
                pause = self.backoff_s * 2 ** (attempt - 1)
                left = budget.remaining()
                if left is not None and left < pause + budget.MIN_USEFUL_S:
                    last += "; no retry: the run's time budget is nearly spent"
                    break
                time.sleep(pause)
            try:
                timeout = budget.cap(self.timeout_s)  # an attempt never outlives the run's budget
            except budget.BudgetExceeded:
                last = last or "the run's time budget was spent before the call"
                break
            tries += 1
            started = time.perf_counter()  # the server's time: this attempt's exchange only
            try:
                raw, reasoning, tokens_in, tokens_out = (self._stream_once(payload, timeout) if self.stream
                                                         else self._once(payload, timeout))
            except _Transient as exc:
                last = str(exc)
                continue
            latency_ms = (time.perf_counter() - started) * 1000
            text, reasoning = split_reasoning(raw, reasoning)
            boxes = self._boxes(text, messages)
            return ExpertReply(text=text, tokens_in=tokens_in, tokens_out=tokens_out, latency_ms=latency_ms,
                               boxes=boxes, pixel_text=rewrite_in_pixels(text, boxes), reasoning=reasoning,
                               raw=raw if raw != text else None)
        raise ExpertError(f"{last} ({tries} attempt{'s' if tries != 1 else ''})")

    def _boxes(self, text: str, messages: list[ChatMessage]) -> list[ExpertBox]:
        image = first_image(messages)
        size = image.size if image is not None else None
        return expert_boxes(text, image_size=size, model=self.model, declared_frame=self.box_frame,
                            sent_size=self.sent_size(size) if size else None, min_pixels=self.min_pixels,
                            max_pixels=self.max_pixels)

    def health(self) -> tuple[bool, float, str]:
        """(reachable and serving this model, latency in ms, detail) from ``GET {base_url}/models``."""
        started = time.perf_counter()
        try:
            response = self._client.get(f"{self.base_url}/models", timeout=min(self.timeout_s, 10.0))
        except httpx.HTTPError as exc:
            return False, (time.perf_counter() - started) * 1000, f"unreachable: {type(exc).__name__}: {exc}"
        latency = (time.perf_counter() - started) * 1000
        if response.status_code != 200:
            return False, latency, f"HTTP {response.status_code}: {_server_message(response.text)}"
        try:
            served = [str(m.get("id")) for m in response.json().get("data", [])]
        except (ValueError, AttributeError):
            return False, latency, "malformed JSON from /models"
        if self.model in served:
            return True, latency, f"serving {self.model}"
        return False, latency, f"model {self.model!r} not served (server has: {', '.join(served) or 'none'})"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIExpert:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one attempt ----------------------------------------------------------------------------------------------

    @property
    def _where(self) -> str:
        return f"expert {self.name!r} at {self.base_url}"

    def _check_status(self, response: httpx.Response, body: str) -> None:
        if response.status_code >= 500:
            raise _Transient(f"{self._where} returned HTTP {response.status_code}: {_server_message(body)}")
        if response.status_code >= 400:
            raise ExpertError(f"{self._where} returned HTTP {response.status_code}: {_server_message(body)}")

    def _once(self, payload: dict[str, Any], timeout: float) -> tuple[str, str | None, int, int]:
        try:
            response = self._client.post(f"{self.base_url}/chat/completions", json=payload, timeout=timeout)
        except httpx.TimeoutException as exc:
            raise _Transient(f"{self._where} timed out after {timeout:g} s") from exc
        except httpx.TransportError as exc:
            raise _Transient(f"{self._where} could not be reached: {type(exc).__name__}: {exc}") from exc
        self._check_status(response, response.text)
        try:
            data = response.json()
            message = data["choices"][0]["message"]
            text = message.get("content") or ""
            reasoning = reasoning_field(message)
            usage = data.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ExpertError(f"{self._where} returned malformed JSON: {response.text[:200]!r}") from exc
        return (str(text), reasoning, int(usage.get("prompt_tokens") or 0),
                int(usage.get("completion_tokens") or 0))

    def _stream_once(self, payload: dict[str, Any], timeout: float) -> tuple[str, str | None, int, int]:
        pieces: list[str] = []
        thoughts: list[str] = []
        chunks = 0
        usage: dict[str, Any] = {}
        finished = False
        try:
            with self._client.stream("POST", f"{self.base_url}/chat/completions", json=payload,
                                     timeout=timeout) as response:
                if response.status_code >= 400:
                    self._check_status(response, response.read().decode("utf-8", "replace"))
                for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue  # blank separators, ": keep-alive" comments, "event:" lines
                    data = line[5:].strip()
                    if data == "[DONE]":
                        finished = True
                        break
                    try:
                        event = json.loads(data)
                    except ValueError as exc:
                        raise ExpertError(f"{self._where} returned malformed JSON in its stream: "
                                          f"{data[:200]!r}") from exc
                    if not isinstance(event, dict):
                        raise ExpertError(f"{self._where} returned malformed JSON in its stream: {data[:200]!r}")
                    usage = event.get("usage") or usage
                    for choice in event.get("choices") or []:
                        step = choice.get("delta") or {}
                        thought = step.get("reasoning_content") or step.get("reasoning")  # whitespace counts here
                        if isinstance(thought, str) and thought:
                            thoughts.append(thought)
                            chunks += 1
                        delta = (choice.get("delta") or {}).get("content")
                        if delta:
                            pieces.append(str(delta))
                            chunks += 1
                        finished = finished or bool(choice.get("finish_reason"))
        except httpx.TimeoutException as exc:
            raise _Transient(f"{self._where} timed out after {timeout:g} s "
                             f"(after {chunks} streamed tokens)") from exc
        except httpx.TransportError as exc:
            if chunks or isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
                raise _Transient(f"{self._where}: connection dropped mid-stream after {chunks} tokens") from exc
            raise _Transient(f"{self._where} could not be reached: {type(exc).__name__}: {exc}") from exc
        if not finished:
            raise _Transient(f"{self._where}: connection dropped mid-stream after {chunks} tokens")
        # Without usage (servers that ignore stream_options) each content chunk is about one token.
        return ("".join(pieces), "".join(thoughts) or None, int(usage.get("prompt_tokens") or 0),
                int(usage.get("completion_tokens") or chunks))


def _server_message(body: str) -> str:
    """The human part of an error body: OpenAI-style ``{"error": {"message": ...}}`` or the raw text, shortened."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:300] or "(empty body)"
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
        if isinstance(error, str):
            return error[:300]
        if data.get("message"):
            return str(data["message"])[:300]
    return body.strip()[:300]
