"""Self-consistency sc@k (paper appendix E.3): sample k trajectories at temperature > 0 and majority-vote the answer.

Each sampled trajectory is an ordinary run, stored on its own, with ``config["sc"] = {"group", "index", "k",
"temperature"}`` linking the k runs of one question. Answers are compared after ``normalise_answer`` (the part in
curly brackets when there is one, lower case, no punctuation or articles, numbers in one canonical spelling);
runs that ended without an answer do not vote. Ties go to the answer reached first, so a vote never depends on
thread timing. ``Maestro.ask`` calls ``ask_self_consistent`` when the registry asks for ``self_consistency > 1``.
"""

from __future__ import annotations

import copy
import re
import string
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from agents.answers import normalize
from agents.loop import EventSink
from agents.types import Run

#: The paper samples rollouts at temperature 1.0 (appendix D.4).
DEFAULT_TEMPERATURE = 1.0

_BRACES = re.compile(r"\{([^{}]*)\}")
_PUNCTUATION = str.maketrans("", "", string.punctuation.replace("%", ""))
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?")


def normalise_answer(answer: str | None) -> str | None:
    """The form answers are voted on; None for no answer. ``"{3}"``, ``"3."`` and ``"3.0"`` all become ``"3"``."""
    if answer is None or not answer.strip():
        return None
    braces = _BRACES.findall(answer)
    text = braces[-1] if braces else answer
    stripped = text.strip().rstrip(".").strip()
    if _NUMBER.fullmatch(stripped):
        value = float(stripped.rstrip("%").replace(",", ""))
        return f"{value:g}" + ("%" if stripped.endswith("%") else "")
    # A lone "A" is a multiple-choice letter, not an article: articles go only from longer answers.
    words = text.lower().translate(_PUNCTUATION).split()
    return (normalize(text) if len(words) > 1 else " ".join(words)) or None


@dataclass
class Vote:
    """The outcome of a majority vote over k sampled answers."""

    k: int
    group: str
    winner: str | None  # the normalised answer with the most votes
    answer: str | None  # that answer as the first run that gave it wrote it
    counts: dict[str, int]  # normalised answer -> votes, most votes first
    run_ids: list[str | None]
    winner_index: int | None  # which sample the returned run is

    @property
    def agreement(self) -> float:
        """The winner's share of the k samples (0 when nobody answered)."""
        return self.counts.get(self.winner, 0) / self.k if self.winner is not None else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"k": self.k, "group": self.group, "winner": self.winner, "answer": self.answer,
                "counts": dict(self.counts), "agreement": self.agreement, "run_ids": list(self.run_ids),
                "winner_index": self.winner_index}


def majority_vote(runs: list[Run], group: str = "") -> Vote:
    """The vote over ``runs`` (in sampling order); only finished runs with an answer count."""
    normalised = [normalise_answer(r.answer) if r.status == "done" else None for r in runs]
    counter = Counter(n for n in normalised if n is not None)
    first_seen = {n: i for i, n in reversed(list(enumerate(normalised))) if n is not None}
    ranked = sorted(counter, key=lambda n: (-counter[n], first_seen[n]))
    winner = ranked[0] if ranked else None
    index = first_seen[winner] if winner is not None else None
    return Vote(k=len(runs), group=group, winner=winner, answer=runs[index].answer if index is not None else None,
                counts={n: counter[n] for n in ranked}, run_ids=[r.id for r in runs], winner_index=index)


@dataclass
class VotedRun(Run):
    """The run that carries the voted answer (the first sample that gave it), with the vote and every sample.

    ``answer`` is the voted answer, ``ballot`` the vote (``vote`` its plain form); the steps are that sample's. Token counts and cost of the whole sc@k call are
    ``total_tokens_in`` / ``total_tokens_out`` / ``total_cost``."""

    ballot: Vote | None = None
    samples: list[Run] = field(default_factory=list)

    @property
    def total_tokens_in(self) -> int:
        return sum(r.tokens_in for r in self.samples)

    @property
    def total_tokens_out(self) -> int:
        return sum(r.tokens_out for r in self.samples)

    @property
    def total_cost(self) -> float:
        return sum(r.cost for r in self.samples)


def sampling_policy(policy: Any, temperature: float) -> Any:
    """A copy of ``policy`` that samples at ``temperature`` (the original keeps its own setting)."""
    sampled = copy.copy(policy)
    sampled.temperature = temperature
    return sampled


def ask_self_consistent(maestro: Any, image: str | Path | bytes | Image.Image, question: str, *, k: int,
                        temperature: float = DEFAULT_TEMPERATURE, concurrency: int = 1,
                        on_event: EventSink | None = None, **ask_kwargs: Any) -> Run:
    """Ask ``question`` k times through ``maestro`` with a sampling copy of its policy; return the voted run.

    A policy without a ``temperature`` cannot be sampled, so k copies would be k identical runs: it is asked
    once. ``concurrency`` > 1 runs samples in threads (useful against a vLLM server, which batches them); events
    from different samples then interleave, each carrying its own ``run``."""
    if k < 1:
        raise ValueError("k must be at least 1")
    if temperature <= 0:
        raise ValueError("self-consistency needs a sampling temperature above 0")
    if not hasattr(maestro.policy, "temperature"):
        return maestro.ask(image, question, on_event=on_event, run_config={}, **ask_kwargs)
    group = uuid.uuid4().hex
    policy = sampling_policy(maestro.policy, temperature)

    def sample(index: int) -> Run:
        config = {"sc": {"group": group, "index": index, "k": k, "temperature": temperature}}
        return maestro.ask(image, question, on_event=on_event, policy=policy, run_config=config, **ask_kwargs)

    if concurrency > 1:
        with ThreadPoolExecutor(max_workers=min(concurrency, k)) as pool:
            runs = list(pool.map(sample, range(k)))
    else:
        runs = [sample(i) for i in range(k)]
    vote = majority_vote(runs, group)
    chosen = runs[vote.winner_index] if vote.winner_index is not None else runs[0]
    fields = {name: getattr(chosen, name) for name in Run.__dataclass_fields__}
    fields["vote"] = vote.as_dict()
    voted = VotedRun(**fields, ballot=vote, samples=runs)
    if vote.winner is not None:
        voted.answer, voted.status, voted.error = vote.answer, "done", None
    return voted
