"""Rerun and compare in a real browser: open a run in Replay, rerun it under another registry with "Rerun…", and see
both runs side by side with the differing step and fields highlighted and the evidence images shown; a rerun under
the same registry reads "identical apart from timings" with nothing highlighted. Screenshots go to
``test-artifacts/``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_rerun import CASES, broken_registry
from tests.test_web_api import Served
from tests.test_web_browser import ARGS, ARTIFACTS, CHROMIUM, shot

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api", reason="BROWSER TESTS SKIPPED: playwright is not installed")
HIGHLIGHT = "rgb(255, 213, 79)"  # .cmp-diff in ui/web_compare.py


@pytest.fixture
def served(data_dir: Path, tmp_path: Path) -> Iterator[Served]:
    # A registry an operator dropped into the data directory: it replaces Diagram-Reasoning with a broken skill.
    made = broken_registry(tmp_path / "made")
    registries = data_dir / "registries"
    registries.mkdir(parents=True)
    shutil.copy(made, registries / "broken.yaml")
    shutil.copytree(made.parent / "override", registries / "override")
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir)))
    yield server
    server.close()


def rerun_from_replay(page: Any, url: str, run_id: str, registry: str) -> None:
    page.goto(f"{url}?run={run_id}")
    page.locator("#replay-chat").get_by_text("Answer:").first.wait_for(timeout=30_000)
    page.locator("#rerun-panel").get_by_text("Rerun…").first.click()
    # Typed and chosen with the keyboard, as a user may: a click on a listed option can miss while the page still
    # settles after the deep link's scroll (Playwright: "element is not stable").
    box = page.locator("#rerun-registry input")
    box.click()
    box.fill(registry.split()[0])
    page.get_by_role("option", name=registry).wait_for(timeout=10_000)
    box.press("Enter")
    sync_api.expect(box).to_have_value(registry, timeout=10_000)
    page.click("#rerun-button")
    page.locator("#compare-table").wait_for(timeout=60_000)


def test_rerun_under_a_broken_registry_shows_the_differing_step_highlighted(served: Served) -> None:
    maestro = served.maestro
    image, question = CASES["diagram"]
    source = maestro.ask(image(), question)
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1100})

        rerun_from_replay(page, served.url, source.id, "broken.yaml (registries/)")
        assert page.get_by_role("tab", name="Compare").get_attribute("aria-selected") == "true"
        sync_api.expect(page.locator("#compare-headline")).to_contain_text("step", timeout=20_000)
        sync_api.expect(page.locator("#rerun-status")).to_contain_text("Rerun stored as")
        rerun_id = page.input_value("#compare-run-b input, #compare-run-b textarea")
        assert page.input_value("#compare-run-a input, #compare-run-a textarea") == source.id
        assert maestro.store.get_run(rerun_id).parent_run_id == source.id

        step = page.locator("#compare-table tr[data-step='1']")
        assert "cmp-changed" in step.get_attribute("class")
        marked = step.locator(".cmp-diff")
        assert marked.count() >= 2  # at least the settled answer on each side
        assert marked.first.evaluate("el => getComputedStyle(el).backgroundColor") == HIGHLIGHT
        sync_api.expect(step).to_contain_text("{7}")
        sync_api.expect(step).to_contain_text(source.answer or "")
        outcome = page.locator("#compare-table tr[data-row='outcome']")
        assert "cmp-changed" in outcome.get_attribute("class")
        evidence = step.locator("img")  # run A's annotated evidence, from the image store
        assert evidence.count() >= 1
        evidence.first.scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=evidence.first.element_handle(),
                               timeout=20_000)
        shot(page, "10_compare_broken_registry")

        rerun_from_replay(page, served.url, source.id, "this app's registry (registry.yaml)")
        sync_api.expect(page.locator("#compare-headline")).to_contain_text("Identical apart from timings",
                                                                          timeout=20_000)
        assert page.locator("#compare-table tr.cmp-changed").count() == 0
        assert page.locator("#compare-table .cmp-diff").count() == 0
        sync_api.expect(page.locator("#compare-table")).to_contain_text("(reused)")
        shot(page, "11_compare_identical")
        browser.close()
