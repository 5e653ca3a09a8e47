"""VLMPolicy against a real local chat-completions server that plays scripted protocol turns, and sc@k on top.

The server (stdlib ``http.server`` on 127.0.0.1) records every request and answers each with the next scripted
assistant text, so the tests can assert exactly what the policy sent: the registry-generated system prompt, the
image as a data URL, the ``<information>`` observation of the previous step, the repair and force-answer
instructions. Searches go to the real ``Tools`` expert (RapidOCR on a rendered sign), runs to a real SQLite store.
"""

from __future__ import annotations

import base64
import io
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.evaluation.self_consistency import VotedRun, majority_vote, vote_key
from agents.policies.base import Context
from agents.policies.vlm import CHARS_PER_TOKEN, FORCE_ANSWER, VLMPolicy
from agents.registry import load_registry
from agents.runtime import Maestro
from storage.trace import Run, Step
from tests.local_http import JsonHandler, models_reply, serve

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
MODEL = "maestro-orchestrator-test"


@dataclass
class Script:
    replies: list[str] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class ChatHandler(JsonHandler):
    script: Script

    def do_GET(self) -> None:
        self.send_json(200, models_reply(MODEL))

    def do_POST(self) -> None:
        request = self.read_json()
        with self.script.lock:
            self.script.requests.append(request)
            text = self.script.replies.pop(0) if self.script.replies else "<think>out of script</think>"
        self.send_json(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                          "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 1000 + len(self.script.requests), "completion_tokens": 17}})


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Script]]:
    script = Script()
    with serve(ChatHandler, script=script) as url:
        yield f"{url}/v1", script


@pytest.fixture
def chat(server: tuple[str, Script]) -> tuple[str, Script]:
    url, script = server
    script.replies.clear()
    script.requests.clear()
    return url, script


@pytest.fixture(scope="module")
def sign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("img") / "sign.png"
    image = Image.new("RGB", (520, 220), (245, 245, 240))
    draw = ImageDraw.Draw(image)
    draw.rectangle((8, 8, 512, 212), outline=(200, 30, 30), width=10)
    draw.text((45, 75), "NO PARKING", fill=(15, 15, 15), font=ImageFont.truetype(FONT, 60))
    image.save(path)
    return path


def write_registry(path: Path, url: str, *, max_turns: int = 2, sc: int = 1) -> Path:
    path.write_text(f"""
orchestrator:
  policy: vlm
  expert: Orchestrator
  max_turns: {max_turns}
  self_consistency: {sc}
experts:
  - name: Orchestrator
    description: The orchestrator model itself.
    backend: openai
    base_url: {url}
    model: {MODEL}
    retries: 0
  - name: Tools
    description: Deterministic vision tools, no neural model.
    backend: tools
    strengths: [OCR, Counting]
  - name: Chart-Expert
    aliases: [chart]
    description: A chart specialist.
    backend: openai
    base_url: {url}
    model: {MODEL}
    strengths: [Chart]
""", encoding="utf-8")
    return path


def open_maestro(tmp_path: Path, url: str, **kw: Any) -> Maestro:
    registry = write_registry(tmp_path / "registry.yaml", url, **kw)
    return Maestro.open(Settings.resolve(data_dir=tmp_path / "home", registry_path=registry))


def texts(message: dict[str, Any]) -> str:
    return "\n".join(p["text"] for p in message["content"] if p["type"] == "text")


def test_vlm_policy_turns_messages_and_forced_answer(chat: tuple[str, Script], sign: Path, tmp_path: Path) -> None:
    url, script = chat
    script.replies[:] = [
        "<think>The sign has text; the OCR skill reads it.</think>\n"
        "<search> Tools@@OCR: What is written on the sign? </search>\n<information>invented</information>",
        "<think>Let me ask a model that does not exist.</think>\n<search> Nobody@@OCR: again </search>",
        "<think>The OCR evidence says NO PARKING.</think>\n<answer>NO PARKING</answer> trailing chatter",
    ]
    maestro = open_maestro(tmp_path, url, max_turns=2)
    assert isinstance(maestro.policy, VLMPolicy)
    result = maestro.ask(sign, "What is written on the sign?")

    assert (result.status, result.answer, result.forced_answer) == ("done", "NO PARKING", True)
    assert [s.kind for s in result.steps] == ["search", "think", "answer"]
    first, bad, final = result.steps
    # The policy's text is cut after its action: the invented <information> never reaches the run.
    assert first.raw_text.endswith("</search>") and "invented" not in first.raw_text
    assert (first.model, first.skill, first.status) == ("Tools", "OCR", "ok")
    assert "NO PARKING" in (first.observation or "")
    assert bad.status == "error" and any(v.startswith("unknown_model") for v in bad.violations)
    assert final.status == "forced" and final.raw_text.endswith("</answer>")
    assert (first.tokens_in, first.tokens_out) == (1001, 17)

    requests = script.requests
    assert len(requests) == 3
    assert all(r["model"] == MODEL and r["temperature"] == 0.0 for r in requests)
    system, user = requests[0]["messages"][:2]
    prompt = texts(system)
    registry = maestro.registry
    for name in ["Tools", "Chart-Expert"]:
        assert f"- {name}: " in prompt
    assert "- Orchestrator:" not in prompt  # the orchestrator is not offered as its own expert
    for skill in registry.skills:
        assert f"- {skill.spec.name}: " in prompt
    assert "at most 2 turns" in prompt
    image_url = user["content"][0]["image_url"]["url"]
    assert image_url.startswith("data:image/png;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(image_url.split(",", 1)[1])))
    assert sent.size == Image.open(sign).size
    assert user["content"][1]["text"] == "Question: What is written on the sign?"

    second = requests[1]["messages"]
    assert len(second) == 4 and second[2]["role"] == "assistant" and texts(second[2]) == first.raw_text
    information = texts(second[3])
    assert information.startswith("<information>") and information.endswith("</information>")
    assert "NO PARKING" in information and FORCE_ANSWER not in information

    third = requests[2]["messages"]
    assert texts(third[4]) == bad.raw_text
    assert "could not be used" in texts(third[5]) and "unknown_model" in texts(third[5])
    assert texts(third[-1]) == FORCE_ANSWER

    stored = maestro.store.get_run(result.id)
    assert stored.status == "done" and stored.forced_answer and stored.answer == "NO PARKING"
    assert [s.kind for s in stored.steps] == ["search", "think", "answer"]
    assert stored.steps[0].routing["orchestrator"] == "Orchestrator"
    assert stored.tokens_in == 1001 + 1002 + 1003 and stored.config["policy"] == "vlm"


def test_observation_budget_in_approximate_tokens(sign: Path, chat: tuple[str, Script], tmp_path: Path) -> None:
    url, _ = chat
    registry = load_registry(write_registry(tmp_path / "registry.yaml", url))
    long_text = " ".join(f"word{i}" for i in range(2000))
    step = Step(index=0, kind="search", raw_text="<think>x</think><search> Tools@@OCR: q </search>",
                model="Tools", skill="OCR", observation=long_text)
    ctx = Context("q?", Image.open(sign), registry, [step], max_turns=4, turn=1)
    policy = VLMPolicy(registry, observation_max_tokens=50)
    information = texts(policy.messages(ctx)[3])
    body = information.removeprefix("<information>").removesuffix("</information>")
    assert len(body) <= 50 * CHARS_PER_TOKEN and "truncated" in body and body.startswith("word0 word1")
    # Without a token override the paper's 1,024 tokens apply, capped by the registry's character budget.
    assert VLMPolicy(registry).observation_budget == min(registry.orchestrator.observation_max_chars, 4096)


def test_self_consistency_votes_over_three_stored_samples(chat: tuple[str, Script], sign: Path,
                                                          tmp_path: Path) -> None:
    url, script = chat
    script.replies[:] = ["<think>Count.</think><answer>{7}</answer>",
                         "<think>Count again.</think><answer>8</answer>",
                         "<think>Once more.</think><answer>7.</answer>"]
    maestro = open_maestro(tmp_path, url, sc=3)
    result = maestro.ask(sign, "How many letters are on the sign?")

    assert isinstance(result, VotedRun)
    assert result.ballot is not None
    assert result.ballot.counts == {"7": 2, "8": 1} and result.ballot.winner == "7"
    # Answers are returned in the form the question asks (a count): "{7}" and "7." both become "7". Samples run
    # in parallel, so which sample got which scripted reply varies; the carrier is the first sample that said 7.
    # The samples are the orchestrator's own readings (no tool call): voted on and kept, but not
    # answered before that kind has a rated record.
    winner = result.ballot.winner_index
    assert result.answer is None and result.status == "abstained" and result.id == result.ballot.run_ids[winner]
    assert result.ballot.answer == "7" and result.trust["candidate"] == "7"
    assert winner == min(i for i, a in enumerate(result.ballot.answers) if a == "7")
    assert len(result.samples) == 3 and result.total_tokens_in == 1001 + 1002 + 1003
    # Every sample was drawn at the paper's temperature, and the policy itself keeps its entry's sampling (None).
    assert [r["temperature"] for r in script.requests] == [1.0, 1.0, 1.0]
    assert maestro.policy.temperature is None

    stored = [maestro.store.get_run(run_id) for run_id in result.ballot.run_ids]
    assert len({s.id for s in stored}) == 3
    groups = {s.config["sc"]["group"] for s in stored}
    assert groups == {result.ballot.group}
    assert [s.config["sc"]["index"] for s in stored] == [0, 1, 2]
    assert sorted(s.trust["candidate"] for s in stored) == ["7", "7", "8"]
    assert all(s.config["sc"]["k"] == 3 and s.status == "abstained" for s in stored)


def test_vote_ignores_failed_runs_and_breaks_ties_by_order() -> None:
    image = Image.new("RGB", (8, 8))

    def run(answer: str | None, status: str = "done") -> Run:
        return Run(question="q", image=image, policy="vlm", answer=answer, status=status)  # type: ignore[arg-type]

    vote = majority_vote([run(None, "failed"), run("B"), run("(A)"), run("a", "failed"), run("b.")], "g")
    assert vote.counts == {"b": 2, "a": 1} and vote.winner_index == 1 and vote.answer == "B"
    assert vote_key("(A)") == "a" != vote_key("A cat")
    tie = majority_vote([run("cat"), run("dog")])
    assert tie.winner == "cat" and tie.agreement == 0.5
    assert majority_vote([run(None, "failed")]).winner is None
    assert [vote_key(a) for a in ["{3}", "3.0", " 3. ", "1,000", "50%", "The Cat!", ""]] == \
        ["3", "3", "3", "1000", "50%", "cat", None]


def test_thinking_model_reply_gets_its_opening_think_back(chat: tuple[str, Script], sign: Path,
                                                          tmp_path: Path) -> None:
    url, script = chat
    # Qwen3-VL-*-Thinking templates open <think> in the prompt, so the reply starts inside the block.
    script.replies[:] = ["The sign is plain text; I can read it directly.</think>\n<answer>NO PARKING</answer>"]
    result = open_maestro(tmp_path, url).ask(sign, "What is written on the sign?")
    # Its own reading, checked by no tool: parsed and kept as the candidate, never an answer.
    assert result.status == "abstained" and result.trust["candidate"] == "NO PARKING" and not result.forced_answer
    [step] = result.steps
    assert step.raw_text.startswith("<think>The sign is plain text") and step.violations == []
