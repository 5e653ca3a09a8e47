"""Training data out: stored runs and people's ratings become SFT, DPO, KTO, GRPO and verl files (docs/design.md §7).

``export(store, registry, out_dir, …)`` reads the runs matching the filters and writes, per format, a JSONL file and
a parquet file beside an ``images/`` folder (content-addressed copies of the run images, each copied once) and a
``manifest.json`` (row counts per file, filters, the registry snapshot hash and skill versions, what was skipped and
why). Which runs feed which format (the latest whole-run rating decides):

- SFT, and the good side of DPO/KTO: finished runs (answered or abstained) rated correct, and runs with a corrected
  answer (the final turn's answer is replaced, its reasoning kept), whose protocol text is valid
  (``validate_trajectory``) under the run's own registry: a model is never taught a malformed turn. An abstention
  rated correct is a target too: its final turn says ``I cannot answer: <reason>`` (a run whose answer was withheld
  for weak evidence gets that turn in place of the withheld answer).
- ``sft_experts``: for runs rated correct as answered, the exact prompt each expert of the answering search was
  sent and its raw reply (``agents.export.prompts.expert_conversations``).
- the bad side of DPO/KTO: runs rated incorrect, as they were (malformed ones too: that is what to unlearn).
  DPO pairs a good and a bad trajectory of the same prompt (image, question and system prompt); a corrected run
  pairs with itself.
- GRPO/verl prompts: one per distinct (image, question) with a ground truth (``agents.evaluation.reward.ground_truth_for``:
  a correction, a confirmed answer, or the dataset item's answer), plus the items of ``dataset`` when given. These
  are prompts for rollouts to come, so they use the registry loaded now (the experts the rollouts can call).
- DPO from an evaluation comparison (``comparison=``): items where one run was right and the other wrong
  (``agents.export.comparison``).
- ratings: every live rating of the exported runs, one row each (who, verdict, corrected answer, comment, step,
  box corrections), for annotation audits and agreement studies.
- labels: each rated run's final label, and where it came from (``adjudicated``, ``agreed``, ``single``).
- grounding: runs whose final label carries box corrections (in the stored image's pixels), as grounding SFT.
- grounding_experts: each expert call that gave boxes, in runs rated correct, as an SFT row whose target is the
  boxes (``agents.export.grounding``): the expert's own boxes, checked only through the run's answer.

Only live ratings count (an edited rating's earlier versions stay in storage's history, never in an export). When
annotators disagree on a run's verdict, the run is neither a positive nor a negative example (skipped as
``annotators_disagree``): training on a disputed label would teach a guess, until a reviewer adjudicates it
(``storage.team.adjudicate``): a final label replaces every annotator's verdict in every format.

Faithfulness: every trajectory is judged and laid out under the registry its run was made with (its stored snapshot,
``agents.replay.run_registry``) and with the exact orchestrator prompts the run stored (``agents.export.prompts``), never
under the registry loaded at export time: runs made under another registry (a self-consistency setup, experts since
renamed) are exported as they ran. Each row names its ``registry_hash`` and ``prompt_source``; the manifest counts
the sources.

``export_app`` is what the web UI's Export tab calls; ``load_export`` reads a file back as a ``datasets.Dataset``
with absolute image paths.
"""

from __future__ import annotations

import json
import secrets
import shutil
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.evaluation.compare import load_comparison
from agents.evaluation.reward import stored_trajectory
from agents.export import formats as fmt
from agents.export.comparison import comparison_pairs
from agents.export.files import FILE_STEMS, atomic_write, load_export, write_jsonl, write_parquet
from agents.export.prompts import Conversation, conversation, expert_conversations, rl_prompts
from agents.outcome import abstention, abstention_reason
from agents.prompts import system_prompt
from agents.protocol import validate_trajectory
from agents.replay.run_registry import RunRegistries, RunRegistry
from storage import RatingRecord
from storage.team import FinalLabel, final_label

if TYPE_CHECKING:
    from agents.registry import Registry
    from agents.runtime import Maestro
    from storage import RunRecord, Store

__all__ = ["FORMATS", "Manifest", "default_export_dir", "export", "export_app", "load_export"]

FORMATS = ("sft", "sft_experts", "dpo", "kto", "grpo", "verl", "ratings", "labels", "grounding", "grounding_experts")
#: Statuses of runs that ended as the policy meant them to: only these can be good examples.
_FINISHED = ("done", "abstained")
_PAGE = 500


@dataclass
class Manifest:
    """What an export wrote and from what; saved as ``manifest.json`` next to the data."""

    out_dir: str
    created_at: str
    formats: list[str]
    filters: dict[str, Any]
    registry_hash: str
    skill_versions: dict[str, str]
    counts: dict[str, int] = field(default_factory=dict)  # file name -> rows
    images: int = 0
    runs_considered: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> runs
    run_registry_hashes: list[str] = field(default_factory=list)
    prompt_sources: dict[str, int] = field(default_factory=dict)  # stored_prompt | run_snapshot | fallback -> runs
    pair_lengths: dict[str, Any] = field(default_factory=dict)  # DPO pairs measured with a processor (see below)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """A few readable lines for a CLI or a UI status box."""
        lines = [f"exported {self.runs_considered} runs to {self.out_dir}"]
        lines += [f"  {name}: {n} rows" for name, n in self.counts.items()]
        lines.append(f"  images: {self.images}")
        if self.prompt_sources:
            lines.append("  prompts from: " + ", ".join(f"{k} {v}" for k, v in sorted(self.prompt_sources.items())))
        if self.pair_lengths:
            lines.append(f"  dpo pairs: longest {self.pair_lengths['longest_tokens']} tokens; "
                         f"{self.pair_lengths['dropped']} identical within max_length "
                         f"{self.pair_lengths['max_length']} dropped")
        if self.skipped:
            lines.append("  skipped: " + ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items())))
        return "\n".join(lines)


@dataclass
class _Judged:
    """A run with what its latest whole-run rating makes of it."""

    record: RunRecord
    registry: RunRegistry  # the registry the run was made with
    good: bool = False  # usable as a positive example
    bad: bool = False  # a person said it is wrong
    final_text: str | None = None  # the corrected final turn, when a correction applies
    corrected: bool = False  # a person's corrected answer replaced the final turn's
    label: RatingRecord | None = None  # the label that decided (a reviewer's, or the annotators' latest)
    label_source: str = ""  # adjudicated | agreed | single

    def good_conversation(self) -> Conversation:
        return conversation(self.record, self.registry, final_text=self.final_text)

    def bad_conversation(self) -> Conversation:
        return conversation(self.record, self.registry)


def parse_when(value: str | date | datetime | None, *, end: bool = False) -> datetime | None:
    """An ISO date or datetime as an aware UTC datetime; a bare date means its start (or, with ``end``, its end)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValueError(f"not an ISO date or datetime: {value!r:.40}") from exc
        if end and len(text) <= 10:  # a bare date as an upper bound means the whole of that day
            parsed = datetime.combine(parsed.date(), datetime.max.time())
        value = parsed
    elif not isinstance(value, datetime):
        value = datetime.combine(value, datetime.max.time() if end else datetime.min.time())
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _iter_runs(store: Store, *, since: datetime | None, until: datetime | None, rating: str | None,
               skill: str | None, model: str | None, dataset: str | None) -> Iterator[Any]:
    offset = 0
    while True:
        page = store.list_runs(limit=_PAGE, offset=offset, rating=rating, skill=skill, model=model, dataset=dataset)
        for summary in page:
            created = _aware(summary.created_at)
            if (since and created < since) or (until and created > until) or summary.status == "running":
                continue
            record = store.get_run(summary.id)
            if record is not None:
                yield record
        if len(page) < _PAGE:
            return
        offset += _PAGE


def _as_label(final: FinalLabel) -> RatingRecord:
    """A reviewer's final label in the shape of a rating (verdict, corrected answer, boxes; the reason as comment)."""
    return RatingRecord(id=0, run_id=final.run_id, step_index=None, rater=final.reviewer, verdict=final.verdict,  # type: ignore[arg-type]
                        score=None, corrected_answer=final.final_answer, comment=final.reason, step_marks={},
                        created_at=final.updated_at, updated_at=final.updated_at, boxes=list(final.boxes))


def _judge(record: RunRecord, registry: RunRegistry, skipped: dict[str, int],
           final: FinalLabel | None = None) -> _Judged:
    judged = _Judged(record, registry)
    whole = [r for r in record.ratings if r.step_index is None]
    if final is not None:  # a reviewer settled it: their label is the only one
        whole, judged.label_source = [_as_label(final)], "adjudicated"
    elif len({r.verdict for r in whole}) > 1:
        _count(skipped, "annotators_disagree")
        return judged
    else:
        judged.label_source = "agreed" if len({r.rater for r in whole}) > 1 else "single"
    latest = whole[-1] if whole else None
    if latest is None:
        return judged
    judged.label = latest
    if not latest.boxes and final is None:  # box corrections of the agreeing annotators: the latest one that drew
        latest_boxes = next((r.boxes for r in reversed(whole) if r.boxes), [])
        judged.label = replace(latest, boxes=list(latest_boxes))
    judged.bad = latest.verdict == "incorrect"
    last = record.steps[-1] if record.steps else None
    answer_turn = last if last is not None and last.kind == "answer" else None  # the run's final answer turn
    if latest.corrected_answer and latest.corrected_answer.strip():
        text = (fmt.final_turn_with(answer_turn.raw_text, latest.corrected_answer) if answer_turn is not None
                else None)
        if text is None:
            _count(skipped, "corrected_without_final_answer_turn")
            return judged
        judged.final_text, judged.corrected = text, True
    elif latest.verdict != "correct":
        return judged
    elif record.status not in _FINISHED:
        _count(skipped, f"{record.status}_run_not_used_as_positive")
        return judged
    elif (record.status == "abstained" and answer_turn is not None
          and abstention_reason(answer_turn.answer) is None):
        # The policy answered, but the answer was withheld (weak evidence, wrong form): the rated-correct outcome
        # is the abstention, so that is what the final turn must teach.
        withheld = abstention(record.reason or "the evidence is weak")
        judged.final_text = fmt.final_turn_with(answer_turn.raw_text, withheld, withheld=True)
    turns = stored_trajectory(record)
    if judged.final_text is not None:
        turns[-1] = judged.final_text
    if validate_trajectory(turns, registry.model_names, registry.skill_names):
        _count(skipped, "invalid_protocol_not_used_as_positive")
        return judged
    judged.good = True
    return judged


def _count(counter: dict[str, int], key: str, n: int = 1) -> None:
    counter[key] = counter.get(key, 0) + n


class _Images:
    """Copies run images into ``<out>/images/<sha256>.<ext>`` once each, by content address."""

    def __init__(self, store: Store, out_dir: Path) -> None:
        self.store = store
        self.root = out_dir / "images"
        self.copied: dict[str, str] = {}

    def relative(self, image_id: str) -> str:
        if image_id not in self.copied:
            source = self.store.images.path(image_id)  # validates the id: no path can be built from other text
            target = self.root / f"{image_id}{source.suffix}"
            if not (target.is_file() and target.stat().st_size == source.stat().st_size):
                self.root.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
            self.copied[image_id] = f"images/{target.name}"
        return self.copied[image_id]

    def paths(self, conv: Conversation) -> list[str]:
        """The relative path of each image a conversation's placeholders stand for, in order."""
        return [self.relative(image_id) for image_id in conv.image_ids]


def export(store: Store, registry: Registry, out_dir: str | Path, *, formats: Sequence[str] = FORMATS,
           since: str | date | datetime | None = None, until: str | date | datetime | None = None,
           rating: str | None = None, skill: str | None = None, model: str | None = None,
           dataset: str | None = None, max_pairs_per_prompt: int = 8,
           comparison: str | Path | None = None, processor: str | None = None,
           max_length: int | None = None) -> Manifest:
    """Write the chosen training formats for the runs matching every filter into ``out_dir``; see module doc.
    ``comparison`` (an evaluation's ``comparison.json``) adds its right-vs-wrong items as DPO pairs. With
    ``processor`` (a model folder or id), DPO pairs are measured in its tokens and those identical within
    ``max_length`` tokens are dropped and reported (``agents.export.pair_length``)."""
    if max_length is not None and not processor:
        raise ValueError("--max-length needs --processor: the tokens are counted with the trainer's processor")
    formats = list(dict.fromkeys(formats or FORMATS))
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"unknown export format(s) {', '.join(unknown)}; choose from {', '.join(FORMATS)}")
    compared = load_comparison(comparison) if comparison is not None else None
    if compared is not None and "dpo" not in formats:
        raise ValueError("a comparison becomes DPO pairs: include the dpo format")
    start, end = parse_when(since), parse_when(until, end=True)
    if start and end and start > end:  # an empty export that looks like a successful one
        raise ValueError(f"--since {start.isoformat()} is after --until {end.isoformat()}: no run could match")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    max_turns = registry.orchestrator.max_turns
    system = system_prompt(registry, max_turns)  # RL prompts only: rollouts run under the registry loaded now
    manifest = Manifest(
        out_dir=str(out), created_at=datetime.now(UTC).isoformat(timespec="seconds"), formats=formats,
        filters={"since": start.isoformat() if start else None, "until": end.isoformat() if end else None,
                 "rating": rating, "skill": skill, "model": model, "dataset": dataset,
                 "comparison": str(comparison) if comparison is not None else None},
        registry_hash=registry.snapshot_hash(),
        skill_versions={s.spec.name: s.spec.version for s in registry.skills})
    images = _Images(store, out)
    registries = RunRegistries(store, registry)
    judged: list[_Judged] = []
    hashes: set[str] = set()
    for record in _iter_runs(store, since=start, until=end, rating=rating, skill=skill, model=model,
                             dataset=dataset):
        manifest.runs_considered += 1
        hashes.add(record.registry_hash)
        if not store.images.exists(record.image_id):
            _count(manifest.skipped, "image_missing")
            continue
        judged.append(_judge(record, registries.for_run(record), manifest.skipped, final_label(store, record.id)))
    manifest.run_registry_hashes = sorted(hashes)

    rows: dict[str, list[dict[str, Any]]] = {}
    if "sft" in formats:
        rows["sft"] = []
        for j in (j for j in judged if j.good):
            conv = j.good_conversation()
            _count(manifest.prompt_sources, conv.source)
            rows["sft"].append(fmt.sft_row(j.record, conv, images.paths(conv),
                                           source="corrected" if j.corrected else "correct"))
    if "sft_experts" in formats:
        rows["sft_experts"] = [fmt.expert_sft_row(j.record, step, call, conv, images.paths(conv), i)
                               for j in judged if j.good and not j.corrected and j.record.status == "done"
                               for i, (step, call, conv) in enumerate(expert_conversations(j.record))]
    if "grounding_experts" in formats:
        from agents.export.grounding import grounding_rows

        rows["grounding_experts"] = grounding_rows((j.record for j in judged if j.good and not j.corrected),
                                           images.relative)
    if "kto" in formats:
        rows["kto"] = _kto_rows(judged, images)
    if "dpo" in formats:
        rows["dpo"] = _dpo_rows(judged, images, max_pairs_per_prompt)
        if compared is not None:
            known = {row["id"] for row in rows["dpo"]}
            rows["dpo"] += [row for row in comparison_pairs(store, registries, compared, image_paths=images.paths,
                                                            skipped=manifest.skipped) if row["id"] not in known]
        if processor:
            from agents.export.pair_length import check_pairs, load_processor

            rows["dpo"], lengths = check_pairs(rows["dpo"], load_processor(processor), max_length, image_root=out,
                                               processor_name=processor)
            manifest.pair_lengths = lengths.to_dict()
            if lengths.dropped:
                _count(manifest.skipped, "dpo_pair_identical_within_max_length", len(lengths.dropped))
    if "ratings" in formats:
        rows["ratings"] = [_rating_row(j.record, r) for j in judged for r in j.record.ratings]
    if "labels" in formats:
        rows["labels"] = [fmt.label_row(j.record, j.label, j.label_source) for j in judged if j.label is not None]
    if "grounding" in formats:
        rows["grounding"] = [fmt.grounding_row(j.record, j.label, images.relative(j.record.image_id), j.label_source)
                             for j in judged if j.label is not None and j.label.boxes]
    if "grpo" in formats or "verl" in formats:
        prompts = rl_prompts(judged, store, dataset, manifest.skipped)
        names = fmt.registry_names(registry)
        if "grpo" in formats:
            rows["grpo"] = [fmt.grpo_row(i, p["question"], images.relative(p["image_id"]), p["truth"],
                                         source=p["source"], system=system, match_kind=p["kind"])
                            for i, p in enumerate(prompts)]
        if "verl" in formats:
            rows["verl"] = [fmt.verl_row(i, p["question"], images.relative(p["image_id"]), p["truth"],
                                         source=p["source"], system=system, ability=p["ability"],
                                         match_kind=p["kind"], names=names, max_turns=max_turns)
                            for i, p in enumerate(prompts)]
    for name in formats:
        stem = FILE_STEMS[name]
        manifest.counts[f"{stem}.jsonl"] = write_jsonl(out / f"{stem}.jsonl", rows[name])
        if rows[name]:
            manifest.counts[f"{stem}.parquet"] = write_parquet(out / f"{stem}.parquet", rows[name])
        else:
            (out / f"{stem}.parquet").unlink(missing_ok=True)  # a stale file from an earlier export would mislead
    manifest.images = len(images.copied)
    atomic_write(out / "manifest.json", json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) + "\n")
    return manifest


def _rating_row(record: RunRecord, rating: Any) -> dict[str, Any]:
    """One live rating with its run's question, answer and status (flat, so parquet needs no nested schema)."""
    when = rating.updated_at or rating.created_at
    return {"run_id": record.id, "rater": rating.rater, "verdict": rating.verdict, "step_index": rating.step_index,
            "corrected_answer": rating.corrected_answer, "comment": rating.comment,
            "step_marks": json.dumps(rating.step_marks or {}, ensure_ascii=False), "rated_at": when.isoformat(),
            "boxes": json.dumps(rating.boxes or [], ensure_ascii=False),
            "question": record.question, "answer": record.answer, "status": record.status,
            "reason": record.reason, "image_id": record.image_id}


def _kto_rows(judged: Iterable[_Judged], images: _Images) -> list[dict[str, Any]]:
    rows = []
    for j in judged:
        if j.good:
            conv = j.good_conversation()
            rows.append(fmt.kto_row(j.record, conv, images.paths(conv), label=True))
        if j.bad:
            conv = j.bad_conversation()
            rows.append(fmt.kto_row(j.record, conv, images.paths(conv), label=False))
    return rows


def _group_key(record: RunRecord) -> tuple[str, str]:
    return record.image_id, " ".join(record.question.split())


def _dpo_rows(judged: Sequence[_Judged], images: _Images, max_pairs: int) -> list[dict[str, Any]]:
    """Pairs of a good and a bad trajectory whose prompts are the same to the token (image, question, system)."""
    groups: dict[str, list[tuple[_Judged, Conversation | None, Conversation | None]]] = {}
    for j in judged:
        if not (j.good or j.bad):
            continue
        good = j.good_conversation() if j.good else None
        bad = j.bad_conversation() if j.bad else None
        either = good or bad
        assert either is not None  # a run that is neither good nor bad was skipped above
        groups.setdefault(either.prompt_key(), []).append((j, good, bad))
    rows = []
    for members in groups.values():
        pairs = [(j, good, j, bad, "corrected_vs_original") for j, good, bad in members
                 if good is not None and bad is not None and j.corrected]
        pairs += [(g, good, b, bad, "correct_vs_incorrect") for g, good, _ in members if good is not None
                  for b, _, bad in members if bad is not None and b is not g]
        for chosen, chosen_conv, rejected, rejected_conv, kind in pairs[:max_pairs]:
            rows.append(fmt.dpo_row(chosen.record, rejected.record, chosen_conv, rejected_conv,
                                    images.paths(chosen_conv), kind=kind))
    return rows


def default_export_dir(data_dir: str | Path) -> Path:
    """``<data_dir>/exports/<UTC timestamp>-<random>``: where an export goes when no folder is named (a new one each
    time). The web app serves this folder to logged-in users so that an admin can download what they made; the
    random part keeps anyone else (an annotator who guesses the second) from fetching every run and rating."""
    root = Path(data_dir) / "exports"
    stamp = f"{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(8)}"
    target, n = root / stamp, 1
    while target.exists():  # two exports in the same second must not share (and overwrite) a folder
        n += 1
        target = root / f"{stamp}-{n}"
    return target


def export_app(app: Maestro, out_dir: str | Path | None = None, **options: Any) -> Manifest:
    """Export from a running ``agents.runtime.Maestro`` (the web UI's Export tab): same options as ``export``."""
    target = Path(out_dir) if out_dir else default_export_dir(app.settings.data_dir)
    return export(app.store, app.registry, target, **options)
