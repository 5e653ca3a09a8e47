"""Labelled answers for calibration: from evaluation folders (results + the dataset they name) and from ratings.

An evaluation row carries the run's candidate answer, its evidence and whether the candidate matches the expected
answer (``candidate_correct``), also when the run withheld it below the threshold: every candidate is a labelled
example. Folders written before evidence was recorded are rebuilt from the stored runs (``store``). A rated run is
labelled by comparing its candidate with the rater's corrected answer when there is one, else by its latest verdict
(``correct`` / ``incorrect`` on an answered run; ``partial`` is left out).

The split is by image, so all questions about one receipt fall on the same side: an image is ``validation`` when
the first 8 hex digits of SHA-256 of its file name (``receipt_002.jpg``) are divisible by 4 (about a quarter),
else ``tuning``. Ratings are all ``tuning``: they are the data answering learns from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.evaluation.answers import match_answer
from agents.evaluation.results import MANIFEST, read_rows
from agents.trust.evidence import Evidence, gather
from agents.trust.fit import Labelled
from skills.answer_form import AnswerForm

if TYPE_CHECKING:
    from storage import RunRecord, Store


def split_of(image: str) -> str:
    """``validation`` or ``tuning`` for an image's file name (see the module docstring)."""
    name = image.replace("\\", "/").rsplit("/", 1)[-1]
    return "validation" if int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % 4 == 0 else "tuning"


def from_eval_folder(folder: str | Path, store: Store | None = None) -> list[Labelled]:
    """The labelled candidates of one evaluation folder (``results.jsonl`` and ``eval.json``)."""
    from agents.evaluation.harness import load_items

    folder = Path(folder)
    rows = read_rows(folder)
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{manifest_path}: missing (it names the dataset the folder evaluates)")
    dataset = Path(json.loads(manifest_path.read_text(encoding="utf-8"))["dataset"])
    items = {item.id: item for item in load_items(dataset)}
    name = dataset.parent.name
    out: list[Labelled] = []
    for row in rows:
        item = items.get(row["id"])
        if item is None:
            continue
        evidence, correct = _from_row(row, store)
        image = item.image.name
        if evidence is None:  # no candidate answer: counted in coverage, never answered
            out.append(Labelled(None, False, split_of(image), name, item.id))
            continue
        if correct is None:
            correct = item.accepts(evidence.answer)
        out.append(Labelled(evidence, bool(correct), split_of(image), name, item.id))
    return out


def _from_row(row: dict[str, Any], store: Store | None) -> tuple[Evidence | None, bool | None]:
    if isinstance(row.get("evidence"), dict):
        return Evidence.from_dict(row["evidence"]), row.get("candidate_correct")
    if store is None or not row.get("run_id"):
        return None, None
    run = store.get_run(row["run_id"])
    if run is None:
        return None, None
    evidence = evidence_of_record(run, store)
    if evidence is None:
        return None, None
    return evidence, None  # judged afresh against the expected answer


def evidence_of_record(run: RunRecord, store: Store) -> Evidence | None:
    """A stored run's evidence: as recorded (``runs.trust``), else rebuilt from its steps (older runs)."""
    recorded = (getattr(run, "trust", None) or {}).get("evidence")
    if isinstance(recorded, dict):
        return Evidence.from_dict(recorded)
    if run.status != "done" or not run.answer:
        return None
    form_data = run.answer_form or {}
    form = AnswerForm(kind=form_data.get("kind", "free"), options=dict(form_data.get("options") or {}),
                      braces=bool(form_data.get("braces")))
    snapshot = store.registry_snapshot(run.registry_hash) or {}
    neural = frozenset(e["name"] for e in snapshot.get("experts", []) if e.get("backend") != "tools")
    vote = (run.vote or {}).get("agreement")
    return gather(run.answer, run.steps, form, neural_models=neural, vote=vote)


def from_ratings(store: Store) -> list[Labelled]:
    """Labelled candidates from the runs people rated (latest verdict of each run)."""
    out: list[Labelled] = []
    for run in _rated_runs(store):
        latest = [r for r in run.ratings if r.step_index is None]
        if not latest:
            continue
        rating = latest[-1]
        evidence = evidence_of_record(run, store)
        if evidence is None:
            continue
        if rating.corrected_answer:  # the rater says what is right: the candidate is judged against it
            correct = match_answer(evidence.answer, rating.corrected_answer)
        elif run.status == "done" and rating.verdict in ("correct", "incorrect"):
            correct = rating.verdict == "correct"
        else:  # an abstention rated without a corrected answer says nothing about the withheld candidate
            continue
        out.append(Labelled(evidence, correct, "tuning", "ratings", run.id))
    return out


def _rated_runs(store: Store) -> Iterator[RunRecord]:
    for verdict in ("correct", "incorrect"):
        offset = 0
        while True:
            page = store.list_runs(limit=500, offset=offset, rating=verdict)
            for summary in page:
                run = store.get_run(summary.id)
                if run is not None:
                    yield run
            if len(page) < 500:
                break
            offset += 500
