"""The router learns from failures as well as successes, with shrinkage, and treats abstentions honestly.

Real stored runs (scripted turns through the real loop and skills, a real SQLite store), rated through
``Store.add_rating`` and fed to the handbook as the web UI and ``maestro rate`` do.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from agents.config import Settings
from agents.policies.base import ScriptedPolicy
from agents.policies.router import RELEVANCE_MARGIN, RouterPolicy
from agents.routing.evidence import PastVerdict, expert_prior, skill_estimates
from agents.routing.handbook import credits_for, load_handbook, rebuild_handbook, record_feedback
from agents.runtime import Maestro
from tests.test_router import FIXTURES, needs_embeddings, teach

QUESTION = "repeat what is written"  # keywords: OCR ("written") first, Echo ("repeat") second


@pytest.fixture
def maestro(data_dir: Path, tmp_path: Path) -> Maestro:
    path = tmp_path / "registry.yaml"
    path.write_text(f"orchestrator: {{policy: router, max_turns: 3}}\nskills_paths: [{FIXTURES / 'skills'}]\n"
                    "experts:\n  - {name: Tools, backend: tools}\n", encoding="utf-8")
    app = Maestro.open(Settings.resolve(data_dir=data_dir, registry_path=path))
    yield app
    app.store.close()


def router(app: Maestro) -> RouterPolicy:
    return RouterPolicy(app.registry, app.store, seed=0, use_embeddings=False)


def test_a_skill_rated_wrong_three_times_loses_its_place(maestro: Maestro) -> None:
    first = router(maestro).decide(QUESTION)
    assert first.skill == "OCR" and first.skill_evidence["OCR"]["value"] == 0.5
    values = []
    for wrong in range(1, 4):
        teach(maestro, "Tools", "OCR", QUESTION, ["incorrect"])
        decision = router(maestro).decide(QUESTION)
        values.append(decision.skill_evidence["OCR"]["value"])
        # One or two failures, with nothing else known, do not override relevance; the third does.
        assert decision.skill == ("OCR" if wrong < 3 else "Echo"), (wrong, decision.skill_evidence)
    assert values == sorted(values, reverse=True) and values[-1] < 0.5 - RELEVANCE_MARGIN
    assert "preferred to OCR" in decision.skill_reason
    # The learned skill is tried first, the other still next: nothing plausible is lost.
    assert router(maestro).decide(QUESTION, exclude={("Tools", "Echo")}).skill == "OCR"


def test_a_handful_of_failures_cannot_swing_a_skill_with_a_record(maestro: Maestro) -> None:
    teach(maestro, "Tools", "OCR", QUESTION, ["correct"] * 6)
    teach(maestro, "Tools", "OCR", QUESTION, ["incorrect"] * 3)
    decision = router(maestro).decide(QUESTION)
    assert decision.skill == "OCR" and decision.skill_evidence["OCR"]["local_n"] == 9


def test_records_on_other_questions_never_override_relevance(maestro: Maestro) -> None:
    teach(maestro, "Tools", "Echo", "repeat hello", ["correct"] * 6)
    teach(maestro, "Tools", "OCR", "read the menu board", ["incorrect"] * 4)
    decision = router(maestro).decide(QUESTION)
    evidence = decision.skill_evidence
    assert evidence["Echo"]["value"] > evidence["OCR"]["value"] + RELEVANCE_MARGIN  # the records differ a lot...
    assert decision.skill == "OCR" and evidence["OCR"]["local_n"] == 0  # ...but say nothing about this question
    # Words shared with a skill's description do not make it plausible; only its declared keywords do.
    scores = router(maestro).infer_skill("What is written on the label?")[1]
    assert scores["Counting"]["keywords"] > 0 and scores["Counting"]["declared_keywords"] == 0
    assert set(router(maestro).decide("What is written on the label?").skill_evidence) == {"OCR"}


@needs_embeddings
def test_a_loose_resemblance_to_past_successes_pulls_nothing(maestro: Maestro) -> None:
    teach(maestro, "Tools", "Echo", "repeat the words on the sign", ["correct"] * 3)
    embedded = RouterPolicy(maestro.registry, maestro.store, seed=0)
    assert embedded.infer_skill("What is the area of the triangle?")[1]["Echo"]["past_questions"] == 0.0
    assert embedded.infer_skill("repeat the words on this sign")[1]["Echo"]["past_questions"] > 0.9


def test_evidence_from_other_questions_is_a_prior_not_a_verdict() -> None:
    wrong_here = [PastVerdict(QUESTION, "Tools", "OCR", 0.0)] * 3
    elsewhere = [PastVerdict("read the menu", "Tools", "OCR", 1.0)] * 20
    alone = skill_estimates(wrong_here, [1.0] * 3, ["OCR"])["OCR"]
    known = skill_estimates(wrong_here + elsewhere, [1.0] * 3 + [0.0] * 20, ["OCR"])["OCR"]
    # The skill's record elsewhere (20/20) lifts its prior; three local failures still pull the estimate down.
    assert alone.prior == 0.5 and known.prior > 0.8
    assert alone.value < known.value < known.prior and known.local_n == 3
    # A pair with no verdicts of its own starts from its parts' records, not from 1/2.
    alpha, beta = expert_prior(elsewhere + [PastVerdict("q", "Other", "OCR", 0.0)] * 4, "Other", "Chart")
    assert alpha / (alpha + beta) == pytest.approx((0.5 + (0 + 1) / 6) / 2)


def test_abstentions_earn_credit_only_when_rated_right_to_abstain(maestro: Maestro) -> None:
    white = Image.new("RGB", (40, 30), "white")
    abstain = ["<think>Look.</think>\n<search>Tools@@OCR: read it</search>",
               "<think>Nothing to read.</think>\n<answer>I cannot answer: no text found</answer>"]
    evaluated = maestro.ask(white, "What is written?", policy=ScriptedPolicy(abstain), expected="EXIT")
    assert evaluated.status == "abstained"
    [credit] = credits_for(maestro.store.get_run(evaluated.id))
    assert (credit.skill, credit.success, credit.source) == ("OCR", 0.0, "eval")  # not the answer expected
    rated = maestro.ask(white, "What is written?", policy=ScriptedPolicy(abstain))
    maestro.store.add_rating(rated.id, rater="ann", verdict="correct")  # right to abstain
    assert [c.success for c in credits_for(maestro.store.get_run(rated.id))] == [1.0]

    # In an answered run, a pair that settled nothing (a later pair answered) earns nothing from the verdict.
    relay = ["<think>Read.</think>\n<search>Tools@@OCR: read it</search>",
             "<think>Nothing; echo instead.</think>\n<search>Tools@@Echo: repeat hi</search>",
             "<think>Echo settled it.</think>\n<answer>hi</answer>"]
    answered = maestro.ask(white, "say hi", policy=ScriptedPolicy(relay))
    maestro.store.add_rating(answered.id, rater="ann", verdict="correct")
    assert answered.status == "done"
    by_skill = {c.skill: c.success for c in credits_for(maestro.store.get_run(answered.id))}
    assert by_skill == {"OCR": 0.0, "Echo": 1.0}

    for run in (evaluated, rated, answered):
        record_feedback(maestro.store, run.id, maestro.registry)
    incremental = load_handbook(maestro.store)
    rebuild_handbook(maestro.store, maestro.registry)  # abstained runs are rebuilt too
    assert load_handbook(maestro.store).keys() == incremental.keys()
    assert {k: (r.alpha, r.beta) for k, r in load_handbook(maestro.store).items()} == \
        {k: (r.alpha, r.beta) for k, r in incremental.items()}
