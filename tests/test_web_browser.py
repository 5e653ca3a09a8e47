"""The web application in a real browser (Playwright driving Debian's Chromium): upload an image and ask, watch
the steps and the answer appear, rate it, find it in Replay and open it (also by deep link), see the rating in the
Rate tab's history, rate a queued run with the keyboard, export training data and see the handbook after a
rating. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.config import Settings
from agents.policies.base import ScriptedPolicy
from agents.routing.handbook import record_feedback
from agents.runtime import Maestro
from tests.calibrations import trust_source
from tests.test_web_api import FIXTURES, SIGN_QUESTION, Served

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
RUN_TIMEOUT_MS = 120_000
# The final answer is plain text led by a bold "Answer:" label (never a heading: long answers must stay readable).
ANSWER = "strong:text-is('Answer:')"

if not CHROMIUM.exists():
    pytest.skip(f"BROWSER TESTS SKIPPED: {CHROMIUM} is missing; install it with `apt-get install -y chromium`",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="BROWSER TESTS SKIPPED: playwright is not installed")


@pytest.fixture
def served(data_dir: Path) -> Iterator[Served]:
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir)))
    yield server
    server.close()


@pytest.fixture
def page(served: Served) -> Iterator[Any]:
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.goto(served.url)
        tab.wait_for_selector("#ask-question")
        yield tab
        browser.close()


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def open_tab(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def test_ask_rate_replay_and_history_in_a_browser(served: Served, page: Any) -> None:
    store = served.maestro.store
    page.set_input_files("#ask-image input[type=file]", str(EXAMPLES / "sign.png"))
    page.fill("#ask-question textarea", SIGN_QUESTION)
    page.click("#ask-button")
    chat = page.locator("#ask-chat")
    chat.get_by_text("Step 1").first.wait_for(timeout=RUN_TIMEOUT_MS)
    chat.locator(ANSWER).wait_for(timeout=RUN_TIMEOUT_MS)
    run_id = page.input_value("#ask-run-id input, #ask-run-id textarea")
    record = store.get_run(run_id)
    assert record is not None and record.status == "done" and record.answer
    assert record.answer.split()[0] in chat.locator(ANSWER).locator("xpath=..").inner_text()
    search = next(s for s in record.steps if s.kind == "search")
    chat.get_by_text(f"{search.model}@@{search.skill}").first.click()  # expand the step: its tool calls
    tools_with_images = [c for c in search.tool_calls if c.image_id]
    for call in search.tool_calls:
        chat.get_by_text(call.tool).first.wait_for()
    images = chat.locator("img")
    assert images.count() == 1 + len(tools_with_images), "the user's image and each tool's evidence are shown"
    chat.locator("img").last.scroll_into_view_if_needed()
    shot(page, "01_ask_evidence")
    chat.locator(ANSWER).scroll_into_view_if_needed()
    shot(page, "01_ask_answer")

    page.fill("#ask-corrected textarea", "MAIN STREET Exit 42")
    page.click("#ask-thumbs-up")
    page.locator("#ask-feedback").get_by_text("Saved").wait_for(timeout=20_000)
    assert [(r.verdict, r.rater) for r in store.ratings_for(run_id)] == [("correct", "anonymous")]

    open_tab(page, "Replay")
    page.fill("#replay-search textarea, #replay-search input", "written on the sign")
    page.click("#replay-search-button")
    cell = page.locator("#replay-table").get_by_text(run_id).last
    cell.wait_for(timeout=20_000)
    cell.click()
    replay = page.locator("#replay-chat")
    replay.locator(ANSWER).wait_for(timeout=20_000)
    assert replay.get_by_text(f"{search.model}@@{search.skill}").count() >= 1
    page.locator("#replay-info").get_by_text("rated correct").wait_for(timeout=10_000)
    shot(page, "02_replay_opened")

    open_tab(page, "Rate")
    history = page.locator("#rate-history")
    history.get_by_text(run_id).last.wait_for(timeout=20_000)
    assert history.get_by_text("correct").count() >= 1
    shot(page, "03_rate_history")

    page.goto(f"{served.url}?run={run_id}")
    page.locator("#replay-chat").locator(ANSWER).wait_for(timeout=20_000)
    assert page.get_by_role("tab", name="Replay").get_attribute("aria-selected") == "true"
    shot(page, "04_deep_link")


def test_rate_queue_with_keyboard_shortcuts(served: Served, page: Any) -> None:
    maestro = served.maestro
    queued = maestro.ask(EXAMPLES / "shapes.png", "How many circles are there?")
    open_tab(page, "Rate")
    page.locator("#rate-verdict").wait_for()
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("n")
    page.locator("#rate-chat").get_by_text("How many circles").first.wait_for(timeout=20_000)
    assert page.input_value("#rate-run-id input, #rate-run-id textarea") == queued.id
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("2")
    assert page.locator('#rate-verdict input[value="incorrect"]').is_checked()
    page.locator("#rate-marks").get_by_text("Step 1").filter(has_text="wrong skill").first.click()
    page.fill("#rate-corrected textarea", "4")
    page.fill("#rate-comment textarea", "counted nothing")
    shot(page, "05_rate_loaded")
    page.locator("#rate-comment textarea").press("Control+Enter")
    page.locator("#rate-saved").get_by_text("Saved").wait_for(timeout=20_000)
    shot(page, "05_rate_saved")
    (rating,) = maestro.store.ratings_for(queued.id)
    assert (rating.verdict, rating.corrected_answer, rating.comment) == ("incorrect", "4", "counted nothing")
    assert rating.step_marks == {"0": ["wrong skill"]}
    page.locator("#rate-header").get_by_text("Nothing left to rate").wait_for(timeout=20_000)


def test_registry_tab_shows_experts_skills_and_pairs(served: Served, page: Any) -> None:
    served.maestro.ask(EXAMPLES / "sign.png", SIGN_QUESTION)
    open_tab(page, "Registry")
    experts = page.locator("#registry-experts")
    sync_api.expect(experts).to_contain_text("yes", timeout=20_000)
    sync_api.expect(page.locator("#registry-skills")).to_contain_text("Text Recognition")
    sync_api.expect(page.locator("#registry-pairs")).to_contain_text("Tools", timeout=20_000)
    shot(page, "06_registry")


def test_export_and_handbook_tabs(served: Served, page: Any) -> None:
    maestro = served.maestro
    run = maestro.ask(EXAMPLES / "sign.png", SIGN_QUESTION)
    maestro.store.add_rating(run.id, rater="anonymous", verdict="correct")
    record_feedback(maestro.store, run.id, maestro.registry)
    search = next(s for s in run.steps if s.kind == "search")

    open_tab(page, "Export")
    page.locator("#export-formats").get_by_text("dpo").click()  # untick one format
    page.click("#export-button")
    summary = page.locator("#export-summary textarea")
    sync_api.expect(summary).to_have_value(re.compile(r"^exported 1 runs"), timeout=60_000)
    listing = page.locator("#export-listing")
    sync_api.expect(listing).to_contain_text("sft.jsonl", timeout=20_000)
    sync_api.expect(listing).to_contain_text("manifest.json")
    assert "dpo.jsonl" not in listing.inner_text()
    sync_api.expect(page.locator("#export-download")).to_contain_text(".zip", timeout=20_000)
    shot(page, "07_export")

    open_tab(page, "Handbook")
    table = page.locator("#handbook-table")
    sync_api.expect(table).to_contain_text(search.model, timeout=20_000)
    sync_api.expect(table).to_contain_text("67%")
    sync_api.expect(page.locator("#handbook-caption")).to_contain_text("λ (cost weight)")
    shot(page, "08_handbook")


def test_live_step_title_while_the_skill_runs(data_dir: Path) -> None:
    policy = ScriptedPolicy(["<think>rest first</think><search>Tools@@Sleepy: 4</search>",
                             "<think>rested</think><answer>awake</answer>"])
    trust_source(data_dir, ("orchestrator", "unverifiable"))  # its own "awake" may answer, as if rated (trust)
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir, registry_path=FIXTURES / "registry_echo.yaml"),
                           policy=policy)
    server = Served(maestro)
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            tab.goto(server.url)
            tab.set_input_files("#ask-image input[type=file]", str(EXAMPLES / "sign.png"))
            tab.fill("#ask-question textarea", "nap, then answer")
            tab.click("#ask-button")
            chat = tab.locator("#ask-chat")
            chat.get_by_text("Tools@@Sleepy · working…").first.wait_for(timeout=20_000)
            shot(tab, "09_ask_pending_step")
            chat.locator(ANSWER).wait_for(timeout=RUN_TIMEOUT_MS)
            assert chat.get_by_text("working…").count() == 0
            browser.close()
    finally:
        server.close()
