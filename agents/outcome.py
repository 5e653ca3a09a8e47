"""How a run ends: the final answer checked against the form the question asks and against its evidence.

A run is ``done`` only with an answer that fits the form (``skills.answer_form``) and whose confidence reaches the
registry's ``orchestrator.min_confidence``. Otherwise it is ``abstained`` with a reason that names what is missing,
or ``failed`` when no expert or tool could produce any evidence at all (every call errored). A policy abstains by
answering ``I cannot answer: <what is missing>`` — ordinary protocol text, so abstentions are training data too.

Confidence comes from the evidence: the confidence of the tools' settled answer that agrees with the final answer
(OCR scores, tool agreement, parse consistency), the self-consistency vote when there is one, or the registry's
``expert_confidence`` for a neural expert's reply that no tool verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agents.types import RunStatus, Step
from skills.answer_form import AnswerForm, conform, is_non_answer

ABSTAIN_PREFIX = "I cannot answer: "
_ABSTAINED = re.compile(r"^\s*i (?:cannot|can't|could not) (?:answer|determine)[^:]*:\s*(.+)$", re.I | re.S)


def abstention(reason: str) -> str:
    """The answer text a policy writes to abstain, naming what is missing."""
    return ABSTAIN_PREFIX + " ".join(reason.split())


def abstention_reason(answer: str | None) -> str | None:
    """What an abstaining answer says is missing (None when it does not say)."""
    match = _ABSTAINED.match(answer or "")
    return match.group(1).strip() if match else None


@dataclass(frozen=True)
class Outcome:
    status: RunStatus
    answer: str | None
    reason: str | None
    confidence: float | None


def settle(answer: str | None, steps: Sequence[Step], form: AnswerForm, *, min_confidence: float,
           expert_confidence: float, neural_models: frozenset[str] = frozenset(),
           vote_agreement: float | None = None) -> Outcome:
    """The outcome of a run whose policy answered ``answer`` after ``steps``."""
    searches = [s for s in steps if s.kind == "search"]
    if is_non_answer(answer):
        if searches and all(s.status == "error" for s in searches):
            errors = "; ".join(f"{s.model}@@{s.skill}: {s.error}" for s in searches)
            return Outcome("failed", None, f"no expert or tool could produce evidence ({errors})", None)
        return Outcome("abstained", None, _missing(answer, searches), None)
    fitted = conform(form, answer)
    if fitted is None:
        return Outcome("abstained", None, f"the answer found ({_short(answer)}) is not {form.description}, the form "
                                          "the question asks for", None)
    confidence, source = _confidence(fitted, searches, form, expert_confidence, neural_models)
    if vote_agreement is not None:
        confidence = vote_agreement if confidence is None else min(confidence, vote_agreement)
    if confidence is not None and confidence < min_confidence:
        hint = _missing(None, searches, default="")
        reason = (f"the evidence is too weak to answer ({source}: confidence {confidence:.2f}, below the "
                  f"threshold {min_confidence:.2f})" + (f"; {hint}" if hint else ""))
        return Outcome("abstained", None, reason, round(confidence, 4))
    return Outcome("done", fitted, None, None if confidence is None else round(confidence, 4))


def _confidence(fitted: str, searches: list[Step], form: AnswerForm, expert_confidence: float,
                neural_models: frozenset[str]) -> tuple[float | None, str]:
    """The confidence of ``fitted`` and where it came from."""
    settled = [s for s in searches if s.settled_answer is not None]
    agreeing = [s for s in settled if _same(conform(form, s.settled_answer), fitted)]
    scored = [s.confidence for s in agreeing if s.confidence is not None]
    if scored:
        return max(scored), "the tools"
    if agreeing:
        return None, "the tools (no score given)"
    source = ("an expert's reply" if any(s.model in neural_models for s in searches)
              else "the orchestrator's own reading")
    # Only a tool reading in a closed form (a letter, yes/no, a count, a pair, a number) can contradict the answer:
    # free text has many right spellings ("seven" and "7"), and "seven" is no count to contradict 7.
    closed = form.kind in ("choice", "yesno", "count", "grid", "number")
    against = [s.confidence for s in settled
               if closed and s.confidence is not None and conform(form, s.settled_answer)]
    if against:  # the tools read something else: the surer they are, the less the reply can be trusted
        return expert_confidence * (1.0 - max(against)), f"{source}, contradicted by the tools"
    return expert_confidence, f"{source}, unverified by the tools"


def _same(a: str | None, b: str | None) -> bool:
    """Two answers agree when they are equal up to case, spacing and punctuation."""
    def plain(text: str | None) -> str:
        return " ".join(re.sub(r"[^\w%]+", " ", (text or "").casefold()).split())
    return a is not None and b is not None and plain(a) == plain(b)


def _missing(answer: str | None, searches: list[Step], default: str = "no skill could settle the question") -> str:
    said = abstention_reason(answer)
    if said:
        return said
    parts = [f"{s.skill}: {s.missing or s.error}" for s in searches if (s.missing or s.error)]
    return "; ".join(dict.fromkeys(parts)) or default


def _short(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= 80 else flat[:77] + "…")
