"""Replay shows what the models were really sent and what they really said, and the sc@k vote: ``ui.render`` on a
stored VLM run (a scripted local chat server as orchestrator and expert), and the same page in Chromium.

The browser half is marked ``browser`` (Debian's Chromium through Playwright); screenshots go to
``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.config import Settings
from agents.runtime import Maestro
from tests import test_vlm_policy as vlm
from tests.test_vlm_policy import Script
from ui import render

server, chat, sign = vlm.server, vlm.chat, vlm.sign
QUESTION = "What is written on the sign?"
SEARCH = ("<think>The sign has text; the chart expert reads it.</think>\n"
          "<search> Chart-Expert@@OCR: What is written on the sign? </search>")
EXPERT_REPLY = "The sign says NO PARKING in red capitals.\nAnswer: NO PARKING"
ANSWER = "<think>The expert read NO PARKING.</think>\n<answer>NO PARKING</answer>"


@pytest.fixture
def voted(chat: tuple[str, Script], sign: Path, tmp_path: Path) -> dict[str, Any]:
    """A stored sc@3 VLM run, one sample at a time so the script plays in order: the first sample searches with an
    expert and answers, the second answers directly, the third disagrees."""
    url, script = chat
    script.replies[:] = [SEARCH, EXPERT_REPLY, ANSWER, "<think>Plain.</think><answer>NO PARKING</answer>",
                         "<think>Hm.</think><answer>STOP</answer>"]
    path = vlm.write_registry(tmp_path / "registry.yaml", url, max_turns=3, sc=3)
    path.write_text(path.read_text().replace("  self_consistency: 3", "  self_consistency: 3\n"
                                                                      "  self_consistency_concurrency: 1"))
    app = Maestro.open(Settings.resolve(data_dir=tmp_path / "home", registry_path=path))
    result = app.ask(sign, QUESTION)
    # 2 of 3 samples agreeing caps P(correct) at 0.67, below any 95 % threshold: the voted run abstains, and its
    # replay must show every model call all the same.
    assert result.status == "abstained" and result.vote["counts"] == {"no parking": 2, "stop": 1}
    return {"app": app, "record": app.store.get_run(result.id), "requests": list(script.requests)}


def content(message: Any) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


def test_replay_renders_every_model_calls_exact_prompt_and_raw_reply(voted: dict[str, Any]) -> None:
    app, record = voted["app"], voted["record"]
    messages = render.render_run(record, lambda image_id: app.store.images.path(image_id))
    calls = [m for m in messages if (m.metadata or {}).get("title", "").endswith(("Orchestrator", "Chart-Expert"))]
    titles = [m.metadata["title"] for m in calls]
    assert titles == ["orchestrator call · Orchestrator", "expert call · Chart-Expert",
                      "orchestrator call · Orchestrator"]
    assert all(m.metadata["parent_id"] == f"step-{i}" for m, i in zip(calls, [0, 0, 1], strict=True))
    first, expert, second = (content(m) for m in calls)
    sent_system = vlm.texts(voted["requests"][0]["messages"][0])
    assert sent_system in first  # the system prompt exactly as the server received it, in a code block
    assert "Question: What is written on the sign?" in first and "(the question image, shown above)" in first
    assert SEARCH in first and "**Raw reply** (before any sanitising)" in first
    expert_prompt = vlm.texts(voted["requests"][1]["messages"][-1])
    assert expert_prompt.splitlines()[0] in expert and EXPERT_REPLY in expert
    assert "<information>" in second and ANSWER in second  # the observation the orchestrator was shown

    [vote] = [content(m) for m in messages if content(m).startswith("**Self-consistency")]
    assert "sc@3" in vote and "**no parking** ×2" in vote and "**stop** ×1" in vote and "agreement 0.67" in vote
    assert all(f"(?run={run_id})" in vote for run_id in record.vote["run_ids"])
    assert messages.index(next(m for m in messages if content(m).startswith("**Self-consistency"))) == len(messages) - 2

    sample = app.store.get_run(next(r for r in record.vote["run_ids"] if r != record.id))
    [note] = [content(m) for m in render.render_run(sample, lambda i: None) if content(m).startswith("Sample")]
    assert note.startswith("Sample") and "sc@3" in note


@pytest.mark.browser
def test_replay_in_a_browser_shows_prompt_raw_reply_and_vote(voted: dict[str, Any]) -> None:
    from tests.test_web_api import Served
    from tests.test_web_browser import ARGS, CHROMIUM, shot, sync_api

    app, record = voted["app"], voted["record"]
    served = Served(app)
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{served.url}?run={record.id}")
            replay = page.locator("#replay-chat")
            replay.get_by_text("Self-consistency sc@3:").wait_for(timeout=30_000)
            vote = replay.get_by_text("Self-consistency sc@3:").locator("xpath=..").inner_text()
            assert "no parking ×2" in vote and "stop ×1" in vote and "agreement 0.67" in vote
            replay.get_by_text("Chart-Expert@@OCR").first.click()  # open the step: its model calls are inside
            replay.get_by_text("orchestrator call · Orchestrator").first.click()
            replay.get_by_text("Question: What is written on the sign?").first.wait_for(timeout=10_000)
            replay.get_by_text("Raw reply").first.wait_for()
            assert replay.get_by_text("Chart-Expert@@OCR: What is written on the sign? </search>").count() >= 1
            replay.get_by_text("expert call · Chart-Expert").first.click()
            replay.get_by_text("The sign says NO PARKING in red capitals.").first.wait_for(timeout=10_000)
            shot(page, "10_replay_model_calls_and_vote")
            browser.close()
    finally:
        served.close()
