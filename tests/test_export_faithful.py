"""Exports are faithful to each run: its own registry snapshot and its own stored prompts, whatever is loaded now.

Runs are made for real under registries that differ from the default one (a VLM orchestrator behind a scripted
local chat server, an expert that only that registry has, a keyword registry whose expert was since renamed),
rated through ``Store.add_rating`` (the storage path ``maestro rate`` and the web UI's Rate tab write through), and
exported with the default registry loaded. The exported conversations must be exactly what the orchestrator and
the experts were sent, and must load with ``datasets`` and collate with the SFT collator on a tiny Qwen2-VL.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete

from agents.config import Settings
from agents.export.training_data import export, load_export
from agents.prompts import system_prompt
from agents.registry import load_registry
from agents.runtime import Maestro
from storage.models import RegistrySnapshot
from tests import test_vlm_policy as vlm
from tests.calibrations import trust_source
from tests.test_vlm_policy import Script, open_maestro, texts

# The scripted chat server and the rendered sign of the VLM policy tests, shared as fixtures.
server, chat, sign = vlm.server, vlm.chat, vlm.sign

SEARCH_EXPERT = ("<think>The sign has text; the chart expert can read it too.</think>\n"
                 "<search> Chart-Expert@@OCR: What is written on the sign? </search>")
EXPERT_REPLY = "The sign says NO PARKING in red capitals.\nAnswer: NO PARKING"
ANSWER = "<think>The expert read NO PARKING.</think>\n<answer>NO PARKING</answer>"
DIRECT = "<think>The sign reads NO PARKING; no call is needed.</think>\n<answer>NO PARKING</answer>"
QUESTION = "What is written on the sign?"


def default_registry() -> Any:
    return load_registry(None)


def sft_rows(out: Path, name: str = "sft") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / f"{name}.jsonl").read_text().splitlines()]


def stored_messages_as_exported(call_messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(role, text with image markers) of stored messages: what an exported prompt must reproduce."""
    out = []
    for message in call_messages:
        parts = ["<image>" if p["type"] == "image" else p["text"] for p in message["content"]]
        out.append((message["role"], "".join(parts)))
    return out


def exported(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(m["role"], "".join("<image>" if p["type"] == "image" else p["text"] for p in m["content"]))
            for m in messages]


@pytest.fixture
def vlm_runs(chat: tuple[str, Script], sign: Path, tmp_path: Path) -> dict[str, Any]:
    """Two runs of a VLM-orchestrated registry, both rated correct: one through an expert only that registry
    has (``Chart-Expert``), one answered directly."""
    url, script = chat
    script.replies[:] = [SEARCH_EXPERT, EXPERT_REPLY, ANSWER, DIRECT]
    trust_source(tmp_path / "home", ("expert:Chart-Expert", "verified"))  # what rating that expert's checked readings teaches
    app = open_maestro(tmp_path, url, max_turns=3)
    first = app.ask(sign, QUESTION)
    second = app.ask(sign, QUESTION)
    # The expert's reading is what OCR read on the sign (checked); the direct answer is the orchestrator's own.
    assert (first.status, second.status) == ("done", "abstained"), (first.reason, second.reason)
    assert first.steps[0].model == "Chart-Expert" and first.steps[0].status == "ok"
    for run in (first, second):
        app.store.add_rating(run.id, rater="ann", verdict="correct")
    return {"app": app, "runs": [first, second], "requests": list(script.requests), "data": tmp_path}


def test_two_rated_runs_of_another_registry_export_as_two_sft_rows(vlm_runs: dict[str, Any]) -> None:
    app, (first, second) = vlm_runs["app"], vlm_runs["runs"]
    loaded = default_registry()
    assert "Chart-Expert" not in loaded.model_names  # judged by today's registry, the first run would be invalid
    manifest = export(app.store, loaded, vlm_runs["data"] / "out", formats=["sft", "sft_experts", "kto"])
    assert manifest.counts["sft.jsonl"] == 2 and not manifest.skipped
    assert manifest.prompt_sources == {"stored_prompt": 2}
    rows = {row["run_id"]: row for row in sft_rows(vlm_runs["data"] / "out")}
    assert set(rows) == {first.id, second.id}

    # The prompt is exactly the one the orchestrator model was sent for the final turn (its last request)...
    requests = vlm_runs["requests"]
    final_request = requests[2]["messages"]  # orchestrator turn 1, the expert call, orchestrator turn 2
    row = rows[first.id]
    stored = app.store.get_run(first.id)
    last_call = stored.steps[-1].model_calls[0]
    assert last_call.role == "orchestrator"
    assert exported(row["messages"][:-1]) == stored_messages_as_exported(last_call.messages)
    system = row["messages"][0]["content"][0]["text"]
    assert system == texts(final_request[0])  # byte for byte what the server received
    assert "- Chart-Expert: " in system and system != system_prompt(loaded, 3)
    assert row["messages"][-1] == {"role": "assistant", "content": [{"type": "text", "text": ANSWER}],
                                   "train": True}
    assert [m["train"] for m in row["messages"]] == [m["role"] == "assistant" for m in row["messages"]]
    assert row["prompt_source"] == "stored_prompt" and row["registry_hash"] == stored.registry_hash
    assert len(row["images"]) == sum(p["type"] == "image" for m in row["messages"] for p in m["content"]) == 1

    # Expert-level SFT: the exact prompt Chart-Expert was sent, its raw reply as the target.
    [expert_row] = sft_rows(vlm_runs["data"] / "out", "sft_experts")
    [expert_call] = [c for c in stored.steps[0].model_calls if c.role == "expert"]
    assert expert_row["model"] == "Chart-Expert"
    assert exported(expert_row["messages"][:-1]) == stored_messages_as_exported(expert_call.messages)
    assert expert_row["messages"][-1]["content"][0]["text"] == EXPERT_REPLY and expert_row["messages"][-1]["train"]
    expert_text = "".join(p.get("text") or "" for m in requests[1]["messages"] for p in m["content"]
                          if p.get("type") == "text")
    assert expert_row["messages"][-2]["content"][-1]["text"] in expert_text

    # Both formats load the way TRL's trainers take them, images made absolute.
    data = load_export(vlm_runs["data"] / "out", "sft")
    assert len(data) == 2 and all(Path(p).is_file() for r in data for p in r["images"])
    assert len(load_export(vlm_runs["data"] / "out", "sft_experts")) == 1


def test_a_keyword_run_under_a_renamed_expert_uses_its_snapshot_then_its_own_names(sign: Path,
                                                                                   tmp_path: Path) -> None:
    registry = tmp_path / "old.yaml"
    registry.write_text("orchestrator: {policy: keyword, max_turns: 2}\n"
                        "experts:\n  - name: Old-Tools\n    description: The tools, under an old name.\n"
                        "    backend: tools\n", encoding="utf-8")
    trust_source(tmp_path / "home", ("tools", "verified"))
    app = Maestro.open(Settings.resolve(data_dir=tmp_path / "home", registry_path=registry))
    run = app.ask(sign, QUESTION)
    assert run.status == "done" and run.steps[0].model == "Old-Tools"
    app.store.add_rating(run.id, rater="ann", verdict="correct")
    loaded = default_registry()

    manifest = export(app.store, loaded, tmp_path / "out", formats=["sft"])
    [row] = sft_rows(tmp_path / "out")
    assert manifest.prompt_sources == {"run_snapshot": 1} and row["prompt_source"] == "run_snapshot"
    system = row["messages"][0]["content"][0]["text"]
    assert system == system_prompt(app.registry, 2)  # the run's registry and turn limit, not today's
    assert "- Old-Tools: The tools, under an old name." in system and "at most 2 turns" in system

    # A run older than snapshots: today's registry plus the names its own resolved steps used.
    with app.store.transaction() as session:
        session.execute(delete(RegistrySnapshot))
    manifest = export(app.store, loaded, tmp_path / "out2", formats=["sft"])
    [row] = sft_rows(tmp_path / "out2")
    assert manifest.counts["sft.jsonl"] == 1 and row["prompt_source"] == "loaded_registry_fallback"


def test_abstentions_rated_correct_are_targets(chat: tuple[str, Script], sign: Path, tmp_path: Path) -> None:
    url, script = chat
    said = "<think>The sign is too blurred to read.</think>\n<answer>I cannot answer: the text is blurred</answer>"
    script.replies[:] = [said, DIRECT]
    app = open_maestro(tmp_path, url)
    abstained = app.ask(sign, QUESTION)
    assert abstained.status == "abstained" and abstained.reason == "the text is blurred"
    # An answer withheld: the orchestrator's own reading, which no tool checked.
    withheld = app.ask(sign, QUESTION)
    assert withheld.status == "abstained" and withheld.steps[-1].answer == "NO PARKING"
    for run in (abstained, withheld):
        app.store.add_rating(run.id, rater="ann", verdict="correct")

    export(app.store, default_registry(), tmp_path / "out", formats=["sft"])
    rows = {row["run_id"]: row for row in sft_rows(tmp_path / "out")}
    assert set(rows) == {abstained.id, withheld.id}
    assert rows[abstained.id]["messages"][-1]["content"][0]["text"] == said
    target = rows[withheld.id]["messages"][-1]["content"][0]["text"]
    # Its reasoning argued for the withheld answer, so it is not kept beside the abstention.
    assert target.startswith("<think>The evidence above does not settle the question.</think>")
    assert "<answer>I cannot answer: too few rated examples of this kind" in target and "NO PARKING</answer>" \
        not in target


def test_preference_pairs_need_the_same_prompt(chat: tuple[str, Script], sign: Path, tmp_path: Path) -> None:
    url, script = chat
    wrong = "<think>It says STOP.</think>\n<answer>STOP</answer>"
    script.replies[:] = [DIRECT, wrong, wrong]
    app = open_maestro(tmp_path, url, max_turns=2)
    good, bad = app.ask(sign, QUESTION), app.ask(sign, QUESTION)
    # The same data directory under another registry: another system prompt ("at most 3 turns"), so no pair.
    elsewhere = open_maestro(tmp_path, url, max_turns=3).ask(sign, QUESTION)
    app.store.add_rating(good.id, rater="ann", verdict="correct")
    for run in (bad, elsewhere):
        app.store.add_rating(run.id, rater="ann", verdict="incorrect")

    manifest = export(app.store, default_registry(), tmp_path / "out", formats=["dpo"])
    [pair] = [json.loads(line) for line in (tmp_path / "out" / "dpo.jsonl").read_text().splitlines()]
    assert manifest.counts["dpo.jsonl"] == 1
    assert (pair["chosen_run_id"], pair["rejected_run_id"]) == (good.id, bad.id)
    # Both were the orchestrator's own readings, so both were withheld: the rated-correct side teaches the
    # abstention its run ended with, the rated-incorrect side keeps the wrong answer it gave.
    chosen = pair["chosen"][-1]["content"][0]["text"]
    # Its reasoning argued for the withheld answer, so the abstention gets reasoning of its own.
    assert chosen.startswith("<think>The evidence above does not settle the question.</think>")
    assert "<answer>I cannot answer: " in chosen
    assert pair["rejected"][-1]["content"][0]["text"] == wrong


def test_the_sft_rows_collate_on_a_tiny_qwen2vl(vlm_runs: dict[str, Any],
                                                tmp_path_factory: pytest.TempPathFactory) -> None:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from agents.experts.transformers_backend import _load_processor
    from tests.tiny_vlm import build_tiny_qwen2vl
    from training.sft_collator import IGNORE_INDEX, MaskedVisionCollator

    app, out = vlm_runs["app"], vlm_runs["data"] / "out"
    export(app.store, default_registry(), out, formats=["sft", "sft_experts"])
    processor = _load_processor(build_tiny_qwen2vl(tmp_path_factory.mktemp("tiny")), transformers)
    collate = MaskedVisionCollator(processor)
    for name in ("sft", "sft_experts"):
        for row in load_export(out, name):
            batch = collate([row])
            trained = batch["input_ids"][0][batch["labels"][0] != IGNORE_INDEX]
            text = processor.tokenizer.decode(trained)
            target = row["messages"][-1]["content"][0]["text"]
            assert target.split("\n")[-1] in text and "<information>" not in text
