"""A labelling team in a real browser (Playwright driving Debian's Chromium): who is logged in, assignment with
overlap 2, a disagreement settled by a reviewer and exported as the final label, an annotator refused, a box
drawn, moved and resized on the image and stored in original pixels, step marks by key, the layout at 1280×800
and on a phone (390×844), Replay rows and deep links, and a follow-up question that reuses the image's stored
tool outputs.
Every wait is for what is checked, never for time. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.config import Settings
from agents.export.training_data import export
from agents.runtime import Maestro
from storage import team
from tests.test_web_api import SIGN_QUESTION, Served, seed_run
from tests.test_web_browser import ARGS, ARTIFACTS, CHROMIUM, EXAMPLES, open_tab, shot, sync_api
from ui.accounts import Accounts

pytestmark = pytest.mark.browser
expect = sync_api.expect
#: Emoji and pictographs (an icon drawn with one shows as an empty box without an emoji font).
EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF\u23E9-\u23FF\u2B00-\u2BFF]")


@pytest.fixture
def browser() -> Iterator[Any]:
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


def login(browser: Any, server: Served, name: str, size: tuple[int, int] = (1280, 800)) -> Any:
    page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    page.goto(server.url)
    page.get_by_label("username").fill(name)
    page.get_by_label("password").fill(f"{name}-password")
    page.keyboard.press("Enter")
    page.wait_for_selector("#ask-question", timeout=20_000)
    expect(page.locator("#app-user")).to_contain_text(f"Signed in as {name}", timeout=20_000)
    return page


def run_id_of(page: Any) -> str:
    return page.input_value("#rate-run-id input, #rate-run-id textarea")


def next_run(page: Any, expected: str) -> None:
    open_tab(page, "Rate")
    page.click("#rate-next")
    expect(page.locator("#rate-run-id input, #rate-run-id textarea")).to_have_value(expected, timeout=20_000)


def test_overlap_adjudication_export_and_refusals(data_dir: Path, browser: Any, tmp_path: Path) -> None:
    accounts = Accounts.of(data_dir)
    for name, role in (("alice", "annotator"), ("bob", "annotator"), ("carol", "annotator"), ("rita", "reviewer")):
        accounts.add(name, f"{name}-password", role)
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir))
    server = Served(maestro)
    try:
        image_id = maestro.store.images.put_bytes((EXAMPLES / "sign.png").read_bytes()).id
        run = seed_run(maestro, image_id, "What is written on the sign?")
        rita = login(browser, server, "rita")
        expect(rita.locator("#app-user")).to_contain_text("reviewer")
        assert rita.locator("#app-logout").get_attribute("href") == "/logout"
        open_tab(rita, "Review")
        rita.locator("#review-assign").get_by_text("Assign runs").click()
        rita.fill("#review-annotators textarea, #review-annotators input", "alice, bob")
        rita.fill("#review-overlap input", "2")
        rita.click("#review-assign-button")
        expect(rita.locator("#review-assigned")).to_contain_text("overlap 2", timeout=20_000)
        assert team.assignees(maestro.store, run) == ["alice", "bob"]

        alice, bob, carol = (login(browser, server, n) for n in ("alice", "bob", "carol"))
        for page, verdict, corrected in ((alice, "1", ""), (bob, "2", "MAIN ST")):
            next_run(page, run)  # both assignees get the run
            page.locator("body").click(position={"x": 5, "y": 5})
            page.keyboard.press(verdict)
            if corrected:
                page.keyboard.press("c")
                page.keyboard.type(corrected)
            page.keyboard.press("Control+Enter")
            expect(page.locator("#rate-saved")).to_contain_text("Saved", timeout=20_000)
        open_tab(carol, "Rate")
        carol.click("#rate-next")
        expect(carol.locator("#rate-header")).to_contain_text("Nothing left to rate", timeout=20_000)

        # An annotator can see the review queue but not settle it, and cannot edit the guidelines.
        open_tab(alice, "Review")
        alice.locator("#review-queue").get_by_text(run).last.click()
        expect(alice.locator("#review-run-id input, #review-run-id textarea")).to_have_value(run, timeout=20_000)
        alice.locator("#review-verdict").get_by_text("incorrect").click()
        alice.fill("#review-reason textarea", "I say so")
        alice.click("#review-save")
        expect(alice.get_by_text("Only reviewers or admins can adjudicate")).to_be_visible(timeout=20_000)
        assert team.final_label(maestro.store, run) is None
        open_tab(alice, "Rate")
        alice.locator("#rate-guidelines").get_by_text("Guidelines").first.click()
        expect(alice.locator("#rate-guidelines-text")).to_be_visible()
        assert alice.locator("#rate-guidelines-editor").count() == 0 or not alice.locator(
            "#rate-guidelines-editor").is_visible(), "the editor is for admins only"

        rita.click("#review-refresh")
        rita.locator("#review-queue").get_by_text(run).last.click()
        expect(rita.locator("#review-case")).to_contain_text("bob", timeout=20_000)
        expect(rita.locator("#review-case")).to_contain_text("corrected: MAIN ST")
        rita.locator("#review-verdict").get_by_text("incorrect").click()
        rita.fill("#review-answer textarea, #review-answer input", "MAIN STREET Exit 42")
        rita.fill("#review-reason textarea", "the exit number is part of the sign")
        rita.click("#review-save")
        expect(rita.locator("#review-saved")).to_contain_text("Final label saved", timeout=20_000)
        expect(rita.locator("#review-caption")).to_contain_text("No disagreements")
        expect(rita.locator("#review-dashboard")).to_contain_text("alice")
        shot(rita, "40_review_adjudicated")

        export(maestro.store, maestro.registry, tmp_path / "out", formats=["labels"])
        (label,) = [json.loads(line) for line in (tmp_path / "out" / "labels.jsonl").read_text().splitlines()]
        assert (label["run_id"], label["source"], label["verdict"], label["final_answer"], label["labelled_by"]) == (
            run, "adjudicated", "incorrect", "MAIN STREET Exit 42", "rita")
    finally:
        server.close()


def test_a_box_drawn_moved_and_resized_is_stored_in_original_pixels(data_dir: Path, browser: Any,
                                                                  tmp_path: Path) -> None:
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir))
    server = Served(maestro)
    try:
        image_id = maestro.store.images.put_bytes((EXAMPLES / "sign.png").read_bytes()).id  # 640 × 360
        run = seed_run(maestro, image_id, "What is written on the sign?")
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(server.url)
        page.wait_for_selector("#ask-question")
        next_run(page, run)
        page.locator("#rate-box-panel").get_by_text("Correct the boxes").click()
        svg = page.locator("#rate-box-editor svg")
        svg.wait_for(timeout=20_000)
        svg.scroll_into_view_if_needed()
        box = svg.bounding_box()
        scale = box["width"] / 640, box["height"] / 360

        def at(x: float, y: float) -> tuple[float, float]:  # original pixels -> screen
            return box["x"] + x * scale[0], box["y"] + y * scale[1]

        def drag(start: tuple[float, float], end: tuple[float, float]) -> None:
            page.mouse.move(*at(*start))
            page.mouse.down()
            page.mouse.move(*at(*end), steps=8)
            page.mouse.up()

        boxes = page.locator("#rate-box-json textarea, #rate-box-json input")
        drag((100, 100), (300, 200))  # draw
        expect(page.locator("#rate-box-editor")).to_contain_text("1 corrected box")
        drag((200, 150), (250, 150))  # move right by 50
        handle = page.locator("#rate-box-editor .mae-handle")
        hb = handle.bounding_box()
        page.mouse.move(hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2)
        page.mouse.down()
        page.mouse.move(*at(400, 260), steps=8)  # resize from the corner
        page.mouse.up()
        page.wait_for_function("() => { const f = document.querySelector('#rate-box-json textarea, #rate-box-json input');"
                               " const b = JSON.parse(f.value || '[]'); return b.length === 1 && b[0].box[2] > 390; }")
        (drawn,) = json.loads(boxes.input_value())
        shot(page, "41_box_corrected")
        page.keyboard.press("2")
        page.keyboard.press("g")  # step 1: good call
        page.keyboard.press("]")  # on to step 2
        page.keyboard.press("b")  # step 2: bad tool output
        expect(page.locator("#rate-marks label.mae-step-chosen").first).to_contain_text("Step 2")
        page.locator("#rate-no-correction input").check()  # incorrect, the right answer unknown: boxes only
        page.keyboard.press("Control+Enter")
        expect(page.locator("#rate-saved")).to_contain_text("Saved", timeout=20_000)
        rating = maestro.store.rating_of(run, "anonymous")
        assert rating.step_marks == {"0": ["good call"], "1": ["bad tool output"]}, "step marks by key"
        (stored,) = rating.boxes
        assert stored["box"] == drawn["box"]
        for got, want in zip(stored["box"], [150, 100, 400, 260], strict=True):
            assert abs(got - want) <= 3, (stored, "original pixels, not screen pixels")
        export(maestro.store, maestro.registry, tmp_path / "out", formats=["grounding"])
        (row,) = [json.loads(line) for line in (tmp_path / "out" / "grounding.jsonl").read_text().splitlines()]
        assert json.loads(row["boxes"])[0]["box"] == stored["box"]
    finally:
        server.close()


def test_layout_at_1280x800_on_a_phone_and_in_replay(data_dir: Path, browser: Any) -> None:
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir))
    server = Served(maestro)
    try:
        image_id = maestro.store.images.put_bytes((EXAMPLES / "sign.png").read_bytes()).id
        long_question = "Which is on the sign? " + " ".join(f"({c}) a rather long option {c}" for c in "ABCDEFGH")
        runs = [seed_run(maestro, image_id, f"Sign {i}?") for i in range(30)]
        long_run = seed_run(maestro, image_id, long_question)  # the newest: on Replay's first page
        desk = browser.new_page(viewport={"width": 1280, "height": 800})
        desk.goto(server.url)
        desk.wait_for_selector("#ask-question")
        next_run(desk, runs[0])
        save = desk.locator("#rate-submit").bounding_box()
        assert save["y"] + save["height"] <= 800, f"Save is off screen at {save}"
        assert not EMOJI.search(desk.locator("body").inner_text()), "no emoji icons"
        shot(desk, "42_rate_1280x800")

        open_tab(desk, "Replay")
        text = desk.locator("#replay-table").get_by_text(re.compile("rather long option H")).last
        text.wait_for(timeout=20_000)
        cell = text.locator("xpath=ancestor::div[contains(@class, 'cell-wrap')][1]")
        expect(cell).to_have_attribute("title", re.compile(r"rather long option H$"), timeout=10_000)
        assert cell.bounding_box()["height"] < 60, "one line per row"

        desk.goto(f"{server.url}?run={long_run}")
        question = desk.locator("#replay-info").get_by_text("Which is on the sign?")
        expect(question).to_be_in_viewport(timeout=20_000)

        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(server.url)
        phone.wait_for_selector("#ask-question")
        phone.set_input_files("#ask-image input[type=file]", str(EXAMPLES / "sign.png"))
        phone.fill("#ask-question textarea", SIGN_QUESTION)
        phone.click("#ask-button")
        answer = phone.locator("#ask-answer")
        expect(answer).to_contain_text("Answer:", timeout=120_000)
        assert answer.bounding_box()["y"] < phone.locator("#ask-image").bounding_box()["y"], "the answer first"
        expect(answer).to_be_in_viewport()
        clear = phone.locator("#ask-clear")
        expect(clear).to_have_text("Clear view")
        assert phone.locator("#ask-chat button[aria-label='Clear']:visible").count() == 0, "no trash icon"
        clear.click()
        expect(answer).to_have_text("", timeout=10_000)
        assert maestro.store.count_runs() == 32, "clearing the view deletes nothing"
        shot(phone, "43_phone")
    finally:
        server.close()


def test_a_follow_up_reuses_tool_outputs_and_is_listed_in_history(data_dir: Path, browser: Any) -> None:
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir))
    server = Served(maestro)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(server.url)
        page.wait_for_selector("#ask-question")
        page.set_input_files("#ask-image input[type=file]", str(EXAMPLES / "sign.png"))
        for n, text in enumerate((SIGN_QUESTION, "Read the sign again: what does it say?"), 1):
            page.fill("#ask-question textarea", text)
            page.click("#ask-button")
            expect(page.locator("#ask-turn")).to_contain_text(f"Turn {n} of conversation", timeout=120_000)
        first, second = maestro.store.list_runs()[::-1]
        conversation = team.conversation_of(maestro.store, first.id)
        assert conversation and team.conversation_runs(maestro.store, conversation) == [first.id, second.id]
        calls = [c for s in maestro.store.get_run(second.id).steps for c in s.tool_calls]
        # Every tool call the first turn made on the image is reused; only work on the new question's own words
        # (picking the span it asks for from the reading) runs again.
        earlier = {c.cache_key for s in maestro.store.get_run(first.id).steps for c in s.tool_calls}
        again = [c for c in calls if c.cache_key in earlier]
        assert again and all(c.reused for c in again), "the follow-up ran no image tool again"
        reused = sum(1 for c in calls if c.reused)
        expect(page.locator("#ask-turn")).to_contain_text(f"{reused} of {len(calls)} tool calls reused")
        expect(page.locator("#ask-chat")).to_contain_text(SIGN_QUESTION)  # the first turn stays above

        other = browser.new_page(viewport={"width": 1280, "height": 800})
        other.goto(server.url)
        other.wait_for_selector("#ask-question")
        other.locator("#history-sidebar").get_by_role("button").first.click()  # open the sidebar
        entry = other.locator("#history-list").get_by_text("2 turns")
        entry.click(timeout=20_000)
        expect(other.locator("#ask-chat")).to_contain_text("Read the sign again", timeout=20_000)
        expect(other.locator("#ask-chat")).to_contain_text(SIGN_QUESTION)
        shot(other, "44_history")
    finally:
        server.close()
