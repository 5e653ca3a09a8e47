"""The notices benchmark (``benchmarks/synthetic/notices.py``) is labelled data for the sign-reading rules: every
printed answer must be text drawn on its image, the same seed must draw the same items, and about a quarter of the
questions must be ones the sign cannot answer."""

from __future__ import annotations

from pathlib import Path

from benchmarks.synthetic.notice_wordings import KINDS, UNANS
from benchmarks.synthetic.notices import generate, render_dataset


def test_every_printed_answer_is_drawn_on_its_image(tmp_path: Path) -> None:
    items, texts = render_dataset(tmp_path, 10, seed=3)
    assert len(items) == 40 and {item["category"] for item in items} == set(KINDS)
    for item in items:
        if item["answer"] not in ("Yes", "No", UNANS):
            assert any(item["answer"] in text for text in texts[item["image"]]), item
        assert (tmp_path / item["image"]).is_file()
    unanswerable = sum(item["answer"] == UNANS for item in items) / len(items)
    assert 0.1 <= unanswerable <= 0.4


def test_a_seed_draws_the_same_items(tmp_path: Path) -> None:
    first = generate(tmp_path / "a", 5, seed=7)
    second = generate(tmp_path / "b", 5, seed=7)
    assert first == second
    assert (tmp_path / "a" / first[0]["image"]).read_bytes() == (tmp_path / "b" / first[0]["image"]).read_bytes()


def test_a_coded_place_and_a_dated_day_list_their_other_right_forms() -> None:
    from benchmarks.synthetic.notices import alternatives

    assert alternatives("what platform is closed", "Platform 5") == ["5"]
    assert alternatives("which day is the work on", "Tue 27 May 2025") == ["27 May 2025", "Tue"]
    assert alternatives("what date pls", "Monday 2 June") == ["2 June"]
    assert alternatives("how much is a scone", "£2.60") == []
