"""The VLM path as vLLM users run it, against a real scripted OpenAI-compatible server on 127.0.0.1.

One server plays both a Qwen3-VL Thinking orchestrator (its reasoning returned apart, as a server started with a
reasoning parser does) and a Qwen3-VL Instruct expert (boxes in 0-1000 units). ``maestro ask`` and ``maestro runs
show --json`` run as real subprocesses. What is checked: the registry's sampling, stop, seed and ``extra_body`` reach
the server; ``image_format: jpeg`` arrives as JPEG at the declared size; the expert's box is stored in original
pixels (as evidence, drawn, and on the model call), the orchestrator is shown it in that one frame and zooms into it
on the next step; reasoning is stored apart and never parsed for boxes.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from tests.local_http import JsonHandler, models_reply, serve

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
ORCHESTRATOR_MODEL = "Qwen/Qwen3-VL-8B-Thinking"
EXPERT_MODEL = "Qwen/Qwen3-VL-8B-Instruct"
#: The red disc of the test image, in its pixels, and the same box as Qwen3-VL writes it (0-1000 units).
CIRCLE = (200, 150, 400, 300)
CIRCLE_1000 = [250, 250, 500, 500]
#: A box-shaped list inside the expert's reasoning: it must never be read as a box.
DECOY = "[900, 900, 990, 990]"


@dataclass
class Script:
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _reply(content: str, reasoning: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 400, "completion_tokens": 30}}


def _texts(request: dict[str, Any]) -> str:
    return "\n".join(part.get("text", "") for message in request["messages"]
                     for part in (message["content"] if isinstance(message["content"], list)
                                  else [{"text": message["content"]}]))


class VllmLike(JsonHandler):
    script: Script

    def do_GET(self) -> None:
        self.send_json(200, models_reply(ORCHESTRATOR_MODEL, EXPERT_MODEL))

    def do_POST(self) -> None:
        body = self.read_json()
        with self.script.lock:
            self.script.requests.append(body)
        if body["model"] == EXPERT_MODEL:
            if "zoom [" in _texts(body):  # the query of a zoom step (the template speaks of zooming too)
                self.send_json(200, _reply("The zoomed region shows a red disc.", f"Nothing like {DECOY} here."))
            else:
                content = f'```json\n[{{"bbox_2d": {CIRCLE_1000}, "label": "red circle"}}]\n```'
                self.send_json(200, _reply(content, f"The disc is upper left; not at {DECOY}."))
            return
        turns = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turns == 0:
            self.send_json(200, _reply("\n<search> Qwen3@@Perception: where is the circle? </search>",
                                       "I should locate the circle first."))
        elif turns == 1:
            # The orchestrator zooms into the first box it was shown: whatever frame that box is in.
            shown = re.search(r"\[\d+, \d+, \d+, \d+\]", _texts(body))
            box = shown.group(0) if shown else "[0, 0, 1, 1]"
            self.send_json(200, _reply(f"<search> Qwen3@@Perception: zoom {box} </search>", "Zoom into the box."))
        else:
            self.send_json(200, _reply("<answer>red</answer>", "The zoomed crop shows red."))


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Script]]:
    script = Script()
    with serve(VllmLike, script=script) as url:
        yield url, script


@pytest.fixture(scope="module")
def picture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("img") / "disc.png"
    image = Image.new("RGB", (800, 600), "white")
    ImageDraw.Draw(image).ellipse(CIRCLE, fill=(220, 30, 30))
    image.save(path)
    return path


def write_registry(folder: Path, url: str) -> Path:
    path = folder / "registry.yaml"
    path.write_text(f"""
orchestrator: {{policy: vlm, expert: Orchestrator, max_turns: 3}}
experts:
  - name: Orchestrator
    backend: openai
    base_url: {url}/v1
    model: {ORCHESTRATOR_MODEL}
    max_tokens: 900
    temperature: 1.0
    top_p: 0.95
    top_k: 20
    presence_penalty: 0.0
    seed: 1234
    stop: ["<information>"]
    extra_body: {{chat_template_kwargs: {{enable_thinking: true}}, repetition_penalty: 1.05}}
  - name: Qwen3
    description: Qwen3-VL Instruct, boxes in 0-1000 units.
    backend: openai
    base_url: {url}/v1
    model: {EXPERT_MODEL}
    strengths: [Perception]
    temperature: 0.7
    top_p: 0.8
    top_k: 20
    presence_penalty: 1.5
    max_tokens: 256
    image_format: jpeg
    jpeg_quality: 80
    max_pixels: 120000
  - name: Tools
    backend: tools
""", encoding="utf-8")
    return path


def maestro(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MAESTRO_HOME": str(home), "COLUMNS": "200"}
    env.pop("MAESTRO_DB", None)
    return subprocess.run([sys.executable, "-m", "ui.cli", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)


def decode(url: str) -> tuple[str, Image.Image]:
    header, data = url.split(",", 1)
    image = Image.open(io.BytesIO(base64.b64decode(data)))
    image.load()
    return header, image


@pytest.fixture(scope="module")
def stored(server: tuple[str, Script], picture: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One real run through the CLI, then ``maestro runs show --json`` of it."""
    url, _ = server
    home = tmp_path_factory.mktemp("home")
    registry = write_registry(home, url)
    asked = maestro("ask", str(picture), "What colour is the circle?", "--json", "--registry", str(registry),
                    home=home)
    assert asked.returncode in (0, 1), asked.stderr  # done, or abstained with a reason: both are stored
    run_id = json.loads(asked.stdout)["run_id"]
    shown = maestro("runs", "show", run_id, "--json", home=home)
    assert shown.returncode == 0, shown.stderr
    return {**json.loads(shown.stdout), "_home": str(home)}


def test_registry_sampling_stop_and_extra_body_arrive(stored: dict[str, Any], server: tuple[str, Script]) -> None:
    _, script = server
    orchestrator = [r for r in script.requests if r["model"] == ORCHESTRATOR_MODEL]
    expert = [r for r in script.requests if r["model"] == EXPERT_MODEL]
    assert len(orchestrator) == 3 and len(expert) == 2
    for sent in orchestrator:
        assert (sent["temperature"], sent["top_p"], sent["top_k"], sent["presence_penalty"]) == (1.0, 0.95, 20, 0.0)
        assert sent["seed"] == 1234 and sent["stop"] == ["<information>"] and sent["max_tokens"] == 900
        assert sent["chat_template_kwargs"] == {"enable_thinking": True} and sent["repetition_penalty"] == 1.05
    for sent in expert:
        assert (sent["temperature"], sent["top_p"], sent["top_k"], sent["presence_penalty"]) == (0.7, 0.8, 20, 1.5)
        assert sent["max_tokens"] == 256 and "stop" not in sent and "seed" not in sent
    # The stored model calls record the same parameters the server received.
    calls = [c for s in stored["steps"] for c in s["model_calls"]]
    assert calls[0]["params"]["top_k"] == 20 and calls[0]["params"]["seed"] == 1234


def test_jpeg_arrives_as_jpeg_within_max_pixels(stored: dict[str, Any], server: tuple[str, Script]) -> None:
    _, script = server
    sent = [r for r in script.requests if r["model"] == EXPERT_MODEL][0]
    parts = sent["messages"][0]["content"]
    header, image = decode(parts[0]["image_url"]["url"])
    assert header == "data:image/jpeg;base64" and image.format == "JPEG"
    assert image.width * image.height <= 120000 and abs(image.width / image.height - 800 / 600) < 0.01
    # The orchestrator's entry says nothing about the format: PNG, the default.
    first = [r for r in script.requests if r["model"] == ORCHESTRATOR_MODEL][0]
    assert decode(first["messages"][1]["content"][0]["image_url"]["url"])[0] == "data:image/png;base64"


def test_qwen3_box_is_stored_in_original_pixels(stored: dict[str, Any]) -> None:
    search = stored["steps"][0]
    assert (search["kind"], search["model"], search["skill"]) == ("search", "Qwen3", "Perception")
    [expert_call] = [c for c in search["model_calls"] if c["role"] == "expert"]
    assert [b["box"] for b in expert_call["boxes"]] == [list(CIRCLE)]
    assert expert_call["boxes"][0]["label"] == "red circle"
    [evidence] = [c for c in search["tool_calls"] if c["tool"] == "expert.boxes"]
    assert evidence["data"]["frame"] == "pixels" and evidence["data"]["image_size"] == [800, 600]
    assert [b["box"] for b in evidence["data"]["boxes"]] == [list(CIRCLE)]
    assert evidence["image_id"]  # drawn on the question's image, shown by the evidence viewer
    # The observation carries the box in one declared frame: pixels, never the 0-1000 units.
    assert "[200, 150, 400, 300]" in search["observation"] and "pixels of the original 800x600" in \
        search["observation"]
    assert "500, 500" not in search["observation"]


def test_the_next_step_zooms_into_the_box_it_was_shown(stored: dict[str, Any],
                                                        server: tuple[str, Script]) -> None:
    _, script = server
    second = [r for r in script.requests if r["model"] == ORCHESTRATOR_MODEL][1]
    assert "[200, 150, 400, 300]" in _texts(second)
    zoom = stored["steps"][1]
    assert zoom["query"] == "zoom [200, 150, 400, 300]"
    [cropped] = [c for c in zoom["tool_calls"] if c["tool"] == "zoom.crop"]
    x0, y0, x1, y1 = cropped["data"]["box"]
    assert x0 <= 200 and y0 <= 150 and x1 >= 400 and y1 >= 300 and x1 - x0 <= 230


def test_reasoning_is_stored_apart_and_never_parsed(stored: dict[str, Any]) -> None:
    calls = [c for s in stored["steps"] for c in s["model_calls"]]
    experts = [c for c in calls if c["role"] == "expert"]
    assert all(DECOY in c["reasoning"] for c in experts)
    assert all(DECOY not in c["raw_reply"] for c in experts)
    assert not any(b["box"] == [900, 900, 990, 990] for c in experts for b in c.get("boxes", []))
    assert experts[1].get("boxes") in (None, [])  # the zoom reply has no box; its reasoning's decoy was not read
    # The orchestrator's reasoning, returned apart, is the turn's <think> block, as the protocol writes it.
    first = stored["steps"][0]
    assert first["raw_text"].startswith("<think>I should locate the circle first.</think>")
    assert calls[0]["reasoning"] == "I should locate the circle first."


def test_the_run_records_what_reproduces_it(stored: dict[str, Any]) -> None:
    record = stored["config"]["reproducibility"]
    assert record["registry"]["hash"] == stored["registry_hash"]
    assert record["experts"]["Qwen3"]["top_k"] == 20 and record["experts"]["Qwen3"]["image_format"] == "jpeg"
    assert record["experts"]["Orchestrator"]["extra_body"]["chat_template_kwargs"] == {"enable_thinking": True}
    assert record["seeds"] == {"Orchestrator": 1234, "Qwen3": None}
    assert record["sampling"]["policy"] == "vlm" and record["sampling"]["max_turns"] == 3
    assert record["packages"]["python"] == sys.version.split()[0] and record["packages"]["httpx"]
    assert record["engine_flags"] == {}  # no entry has a serve: block, so no engine flags are claimed


def test_expert_boxes_are_drawn_and_listed_in_the_evidence_viewer(stored: dict[str, Any]) -> None:
    from storage import open_store
    from ui.render import model_call_messages
    from ui.web_evidence import box_rows, evidence_items

    with open_store(Path(stored["_home"])) as store:
        record = store.get_run(stored["id"])
        assert record is not None
        rows = box_rows(record)
        items = evidence_items(record, store.images.path)
        calls = model_call_messages(record.steps[0], "step-0", store.images.path)
    # Replay shows the expert's reasoning apart from its reply, and its boxes in pixels.
    [expert] = [m.content for m in calls if "expert call" in (m.metadata or {}).get("title", "")]
    assert "**Reasoning**" in expert and DECOY in expert and "red circle [200, 150, 400, 300]" in expert
    assert [1, "expert.boxes", "red circle", *CIRCLE, ""] in [row[1:] for row in rows]  # first column: answer's rows
    [(path, caption)] = [(p, c) for p, c in items if "expert.boxes" in c]
    assert caption.startswith("Step 1 · expert.boxes · 1 box ·")
    drawn = Image.open(path).convert("RGB")
    assert drawn.size == (800, 600)
    # The outline is drawn on the box's edge (blue), around the red disc.
    assert drawn.getpixel((CIRCLE[0], 225)) == (0, 170, 255) and drawn.getpixel((300, 225)) == (220, 30, 30)


def test_expert_boxes_export_for_grounding_sft(stored: dict[str, Any], tmp_path: Path) -> None:
    home = Path(stored["_home"])
    rated = maestro("rate", stored["id"], "--verdict", "correct", home=home)
    assert rated.returncode == 0, rated.stderr
    out = tmp_path / "export"
    done = maestro("export", "--format", "grounding_experts", "--out", str(out), home=home)
    assert done.returncode == 0, done.stderr
    [row] = [json.loads(line) for line in (out / "grounding_experts.jsonl").read_text().splitlines()]
    assert (row["run_id"], row["step_index"], row["model"], row["skill"]) == (stored["id"], 0, "Qwen3", "Perception")
    assert row["image_size"] == [800, 600] and [b["box"] for b in row["boxes"]] == [list(CIRCLE)]
    assert row["target_frame"] == "relative_1000" and row["checked"] == "answer"
    target = row["messages"][-1]
    assert target["role"] == "assistant" and target["train"] is True
    assert json.loads(target["content"][0]["text"].strip("`").removeprefix("json")) == [
        {"bbox_2d": CIRCLE_1000, "label": "red circle"}]
    prompt = row["messages"][0]
    assert prompt["train"] is False and prompt["content"][0]["type"] == "image"
    assert Image.open(out / row["images"][0]).size == (800, 600)  # the question's image, first
