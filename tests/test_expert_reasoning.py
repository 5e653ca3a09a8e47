"""Reasoning kept apart from the reply, the server's time as latency, and the resize rule imported when the back
end is built: OpenAIExpert against the scripted chat-completions server of ``test_expert_openai``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from agents.experts.base import image_part, text_part
from agents.experts.coordinates import load_resize_rule
from agents.experts.openai_backend import OpenAIExpert
from tests.local_http import serve
from tests.test_expert_openai import ChatHandler, ServerState

DECOY = "[100, 100, 200, 200]"
REPLY = "There are 3 circles."


class ThinkingHandler(ChatHandler):
    def _message(self, message: dict[str, Any]) -> None:
        self.send_json(200, {"choices": [{"index": 0, "message": {"role": "assistant", **message},
                                          "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 10, "completion_tokens": 5}})

    def _mode_inline(self) -> None:  # a server without a reasoning parser
        self._message({"content": f"<think>Maybe the box {DECOY}?</think>\n\n{REPLY}"})

    def _mode_opened(self) -> None:  # Qwen3-VL Thinking: the template opened <think>, only the close appears
        self._message({"content": f"Maybe the box {DECOY}?\n</think>\n{REPLY}"})

    def _mode_field(self) -> None:  # vLLM with --reasoning-parser (older field name)
        self._message({"content": REPLY, "reasoning_content": f"Maybe the box {DECOY}?"})

    def _mode_newfield(self) -> None:  # newer vLLM
        self._message({"content": REPLY, "reasoning": f"Maybe the box {DECOY}?"})

    def _mode_thinkstream(self) -> None:
        self._start_stream()
        for piece in ("Maybe the box ", DECOY, "?"):
            self._sse({"choices": [{"index": 0, "delta": {"reasoning_content": piece}, "finish_reason": None}]})
        for piece in ("There are ", "3 circles."):
            self._sse(self._delta(piece))
        self._sse(self._delta("", "stop"))
        self._sse("[DONE]")
        self._chunk(b"")

    def _mode_pause(self) -> None:
        time.sleep(0.3)
        self._message({"content": REPLY})


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, ServerState]]:
    state = ServerState()
    with serve(ThinkingHandler, state=state) as url:
        yield f"{url}/v1", state


@pytest.mark.parametrize("mode", ["inline", "opened", "field", "newfield", "thinkstream"])
def test_reasoning_is_kept_apart_and_never_read_for_boxes(server: tuple[str, ServerState], mode: str) -> None:
    from PIL import Image

    url, state = server
    state.default = mode
    with OpenAIExpert("q", base_url=url, model="Qwen/Qwen3-VL-8B-Thinking", stream=mode == "thinkstream") as expert:
        reply = expert.generate([{"role": "user", "content": [image_part(Image.new("RGB", (400, 300))),
                                                              text_part("How many?")]}])
    assert reply.text == REPLY
    assert reply.reasoning == f"Maybe the box {DECOY}?"
    assert reply.boxes == [] and reply.pixel_text is None  # the decoy in the reasoning is not a box
    if mode in ("inline", "opened"):
        assert reply.raw_text != REPLY and DECOY in reply.raw_text  # the exact reply is kept for replay
    else:
        assert reply.raw_text == REPLY


def test_latency_is_the_answering_requests_time(server: tuple[str, ServerState]) -> None:
    url, state = server
    state.script[:] = ["e500", "pause"]
    started = time.perf_counter()
    with OpenAIExpert("q", base_url=url, model="m", retries=1, backoff_s=0.6) as expert:
        reply = expert.generate([{"role": "user", "content": [text_part("hi")]}])
    wall = (time.perf_counter() - started) * 1000
    assert reply.text == REPLY and wall >= 900
    # The retry's pause and the failed attempt are not the model's time; the server's 0.3 s sleep is.
    assert 300 <= reply.latency_ms < wall - 500


def test_the_resize_rule_is_imported_when_the_back_end_is_built(server: tuple[str, ServerState]) -> None:
    url, _ = server
    load_resize_rule.cache_clear()
    with OpenAIExpert("q", base_url=url, model="Qwen/Qwen3-VL-8B-Instruct"):
        assert load_resize_rule.cache_info().currsize == 0  # 0-1000 boxes need no resize rule
    with OpenAIExpert("q", base_url=url, model="Qwen/Qwen2.5-VL-7B-Instruct"):
        assert load_resize_rule.cache_info().currsize == 1  # loaded now, not during the first call


def test_an_image_is_encoded_once_and_sent_alike_on_every_turn(server: tuple[str, ServerState]) -> None:
    from PIL import Image

    url, state = server
    state.default, state.requests[:] = "field", []
    photo = Image.effect_noise((900, 700), 60).convert("RGB")  # noise: slow to compress, as photos are
    with OpenAIExpert("q", base_url=url, model="m", image_format="jpeg", jpeg_quality=80) as expert:
        for turn in range(3):
            expert.generate([{"role": "user", "content": [image_part(photo), text_part(f"turn {turn}")]}])
        first = expert.data_url(photo)
        assert expert.data_url(photo) is first  # the same string object: encoded once
        assert expert.data_url(photo.copy()) is not first  # another image object is encoded on its own
    sent = [r["messages"][0]["content"][0]["image_url"]["url"] for r in state.requests]
    assert sent == [first] * 3 and first.startswith("data:image/jpeg;base64,")
