"""OpenAIExpert against a real chat-completions server on 127.0.0.1 (stdlib http.server in a thread).

The server records every request and answers according to a per-test script of behaviours: normal, slow, 5xx,
4xx, malformed JSON, SSE streaming with usage, and a stream cut off mid-way (chunked body never terminated).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.experts.base import ExpertError, image_part, text_part
from agents.experts.openai_backend import OpenAIExpert
from tests.local_http import JsonHandler, models_reply, serve

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
ANSWER = "There are 3 circles."
STREAM_PIECES = ["There", " are", " 3", " circles."]


@dataclass
class ServerState:
    script: list[str] = field(default_factory=list)  # behaviours for the next requests, in order
    default: str = "ok"
    box: list[int] = field(default_factory=list)  # what the "box" behaviour answers with
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_mode(self) -> str:
        with self.lock:
            return self.script.pop(0) if self.script else self.default


class ChatHandler(JsonHandler):
    state: ServerState

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _sse(self, event: dict[str, Any] | str) -> None:
        payload = event if isinstance(event, str) else json.dumps(event)
        self._chunk(f"data: {payload}\n\n".encode())

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self.send_json(200, models_reply("qwen-test"))
        else:
            self.send_json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        body = self.read_json()
        with self.state.lock:
            self.state.requests.append(body)
            self.state.headers.append(dict(self.headers))
        mode = self.state.next_mode()
        # The client may have given up already (timeout test).
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            getattr(self, f"_mode_{mode}")()

    def _mode_ok(self) -> None:
        reply = {"id": "c1", "object": "chat.completion", "model": "qwen-test",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER},
                              "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 321, "completion_tokens": 7, "total_tokens": 328}}
        self.send_json(200, reply)

    def _mode_box(self) -> None:
        content = f'```json\n[{{"bbox_2d": {self.state.box}, "label": "circle"}}]\n```'
        self.send_json(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                          "finish_reason": "stop"}]})

    def _mode_slow(self) -> None:
        time.sleep(1.0)
        self._mode_ok()

    def _mode_e500(self) -> None:
        self.send_json(500, {"error": {"message": "engine overloaded", "code": 500}})

    def _mode_e400(self) -> None:
        self.send_json(400, {"object": "error", "message": "max_tokens must be at most 32768", "code": 400})

    def _mode_malformed(self) -> None:
        self.send_json(200, b'{"choices": [{"message": {"content": "trunc')

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _delta(self, text: str, finish: str | None = None) -> dict[str, Any]:
        return {"object": "chat.completion.chunk", "usage": None,
                "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}

    def _mode_stream(self) -> None:
        self._start_stream()
        self._sse({"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})
        self._chunk(b": keep-alive\n\n")
        for piece in STREAM_PIECES:
            self._sse(self._delta(piece))
        self._sse(self._delta("", "stop"))
        self._sse({"choices": [], "usage": {"prompt_tokens": 321, "completion_tokens": 5, "total_tokens": 326}})
        self._sse("[DONE]")
        self._chunk(b"")

    def _mode_drop(self) -> None:
        self._start_stream()
        for piece in STREAM_PIECES[:2]:
            self._sse(self._delta(piece))
        # Cut the connection without the terminating zero-length chunk.
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, ServerState]]:
    state = ServerState()
    with serve(ChatHandler, state=state) as url:
        yield f"{url}/v1", state


@pytest.fixture
def srv(server: tuple[str, ServerState]) -> tuple[str, ServerState]:
    url, state = server
    state.script.clear()
    state.requests.clear()
    state.headers.clear()
    state.default = "ok"
    return url, state


@pytest.fixture(scope="module")
def photo() -> Image.Image:
    """A 640x480 drawing with circles and text: busy enough that any resampling difference changes pixels."""
    image = Image.new("RGB", (640, 480), (250, 248, 240))
    draw = ImageDraw.Draw(image)
    for i, colour in enumerate([(200, 30, 30), (30, 140, 60), (40, 60, 200)]):
        draw.ellipse((60 + 190 * i, 140, 200 + 190 * i, 280), outline=colour, width=6)
    draw.text((40, 30), "How many circles?", fill=(0, 0, 0), font=ImageFont.truetype(FONT, 40))
    return image


def decode_data_url(url: str) -> tuple[str, Image.Image]:
    header, b64 = url.split(",", 1)
    image = Image.open(io.BytesIO(base64.b64decode(b64)))
    image.load()
    return header, image


def make(url: str, **kw: Any) -> OpenAIExpert:
    kw.setdefault("backoff_s", 0.01)
    return OpenAIExpert("qwen", base_url=url, model="qwen-test", **kw)


def test_normal_call_sends_image_prompt_and_reads_usage(srv: tuple[str, ServerState], photo: Image.Image) -> None:
    url, state = srv
    crop = photo.crop((60, 140, 200, 280))
    with make(url, max_pixels=640 * 480 // 4, api_key="sk-local") as expert:
        reply = expert.generate([
            {"role": "system", "content": [text_part("Answer briefly.")]},
            {"role": "user", "content": [image_part(photo), image_part(crop), text_part("How many circles?")]},
        ], max_tokens=77)
    assert (reply.text, reply.tokens_in, reply.tokens_out) == (ANSWER, 321, 7)
    assert reply.latency_ms > 0
    [sent] = state.requests
    assert sent["model"] == "qwen-test" and sent["max_tokens"] == 77 and sent["temperature"] == 0.0
    assert "stream" not in sent
    assert state.headers[0]["Authorization"] == "Bearer sk-local"
    assert sent["messages"][0] == {"role": "system", "content": [{"type": "text", "text": "Answer briefly."}]}
    parts = sent["messages"][1]["content"]
    assert [p["type"] for p in parts] == ["image_url", "image_url", "text"]
    assert parts[2]["text"] == "How many circles?"
    header, main = decode_data_url(parts[0]["image_url"]["url"])
    assert header == "data:image/png;base64"
    # max_pixels is a quarter of the area: each side halves, with PIL's bicubic filter.
    assert main.size == (320, 240)
    assert main.tobytes() == photo.resize((320, 240), Image.Resampling.BICUBIC).tobytes()
    # The crop is small enough to go as is, after the main image.
    _, sent_crop = decode_data_url(parts[1]["image_url"]["url"])
    assert sent_crop.size == (140, 140) and sent_crop.tobytes() == crop.tobytes()


def test_jpeg_and_blindtest_image(srv: tuple[str, ServerState], blindtest_dir: Path) -> None:
    url, state = srv
    item = json.loads((blindtest_dir / "items.jsonl").read_text().splitlines()[0])
    image = Image.open(blindtest_dir / item["image"])
    with make(url, image_format="jpeg") as expert:
        expert.generate([{"role": "user", "content": [image_part(image), text_part(item["question"])]}])
    parts = state.requests[0]["messages"][0]["content"]
    header, sent = decode_data_url(parts[0]["image_url"]["url"])
    assert header == "data:image/jpeg;base64" and sent.size == image.size
    assert parts[1]["text"] == item["question"]


def test_slow_server_times_out_after_bounded_retries(srv: tuple[str, ServerState]) -> None:
    url, state = srv
    state.default = "slow"
    with make(url, timeout_s=0.25, retries=2) as expert, pytest.raises(ExpertError) as info:
        expert.generate([{"role": "user", "content": [text_part("hi")]}])
    assert f"expert 'qwen' at {url} timed out after 0.25 s" in str(info.value)
    assert "3 attempts" in str(info.value)
    assert len(state.requests) == 3


def test_500_then_200_is_retried(srv: tuple[str, ServerState]) -> None:
    url, state = srv
    state.script[:] = ["e500", "e500", "ok"]
    with make(url, retries=2) as expert:
        reply = expert.generate([{"role": "user", "content": [text_part("hi")]}])
    assert reply.text == ANSWER and len(state.requests) == 3


def test_500_beyond_retries_reports_server_message(srv: tuple[str, ServerState]) -> None:
    url, state = srv
    state.default = "e500"
    with make(url, retries=1) as expert, pytest.raises(ExpertError, match="returned HTTP 500: engine overloaded"):
        expert.generate([{"role": "user", "content": [text_part("hi")]}])
    assert len(state.requests) == 2


def test_400_is_not_retried(srv: tuple[str, ServerState]) -> None:
    url, state = srv
    state.default = "e400"
    with make(url, retries=3) as expert, pytest.raises(ExpertError) as info:
        expert.generate([{"role": "user", "content": [text_part("hi")]}], max_tokens=10**6)
    assert "returned HTTP 400: max_tokens must be at most 32768" in str(info.value)
    assert len(state.requests) == 1 and state.requests[0]["max_tokens"] == 10**6


def test_malformed_json(srv: tuple[str, ServerState]) -> None:
    url, state = srv
    state.default = "malformed"
    with make(url) as expert, pytest.raises(ExpertError, match="returned malformed JSON"):
        expert.generate([{"role": "user", "content": [text_part("hi")]}])
    assert len(state.requests) == 1


def test_streaming_with_usage(srv: tuple[str, ServerState], photo: Image.Image) -> None:
    url, state = srv
    state.default = "stream"
    with make(url, stream=True, max_tokens=64) as expert:
        reply = expert.generate([{"role": "user", "content": [image_part(photo), text_part("Count.")]}])
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ("".join(STREAM_PIECES), 321, 5)
    sent = state.requests[0]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert sent["max_tokens"] == 64


def test_disconnect_mid_stream(srv: tuple[str, ServerState]) -> None:
    url, state = srv
    state.default = "drop"
    with make(url, stream=True, retries=1) as expert, pytest.raises(ExpertError) as info:
        expert.generate([{"role": "user", "content": [text_part("hi")]}])
    assert "connection dropped mid-stream after 2 tokens" in str(info.value)
    assert len(state.requests) == 2


def test_drop_then_full_stream_recovers(srv: tuple[str, ServerState]) -> None:
    url, state = srv
    state.script[:] = ["drop", "stream"]
    with make(url, stream=True, retries=1) as expert:
        assert expert.generate([{"role": "user", "content": [text_part("hi")]}]).text == "".join(STREAM_PIECES)


def test_refused_connection(srv: tuple[str, ServerState]) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with make(f"http://127.0.0.1:{port}/v1", retries=0) as expert:
        with pytest.raises(ExpertError, match="could not be reached"):
            expert.generate([{"role": "user", "content": [text_part("hi")]}])
        ok, _, detail = expert.health()
    assert not ok and "unreachable" in detail


def test_concurrent_calls_share_one_client(srv: tuple[str, ServerState]) -> None:
    url, state = srv
    results: list[str] = []
    with make(url) as expert:
        threads = [threading.Thread(target=lambda i=i: results.append(expert.generate(
            [{"role": "user", "content": [text_part(f"question {i}")]}]).text)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert results == [ANSWER] * 8
    assert sorted(r["messages"][0]["content"][0]["text"] for r in state.requests) == [f"question {i}" for i in range(8)]


def test_health(srv: tuple[str, ServerState]) -> None:
    url, _ = srv
    with make(url) as expert:
        ok, latency, detail = expert.health()
    assert ok and latency > 0 and detail == "serving qwen-test"
    with OpenAIExpert("other", base_url=url, model="llava") as other:
        ok, _, detail = other.health()
    assert not ok and "'llava' not served" in detail and "qwen-test" in detail


@pytest.mark.parametrize(("max_pixels", "model", "box_frame", "written"), [
    # Sent as is (640x480); the server's processor resized it to 644x476 (multiples of 28), the frame of the box.
    (1_003_520, "qwen-test", "resized_pixels", [322, 119, 644, 476]),
    # Sent downscaled to 320x240, which the server's processor, started with the same max_pixels (serve-experts
    # passes it), resized to 308x224 (308x252 would pass the limit); the family overrides the declared frame.
    (640 * 480 // 4, "Qwen/Qwen2.5-VL-7B-Instruct", "pixels", [154, 56, 308, 224]),
    # Qwen3-VL writes 0-1000 units whatever the registry says.
    (1_003_520, "Qwen/Qwen3-VL-8B-Instruct", "pixels", [500, 250, 1000, 1000]),
    # A generic model in the frame its registry entry declares.
    (1_003_520, "some-vlm", "relative_1", [0.5, 0.25, 1, 1]),
])
def test_reply_boxes_are_in_pixels_of_the_first_image(srv: tuple[str, ServerState], photo: Image.Image,
                                                      max_pixels: int, model: str, box_frame: str,
                                                      written: list[float]) -> None:
    url, state = srv
    state.default, state.box = "box", written
    crop = photo.crop((0, 0, 100, 100))  # later images do not change what the boxes refer to
    with OpenAIExpert("qwen", base_url=url, model=model, max_pixels=max_pixels, box_frame=box_frame) as expert:
        reply = expert.generate([{"role": "user", "content": [image_part(photo), image_part(crop),
                                                              text_part("Where is the right half?")]}])
        text_only = expert.generate([{"role": "user", "content": "Where is the right half?"}])
    [found] = reply.boxes
    assert found.label == "circle" and "bbox_2d" in reply.text  # the text is left as the model wrote it
    assert (found.box.x0, found.box.y0, found.box.x1, found.box.y1) == pytest.approx((320, 120, 640, 480))
    assert text_only.boxes == []  # no image: nothing the boxes could refer to
