"""sc@k end to end: samples in parallel within one run budget, the vote stored, shown and turned into confidence,
and a clear warning when the policy cannot sample.

The orchestrator is a real local chat-completions server (stdlib ``http.server``) playing scripted turns, as in
``tests/test_vlm_policy.py``; this one can hold each reply for a while and counts requests in flight, so the tests
see the samples overlap. The CLI runs as a real subprocess.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agents.config import Settings
from agents.export.training_data import export
from agents.runtime import Maestro
from tests import test_vlm_policy as vlm
from tests.local_http import JsonHandler, models_reply, serve
from tests.test_cli import maestro as cli

sign = vlm.sign
QUESTION = "How many letters are on the sign?"


@dataclass
class Slow:
    """Scripted replies, each held ``delay_s`` before it is sent; counts how many requests overlap."""

    replies: list[str] = field(default_factory=list)
    delay_s: float = 0.0
    requests: int = 0
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class SlowChat(JsonHandler):
    state: Slow

    def do_GET(self) -> None:
        self.send_json(200, models_reply(vlm.MODEL))

    def do_POST(self) -> None:
        self.read_json()
        with self.state.lock:
            self.state.requests += 1
            self.state.in_flight += 1
            self.state.most_in_flight = max(self.state.most_in_flight, self.state.in_flight)
            text = self.state.replies.pop(0) if self.state.replies else "<think>out of script</think>"
        time.sleep(self.state.delay_s)
        with self.state.lock:
            self.state.in_flight -= 1
        with contextlib.suppress(OSError):  # the client may have given up waiting (its budget ran out)
            self.send_json(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 900, "completion_tokens": 9}})


@pytest.fixture
def slow() -> Iterator[tuple[str, Slow]]:
    state = Slow()
    with serve(SlowChat, state=state) as url:
        yield f"{url}/v1", state


def registry(tmp_path: Path, url: str, *, sc: int = 1, extra: str = "") -> Path:
    path = vlm.write_registry(tmp_path / "registry.yaml", url, sc=sc)
    text = path.read_text().replace("  self_consistency:", f"{extra}  self_consistency:")
    path.write_text(text, encoding="utf-8")
    return path


def open_app(tmp_path: Path, url: str, **kw: Any) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path / "home", registry_path=registry(tmp_path, url, **kw)))


def answer(text: str) -> str:
    return f"<think>Counting the letters.</think><answer>{text}</answer>"


def test_samples_run_in_parallel_and_the_vote_is_stored_on_the_winner(slow: tuple[str, Slow], sign: Path,
                                                                      tmp_path: Path) -> None:
    url, state = slow
    state.replies[:] = [answer("9"), answer("9"), answer("{9}"), answer("8")]
    state.delay_s = 0.5
    app = open_app(tmp_path, url, extra="  self_consistency_concurrency: 4\n")
    result = app.ask(sign, QUESTION, sc=4)

    assert state.requests == 4 and state.most_in_flight > 1  # the samples overlapped
    # The orchestrator read the sign itself, without a tool: its own words are no evidence, however often it
    # repeats them, so the voted run abstains (docs/design.md §9); the vote is kept with it all the same.
    assert result.status == "abstained" and result.answer is None
    assert "too few rated examples of this kind" in result.reason and "orchestrator's own reading" in result.reason
    assert result.trust["candidate"] == "9" and result.trust["evidence"]["vote"] == 0.75
    vote = result.vote
    assert vote["k"] == 4 and vote["counts"] == {"9": 3, "8": 1} and vote["agreement"] == 0.75
    assert sorted(a or "" for a in vote["answers"]) == ["8", "9", "9", "9"]
    stored = app.store.get_run(result.id)
    assert stored.vote == vote and stored.id == vote["run_ids"][vote["winner_index"]]
    assert (stored.status, stored.answer, stored.trust) == ("abstained", None, result.trust)
    others = [app.store.get_run(r) for r in vote["run_ids"] if r != result.id]
    assert all(o.vote == {} and o.config["sc"]["group"] == vote["group"] for o in others)

    # Exports carry the vote with the trajectory of the run that holds it.
    app.store.add_rating(result.id, rater="ann", verdict="correct")
    export(app.store, app.registry, tmp_path / "out", formats=["sft"])
    [row] = [json.loads(line) for line in (tmp_path / "out" / "sft.jsonl").read_text().splitlines()]
    assert row["run_id"] == result.id and json.loads(row["vote"]) == vote


def test_weak_agreement_abstains_and_says_why(slow: tuple[str, Slow], sign: Path, tmp_path: Path) -> None:
    url, state = slow
    state.replies[:] = [answer("7"), answer("8"), answer("9")]
    app = open_app(tmp_path, url)
    result = app.ask(sign, QUESTION, sc=3)
    assert result.status == "abstained" and result.answer is None
    assert result.vote["agreement"] == pytest.approx(1 / 3, abs=1e-3)
    assert result.trust["evidence"]["vote"] == pytest.approx(1 / 3, abs=1e-3)
    stored = app.store.get_run(result.id)
    assert stored.status == "abstained" and stored.vote["counts"] == {"7": 1, "8": 1, "9": 1}


@pytest.mark.slow
def test_the_call_shares_one_budget_across_its_threads(slow: tuple[str, Slow], sign: Path, tmp_path: Path) -> None:
    url, state = slow
    state.replies[:] = [answer("9")] * 3
    state.delay_s = 30.0  # longer than the budget: the first sample's call is cut by it
    app = open_app(tmp_path, url, extra="  run_budget_s: 1.5\n  self_consistency_concurrency: 1\n")
    started = time.monotonic()
    result = app.ask(sign, QUESTION, sc=3)
    assert time.monotonic() - started < 15
    # One sample at a time: the first spent the call's budget, so the later ones never reached the server.
    assert state.requests == 1
    samples = [app.store.get_run(r) for r in result.vote["run_ids"]]
    assert [s.status for s in samples] == ["failed"] * 3
    assert "timed out" in (samples[0].reason or "") and result.vote["counts"] == {}
    assert all("time budget was spent before the call" in (s.reason or "") for s in samples[1:])


@pytest.mark.slow
def test_cli_sc_shows_the_vote_and_the_model_calls(slow: tuple[str, Slow], sign: Path, tmp_path: Path) -> None:
    url, state = slow
    state.replies[:] = [answer("9"), answer("8"), answer("9")]
    path = registry(tmp_path, url)
    home = tmp_path / "home"
    out = cli("ask", str(sign), QUESTION, "--sc", "3", "--registry", str(path), home=home, check=False)
    # The samples are the orchestrator's own readings (no tool call): voted on, shown, and still no answer.
    assert "self-consistency sc@3: 9 ×2, 8 ×1; agreement 0.67" in out.stdout and out.returncode == 1
    assert "too few rated examples of this kind" in out.stdout
    state.replies[:] = [answer("9"), answer("8"), answer("9")]
    payload = json.loads(cli("ask", str(sign), QUESTION, "--sc", "3", "--json", "--registry", str(path),
                             home=home, check=False).stdout)
    assert payload["vote"]["counts"] == {"9": 2, "8": 1} and payload["status"] == "abstained"
    [call] = payload["steps"][0]["model_calls"]
    assert call["role"] == "orchestrator" and call["raw_reply"] in (answer("9"), answer("8"))

    shown = cli("runs", "show", payload["run_id"], "--registry", str(path), home=home).stdout
    assert "self-consistency sc@3" in shown and "orchestrator call Orchestrator" in shown
    assert "raw reply" in shown and "Question: How many letters are on the sign?" in shown
    assert "You are Maestro" in shown  # the exact system prompt, as sent
    stored = json.loads(cli("runs", "show", payload["run_id"], "--json", "--registry", str(path),
                            home=home).stdout)
    assert stored["vote"]["agreement"] == pytest.approx(0.6667, abs=1e-3)
    messages = stored["steps"][0]["model_calls"][0]["messages"]
    assert messages[1]["content"][0]["type"] == "image" and len(messages[1]["content"][0]["image_id"]) == 64


@pytest.mark.slow
def test_a_policy_that_cannot_sample_is_asked_once_with_a_warning(sign: Path, tmp_path: Path) -> None:
    out = cli("ask", str(sign), "What is written on the sign?", "--sc", "3", "--json", home=tmp_path)
    assert "warning: self-consistency sc@3 was asked for, but the router policy is deterministic" in out.stderr
    payload = json.loads(out.stdout)
    assert payload["status"] == "done" and payload["vote"] is None
    assert len(json.loads(cli("runs", "list", "--json", home=tmp_path).stdout)) == 1  # asked once
    shown = cli("runs", "show", payload["run_id"], home=tmp_path).stdout
    assert "warning:" in shown and "cannot sample" in shown
    [line] = [line for line in out.stderr.splitlines() if line.startswith("warning: ")]
    app = Maestro.open(Settings.resolve(data_dir=tmp_path))
    assert app.store.get_run(payload["run_id"]).config["sc"] == {
        "k": 3, "sampled": False, "warning": line.removeprefix("warning: ")}


@pytest.mark.slow
def test_eval_sc_records_the_agreement(slow: tuple[str, Slow], sign: Path, tmp_path: Path) -> None:
    url, state = slow
    state.replies[:] = [answer("9"), answer("9")]
    dataset = tmp_path / "set" / "items.jsonl"
    dataset.parent.mkdir()
    dataset.write_text(json.dumps({"id": "a", "image": str(sign), "question": QUESTION, "answer": "9"}) + "\n")
    cli("eval", str(dataset), "--out", str(tmp_path / "out"), "--sc", "2", "--registry",
        str(registry(tmp_path, url)), home=tmp_path / "home")
    [row] = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    # Withheld (the orchestrator's own reading), yet kept as a labelled candidate with its vote.
    assert row["status"] == "abstained" and row["vote_agreement"] == 1.0
    assert row["candidate"] == "9" and row["candidate_correct"] and row["evidence"]["vote"] == 1.0
