"""Self-consistency sc@k (paper appendix E.3): sample k trajectories at temperature > 0 and majority-vote the answer.

Each sampled trajectory is an ordinary run, stored on its own, with ``config["sc"] = {"group", "index", "k",
"temperature"}`` linking the k runs of one question. Samples run in parallel on a bounded thread pool (a vLLM server
batches them); each thread gets a copy of the caller's context, so the call's time budget (``agents.budget``: the
registry's ``run_budget_s`` for the whole sc@k call) holds inside every sample. Answers are compared after
``vote_key`` (the part in curly brackets when there is one, lower case, no punctuation or articles, numbers
in one canonical spelling); runs that ended without an answer do not vote. Ties go to the answer reached first, so
a vote never depends on thread timing.

The vote's winner is settled again with the vote's agreement as evidence (``agents.outcome.settle(...,
vote_agreement=)``): 2 of 5 agreeing is weak evidence, and below the calibrated threshold the call abstains.
The sample that carries the winning answer (the first that gave it) is updated in storage with the outcome and the
vote (``RunRecord.vote``: answers, counts, agreement, run ids), so the CLI, Replay and exports show it.

Only a policy with a sampling ``temperature`` (the vlm policy) can be sampled: the keyword and router policies are
deterministic, so k copies would be k identical runs. Such a call is asked once and says so
(``sampling_warning``; stored on the run as ``config["sc"]["warning"]``). ``Maestro.ask`` calls
``ask_self_consistent`` when ``orchestrator.self_consistency`` (or its ``sc`` argument) asks for k > 1.
"""

from __future__ import annotations

import contextvars
import copy
import re
import string
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from agents import budget
from agents.loop import EventSink
from agents.outcome import settle_for
from skills.answer_form import answer_form, normalise_text
from storage.trace import Run

if TYPE_CHECKING:
    from agents.runtime import Maestro

#: The paper samples rollouts at temperature 1.0 (appendix D.4).
DEFAULT_TEMPERATURE = 1.0
#: Samples of one call in flight at once, unless the registry says otherwise.
DEFAULT_CONCURRENCY = 4

_BRACES = re.compile(r"\{([^{}]*)\}")
_PUNCTUATION = str.maketrans("", "", string.punctuation.replace("%", ""))
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?")


def vote_key(answer: str | None) -> str | None:
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
    return (normalise_text(text) if len(words) > 1 else " ".join(words)) or None


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
    answers: list[str | None] = field(default_factory=list)  # each sample's answer (None: it did not answer)

    @property
    def agreement(self) -> float:
        """The winner's share of the k samples (0 when nobody answered)."""
        return self.counts.get(self.winner, 0) / self.k if self.winner is not None else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"k": self.k, "group": self.group, "winner": self.winner, "answer": self.answer,
                "answers": list(self.answers), "counts": dict(self.counts), "agreement": round(self.agreement, 4),
                "run_ids": list(self.run_ids), "winner_index": self.winner_index}


def majority_vote(runs: list[Run], group: str = "") -> Vote:
    """The vote over ``runs`` (in sampling order): each sample's answer, or the candidate it withheld for want of
    calibrated evidence (the vote itself is evidence); failed samples and contradicted candidates do not count."""
    ballots = [ballot(r) for r in runs]
    normalised = [vote_key(b) if b is not None else None for b in ballots]
    counter = Counter(n for n in normalised if n is not None)
    first_seen = {n: i for i, n in reversed(list(enumerate(normalised))) if n is not None}
    ranked = sorted(counter, key=lambda n: (-counter[n], first_seen[n]))
    winner = ranked[0] if ranked else None
    index = first_seen[winner] if winner is not None else None
    return Vote(k=len(runs), group=group, winner=winner, answer=ballots[index] if index is not None else None,
                counts={n: counter[n] for n in ranked}, run_ids=[r.id for r in runs], winner_index=index,
                answers=ballots)


def ballot(run: Run) -> str | None:
    """What a sample votes for: its answer, or the candidate it withheld (not one the tools contradicted)."""
    if run.status == "done":
        return run.answer
    trust = run.trust or {}
    evidence = trust.get("evidence") or {}
    if run.status == "abstained" and trust.get("candidate") and evidence.get("check") != "contradicted":
        return str(trust["candidate"])
    return None


@dataclass
class VotedRun(Run):
    """The run that carries the voted answer (the first sample that gave it), with the vote and every sample.

    ``answer`` is the voted answer, ``ballot`` the vote (``vote`` its plain form); the steps are that sample's.
    Token counts and cost of the whole sc@k call are ``total_tokens_in`` / ``total_tokens_out`` / ``total_cost``;
    ``latency_ms`` is the wall time of the whole call."""

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


def sampling_warning(policy: Any, k: int) -> str | None:
    """Why sc@``k`` cannot sample with ``policy`` (one line for the user), or None when it can."""
    if k <= 1 or hasattr(policy, "temperature"):
        return None
    name = getattr(policy, "name", type(policy).__name__)
    return (f"self-consistency sc@{k} was asked for, but the {name} policy is deterministic and cannot sample: "
            f"the question was asked once (sampling needs the vlm policy)")


def sampling_policy(policy: Any, temperature: float) -> Any:
    """A copy of ``policy`` that samples at ``temperature`` (the original keeps its own setting)."""
    sampled = copy.copy(policy)
    sampled.temperature = temperature
    return sampled


def ask_self_consistent(maestro: Maestro, image: str | Path | bytes | Image.Image, question: str, *, k: int,
                        temperature: float = DEFAULT_TEMPERATURE, concurrency: int = DEFAULT_CONCURRENCY,
                        on_event: EventSink | None = None, **ask_kwargs: Any) -> Run:
    """Ask ``question`` k times through ``maestro`` with a sampling copy of its policy; return the voted run.

    At most ``concurrency`` samples run at once; events from different samples then interleave, each carrying its
    own ``run``. A policy that cannot sample is asked once, with the warning stored on the run (see module doc)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    if temperature <= 0:
        raise ValueError("self-consistency needs a sampling temperature above 0")
    warning = sampling_warning(maestro.policy, k)
    if warning is not None:
        config = {"sc": {"k": k, "sampled": False, "warning": warning}}
        return maestro.ask(image, question, on_event=on_event, run_config=config, **ask_kwargs)
    group = uuid.uuid4().hex
    policy = sampling_policy(maestro.policy, temperature)

    def sample(index: int) -> Run:
        config = {"sc": {"group": group, "index": index, "k": k, "temperature": temperature}}
        return maestro.ask(image, question, on_event=on_event, policy=policy, run_config=config, **ask_kwargs)

    started = time.perf_counter()
    # One budget for the whole call; each thread runs in a copy of this context, so the deadline holds there.
    with budget.run_budget(maestro.registry.orchestrator.run_budget_s), \
            ThreadPoolExecutor(max_workers=max(1, min(concurrency, k)), thread_name_prefix="sc") as pool:
        futures = [pool.submit(contextvars.copy_context().run, sample, i) for i in range(k)]
        runs = [future.result() for future in futures]
    vote = majority_vote(runs, group)
    voted = _voted_run(maestro, runs, vote, question, ask_kwargs.get("expected_kind"))
    voted.latency_ms = (time.perf_counter() - started) * 1000
    return voted


def _voted_run(maestro: Maestro, runs: list[Run], vote: Vote, question: str, expected_kind: str | None) -> VotedRun:
    """The carrier of the vote: the winning sample, settled again with the vote's agreement, and stored so."""
    chosen = runs[vote.winner_index] if vote.winner_index is not None else runs[0]
    fields = {name: getattr(chosen, name) for name in Run.__dataclass_fields__}
    fields["vote"] = vote.as_dict()
    voted = VotedRun(**fields, ballot=vote, samples=runs)
    if vote.winner is not None:
        outcome = settle_for(maestro.registry, vote.answer, chosen.steps,
                             answer_form(question.strip(), expected_kind), vote_agreement=vote.agreement)
        voted.status, voted.answer, voted.reason = outcome.status, outcome.answer, outcome.reason
        voted.confidence, voted.error, voted.trust = outcome.confidence, None, outcome.trust
    if chosen.id:
        maestro.store.finish_run(chosen.id, status=voted.status, answer=voted.answer, latency_ms=chosen.latency_ms,
                                 tokens_in=chosen.tokens_in, tokens_out=chosen.tokens_out, cost=chosen.cost,
                                 error=voted.error, forced_answer=chosen.forced_answer, reason=voted.reason,
                                 confidence=voted.confidence, answer_form=chosen.answer_form, vote=voted.vote,
                                 trust=voted.trust)
    return voted
