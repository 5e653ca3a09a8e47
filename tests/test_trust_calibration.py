"""Calibrated confidence and the threshold guarantee, on labelled data whose right answers are known.

What a calibration must do: state P(correct) that matches how often answers of that kind are right; answer only
above a threshold chosen by Learn-then-Test, so that with probability >= 1 - delta the precision of what it answers
is at least the target; and abstain, saying so, where a kind has too few labelled examples for that bound.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.outcome import settle
from agents.trust import ltt
from agents.trust.calibration import Calibration, load
from agents.trust.evidence import Evidence
from agents.trust.fit import Labelled, fit, fit_group
from skills.answer_form import answer_form
from storage.trace import Step, ToolCall


def evidence(score: float, *, skill: str = "Counting", form: str = "count", level2: str = "Shapes") -> Evidence:
    return Evidence(answer="3", form=form, skill=skill, level2=level2, source="tools", check="verified", score=score)


def labelled(scores: np.ndarray, right: np.ndarray, **kind: str) -> list[Labelled]:
    return [Labelled(evidence(float(s), **kind), bool(r)) for s, r in zip(scores, right, strict=True)]


def test_the_smallest_sample_that_can_certify_95_percent_is_45_clean_answers() -> None:
    # 0.95^45 = 0.099 <= 0.1 < 0.95^44: with fewer, not even a perfect record rejects "precision < 95 %".
    assert ltt.min_kept(0.95, 0.1) == 45
    assert ltt.choose_threshold([0.9] * 44, [True] * 44, 0.95, 0.1) is None
    assert ltt.choose_threshold([0.9] * 45, [True] * 45, 0.95, 0.1) == 0.9


def test_fixed_sequence_stops_at_the_first_threshold_that_fails() -> None:
    # 100 sure answers all right, then 50 weaker ones half wrong: only the sure block is certified.
    p = [0.99] * 100 + [0.7] * 50
    right = [True] * 100 + [True, False] * 25
    assert ltt.choose_threshold(p, right, 0.95, 0.1) == 0.99
    # A few errors among many right answers still pass (1 of 100: p-value 0.037).
    assert ltt.choose_threshold([0.99] * 100, [False] + [True] * 99, 0.95, 0.1) == 0.99


def test_a_kind_whose_record_is_clearly_below_target_is_shown_worse() -> None:
    assert ltt.shown_worse(100, 20, 0.95, 0.1)  # 80 % right of 100
    assert not ltt.shown_worse(100, 6, 0.95, 0.1)  # 94 %: consistent with 95 %, not shown worse
    assert not ltt.shown_worse(10, 1, 0.95, 0.1)


def test_isotonic_logistic_fit_recovers_known_probabilities() -> None:
    rng = np.random.default_rng(0)
    scores = rng.uniform(0.05, 0.95, 4000)
    right = rng.uniform(size=scores.size) < scores  # P(correct | score) = score: the raw score is calibrated
    group = fit_group("k", labelled(scores, right), 0.1, (0.95,))
    for s in (0.3, 0.6, 0.9):
        assert group.predict(evidence(s)) == pytest.approx(s, abs=0.06)


@pytest.mark.slow
def test_the_precision_guarantee_holds_in_simulation() -> None:
    """Fit and choose the threshold on 400 labelled answers, then measure the true precision above it exactly:
    it falls below the 90 % target in at most delta = 10 % of repetitions (plus sampling slack)."""
    rng = np.random.default_rng(1)
    target, delta, reps, failures, answered = 0.9, 0.1, 120, 0, 0
    for _ in range(reps):
        scores = rng.uniform(0, 1, 400)
        right = rng.uniform(size=scores.size) < np.sqrt(scores)  # P(correct | s) = sqrt(s)
        group = fit_group("k", labelled(scores, right), delta, (target,))
        threshold, _ = group.rule(target)
        if threshold is None:
            continue
        answered += 1
        grid = np.linspace(0, 1, 4001)
        kept = np.array([group.predict(evidence(float(s))) >= threshold for s in grid])
        if kept.any() and np.sqrt(grid[kept]).mean() < target:  # the true precision of what it would answer
            failures += 1
    assert answered > reps * 0.9  # the bound is not vacuous: it answers in almost every repetition
    assert failures / reps <= delta + 2 * np.sqrt(delta * (1 - delta) / reps)


def test_a_kind_with_too_few_examples_pools_with_its_skill_and_abstains_when_nothing_can() -> None:
    common = labelled(np.full(80, 0.9), np.ones(80, bool), level2="Shapes")
    rare = labelled(np.full(5, 0.9), np.ones(5, bool), level2="Rare")
    cal = fit(common + rare)
    assert cal.decide(evidence(0.9, level2="Rare"), 0.95).answer  # 5 examples: decided by the skill's 85
    unseen = evidence(0.9, skill="Science", form="number")
    decision = cal.decide(unseen, 0.95)
    assert not decision.answer and decision.why == "too_few"
    step = Step(index=0, kind="search", model="Tools", skill="Science", settled_answer="3", confidence=0.9)
    outcome = settle("3", [step], answer_form("What is the value of x? Answer with a number."), calibration=cal)
    assert outcome.status == "abstained"
    assert "too few rated examples of this kind" in outcome.reason and "95 % precision" in outcome.reason


def test_a_reading_flagged_more_often_than_any_labelled_example_is_not_vouched_for() -> None:
    # 80 clean readings, all right: a constant P of 0.99 says nothing of a reading its tool flagged three times (a
    # donut whose slices were split had three warnings and answered "1%" for a slice printed "25%").
    clean = labelled(np.full(80, 0.9), np.ones(80, bool), level2="Shapes")
    cal = fit(clean)
    flagged = Evidence(answer="3", form="count", skill="Counting", level2="Shapes", source="tools", check="verified",
                       score=0.9, warnings=3)
    decision = cal.decide(flagged, 0.95)
    assert not decision.answer and decision.why == "unsupported"
    assert cal.decide(evidence(0.9), 0.95).answer
    step = Step(index=0, kind="search", model="Tools", skill="Counting", settled_answer="3", confidence=0.9)
    outcome = settle("3", [step], answer_form("How many shapes are there?"), calibration=cal)
    assert outcome.status == "done"  # the same kind without warnings still answers
    once_flagged = fit(clean + [Labelled(flagged, True)])
    assert once_flagged.decide(flagged, 0.95).answer  # a labelled example with three warnings covers the next


def receipt_total(detail: str) -> Evidence:
    return Evidence(answer="41.87", form="number", skill="OCR", level2="Key Information Extraction",
                    source="tools", check="verified", score=0.9, detail=detail)


def test_a_reading_nothing_else_confirms_never_borrows_the_record_of_confirmed_ones() -> None:
    confirmed = [Labelled(receipt_total("total"), True) for _ in range(100)]
    lone = [Labelled(receipt_total("total, unchecked"), True) for _ in range(3)]
    cal = fit(confirmed + lone)
    assert cal.decide(receipt_total("total"), 0.95).answer
    decision = cal.decide(receipt_total("total, unchecked"), 0.95)
    assert not decision.answer and decision.why == "too_few"
    call = ToolCall(0, "documents.read_field", {}, "total: 'RM 41.87'", 1.0,
                    data={"field": "total", "value": "RM 41.87", "unchecked": True})
    step = Step(index=0, kind="search", model="Tools", skill="OCR", level2="Key Information Extraction",
                settled_answer="41.87", confidence=0.9, tool_calls=[call])
    outcome = settle("41.87", [step], answer_form("What is the total amount? Answer with a number."),
                     calibration=cal)
    assert outcome.status == "abstained"
    assert "nothing else printed on the image confirms" in outcome.reason and "too few rated" in outcome.reason
    # Its own record, once rated answers of the kind are many and right, lets it answer.
    rated = fit(confirmed + [Labelled(receipt_total("total, unchecked"), True) for _ in range(60)])
    assert rated.decide(receipt_total("total, unchecked"), 0.95).answer


def test_a_field_shown_worse_abstains_in_whatever_form_the_question_asks_it() -> None:
    def shop(form: str) -> Evidence:
        return Evidence(answer="MYDIN", form=form, skill="OCR", level2="Key Information Extraction",
                        source="tools", check="verified", score=0.9, detail="company")

    names = [Labelled(shop("text"), right) for right in [True, True, True, True, False] * 16]  # 80 % right
    signs = [Labelled(Evidence(answer="EXIT", form="free", skill="OCR", level2="Text Recognition",
                               source="tools", check="verified", score=0.9), True) for _ in range(200)]
    cal = fit(names + signs)
    for form in ("text", "free"):  # "Which shop issued this?" / "What's the store name?"
        decision = cal.decide(shop(form), 0.95)
        assert not decision.answer and decision.why in ("worse", "below"), (form, decision)


def test_a_kind_shown_worse_abstains_instead_of_pooling_with_good_ones() -> None:
    good = labelled(np.full(200, 0.9), np.ones(200, bool), level2="Shapes")
    bad = labelled(np.full(60, 0.9), np.array([True, True, False] * 20), level2="Crowds")
    cal = fit(good + bad)
    decision = cal.decide(evidence(0.9, level2="Crowds"), 0.95)
    assert not decision.answer and decision.why in ("worse", "below")
    assert cal.decide(evidence(0.9, level2="Shapes"), 0.95).answer


def test_a_stricter_target_never_uses_a_laxer_threshold() -> None:
    cal = fit(labelled(np.full(60, 0.9), np.ones(60, bool)))
    assert cal.decide(evidence(0.9), 0.95).answer
    assert not cal.decide(evidence(0.9), 0.99).answer  # 60 clean answers cannot certify 99 %


def test_a_calibration_is_versioned_by_content_and_round_trips(tmp_path) -> None:
    cal = fit(labelled(np.full(60, 0.9), np.ones(60, bool)))
    again = Calibration.from_json(cal.to_json())
    assert again.version == cal.version and len(cal.version) == 16
    assert again.decide(evidence(0.9), 0.95) == cal.decide(evidence(0.9), 0.95)
    cal.save(tmp_path / "calibration.json")
    assert load(tmp_path).version == cal.version  # the data directory's file wins over the shipped one
    (tmp_path / "calibration.json").write_text("{}")
    with pytest.raises(ValueError, match="unreadable calibration"):
        load(tmp_path)
    # A file fit by an older Maestro names evidence kinds this one no longer forms: refused, never half-used.
    older = json.loads(cal.to_json()) | {"format": "maestro-calibration/1"}
    (tmp_path / "calibration.json").write_text(json.dumps(older))
    with pytest.raises(ValueError, match="older Maestro.*refit it with `maestro calibrate`"):
        load(tmp_path)


def test_the_shipped_calibration_loads_and_answering_needs_no_scikit_learn() -> None:
    import subprocess
    import sys

    code = ("import sys; from agents.trust.calibration import load; c = load(); "
            "assert c is not None and c.groups; assert 'sklearn' not in sys.modules; print(c.version)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr


def test_ece_by_chance_tells_a_small_sets_noise_from_a_real_miscalibration() -> None:
    from agents.trust.report import Scored, ece, ece_by_chance

    rng = np.random.default_rng(7)
    p = rng.uniform(0.7, 1.0, 110)
    honest = [Scored(float(q), bool(hit), True) for q, hit in zip(p, rng.random(110) < p, strict=True)]
    chance = ece_by_chance(honest)
    assert chance is not None and 0.02 < chance["mean"] < chance["p95"] < 0.1  # ~110 answers: noise alone is visible
    overconfident = [Scored(0.99, i % 2 == 0, True) for i in range(110)]  # says 0.99, right half the time
    assert ece(overconfident) > 10 * ece_by_chance(overconfident)["p95"]
    assert ece_by_chance([Scored(None, False, False)]) is None
    bigger = [Scored(float(q), True, True) for q in rng.uniform(0.7, 1.0, 2000)]
    assert ece_by_chance(bigger)["mean"] < chance["mean"]  # the noise shrinks with the number of items


def test_ratings_of_a_reading_rule_are_laid_over_the_shipped_calibration() -> None:
    from agents.trust.evidence import RULE, UNCHECKED

    def printed(n: int, right: bool = True) -> list[Labelled]:
        return [Labelled(Evidence(answer="x", form="text", skill="OCR", level2="Scene Text QA", source="tools",
                                  check="verified", score=0.95, ocr=0.99), right) for _ in range(n)]

    rule = Evidence(answer="13:00", form="free", skill="OCR", level2="Text Recognition", source="tools",
                    check="verified", score=0.97, ocr=0.99, detail=f"{RULE}opening hours{UNCHECKED}")
    shipped = fit(printed(300))
    assert rule.rule == "opening hours" and shipped.decide(rule, 0.95).why == "too_few"  # never OCR's pooled record
    rated = [Labelled(rule, True) for _ in range(60)] + printed(20, right=False)  # a few bad ratings of printed text
    merged = fit(rated).on(shipped)
    assert merged.decide(rule, 0.95).answer  # the rule's own 60 clean ratings certify it
    printed_text = printed(1)[0].evidence
    assert merged.decide(printed_text, 0.95).answer  # 20 ratings do not override a kind fit on 300 answers
    assert merged.meta["on"] == shipped.version


def test_a_reading_rule_without_labelled_answers_of_its_own_borrows_no_other_rules_record() -> None:
    from agents.trust.evidence import RULE, UNCHECKED

    def ruled(name: str) -> Evidence:
        return Evidence(answer="x", form="free", skill="OCR", level2="Text Recognition", source="tools",
                        check="verified", score=0.97, ocr=0.99, detail=f"{RULE}{name}{UNCHECKED}")

    # Sixty clean answers of one rule (opening hours, as the notices benchmark labels them) fill the pool of all rules.
    calibration = fit([Labelled(ruled("opening hours"), True) for _ in range(60)])
    assert calibration.decide(ruled("opening hours"), 0.95).answer
    # A rule no one labelled is not known to read as well: it abstains, though the pool would clear the target.
    unlabelled = calibration.decide(ruled("a fact a sign states"), 0.95)
    assert (unlabelled.answer, unlabelled.why) == (False, "too_few")
    # With labelled answers of its own (too few to certify it alone), it may lean on the pool.
    some = fit([Labelled(ruled("opening hours"), True) for _ in range(60)]
               + [Labelled(ruled("a fact a sign states"), True) for _ in range(12)])
    assert some.decide(ruled("a fact a sign states"), 0.95).answer
