"""How a run ends: the final answer checked against the form the question asks and against its evidence.

A run is ``done`` only with an answer that fits the form (``skills.answer_form``), is not contradicted by what the
tools read on the image (``agents.trust.evidence``: whatever produced it, a tool, a neural expert or a VLM
orchestrator), and whose calibrated P(correct) for its kind of evidence reaches that kind's threshold for the
registry's ``orchestrator.target_precision`` (``agents.trust.calibration``; docs/design.md §9). Otherwise it is
``abstained`` with a reason that names what is missing ("too few rated examples of this kind…" where the labelled
data cannot yet support the bound), or ``failed`` when no expert or tool could produce any evidence at all (every
call errored: the orchestrator's own words are no evidence). A policy abstains by answering ``I cannot answer:
<what is missing>`` — ordinary protocol text, so abstentions are training data too.

Without a calibration (a bare registry) the tools' raw score is compared with the deprecated
``orchestrator.min_confidence``, and an expert's unchecked reply gets ``expert_confidence``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agents.trust.evidence import Evidence, gather
from skills.answer_form import AnswerForm, conform, is_non_answer
from storage.trace import RunStatus, Step

if TYPE_CHECKING:
    from agents.registry import Registry
    from agents.trust.calibration import Calibration

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
    #: The candidate answer, its evidence and the calibration's decision (stored with the run, so a replay can
    #: explain the confidence, and an evaluation can label the candidate even when it was withheld).
    trust: dict[str, Any] = field(default_factory=dict)


def settle_for(registry: Registry, answer: str | None, steps: Sequence[Step], form: AnswerForm,
               vote_agreement: float | None = None) -> Outcome:
    """``settle`` with the registry's knobs and calibration (the loop's and the vote's one way to end a run)."""
    spec = registry.orchestrator
    neural = frozenset(e.name for e in registry.experts if e.backend != "tools")
    return settle(answer, steps, form, min_confidence=spec.min_confidence, expert_confidence=spec.expert_confidence,
                  neural_models=neural, vote_agreement=vote_agreement, calibration=registry.calibration,
                  target_precision=spec.target_precision)


def settle(answer: str | None, steps: Sequence[Step], form: AnswerForm, *, min_confidence: float = 0.5,
           expert_confidence: float = 0.6, neural_models: frozenset[str] = frozenset(),
           vote_agreement: float | None = None, calibration: Calibration | None = None,
           target_precision: float = 0.95) -> Outcome:
    """The outcome of a run whose policy answered ``answer`` after ``steps``.

    With a ``calibration`` the confidence is its P(correct) for the answer's kind of evidence and the run answers
    only above that kind's threshold for ``target_precision``; without one (a bare registry in tests, an old
    setup) the tools' raw score is compared with the deprecated ``min_confidence``. Either way the answer is first
    checked against what the tools read: contradicted answers never end ``done``, and words no tool could check
    (the orchestrator's own, an expert's) only once ratings of that source support them. Without a calibration
    (deprecated) such words get ``expert_confidence``."""
    searches = [s for s in steps if s.kind == "search"]
    failed = bool(searches) and all(s.status == "error" for s in searches)
    if is_non_answer(answer):
        if failed:
            return Outcome("failed", None, f"no expert or tool could produce evidence ({_errors(searches)})", None)
        return Outcome("abstained", None, _missing(answer, searches), None)
    fitted = conform(form, answer)
    if fitted is None:
        if form.kind == "choice":  # a reading or a value that matches no option: say so in the question's terms
            return Outcome("abstained", None, f"what the tools found ({_short(answer)}) is not {form.description}: "
                                              "it does not settle which option is meant", None)
        return Outcome("abstained", None, f"the answer found ({_short(answer)}) is not {form.description}, the form "
                                          "the question asks for", None)
    evidence = gather(fitted, searches, form, neural_models=neural_models, vote=vote_agreement)
    trust: dict[str, Any] = {"candidate": fitted, "evidence": evidence.to_dict(), "target": target_precision,
                             "calibration": calibration.version if calibration else None}
    if failed:  # every call failed: nothing but the orchestrator's own words is left
        return Outcome("failed", None, f"no expert or tool could produce evidence ({_errors(searches)}); the "
                                       f"orchestrator's own answer {_short(fitted)} is not evidence", None, trust)
    if evidence.check == "contradicted":
        return Outcome("abstained", None, f"the answer {_short(fitted)} contradicts what the tools read on the "
                                          f"image ({_short(evidence.against)})", None, trust)
    if calibration is not None:  # unchecked words answer only once their source has enough rated answers
        return _calibrated(fitted, evidence, calibration, target_precision, searches, trust)
    return _legacy(fitted, evidence, min_confidence, expert_confidence, searches, trust)


def _calibrated(fitted: str, evidence: Evidence, calibration: Calibration, target: float, searches: list[Step],
                trust: dict[str, Any]) -> Outcome:
    decision = calibration.decide(evidence, target)
    p = decision.probability
    if p is not None and evidence.vote is not None:
        p = round(min(p, evidence.vote), 4)  # 2 of 5 samples agreeing is weak whatever the evidence kind says
    trust["decision"] = {**decision.to_dict(), "probability": p}
    if decision.answer and p is not None and decision.threshold is not None and p >= decision.threshold:
        return Outcome("done", fitted, None, p, trust)
    kind, goal = describe(evidence), f"{target:.0%}".replace("%", " %")
    if decision.why == "too_few":
        reason = f"too few rated examples of this kind ({kind}) to answer at {goal} precision"
    elif decision.why == "unsupported":
        group = calibration.groups[decision.kind or ""]
        reason = (f"the tools flagged {evidence.warnings} problem(s) in this reading, more than in any of the "
                  f"{group.n} labelled examples of this kind ({kind}), so its record does not vouch for it")
    elif decision.why == "worse":
        group = calibration.groups[decision.kind or ""]
        reason = (f"answers of this kind ({kind}) were right in {group.correct} of {group.n} rated examples, too "
                  f"few to answer at {goal} precision")
    else:
        reason = (f"the evidence is too weak to answer at {goal} precision ({kind}: P(correct) {p:.2f}, "
                  f"needs {decision.threshold:.2f})")
    hint = _missing(None, searches, default="")
    return Outcome("abstained", None, reason + (f"; {hint}" if hint else ""), p, trust)


def _legacy(fitted: str, evidence: Evidence, min_confidence: float, expert_confidence: float,
            searches: list[Step], trust: dict[str, Any]) -> Outcome:
    """No calibration (a bare registry; ``Maestro.open`` always has the shipped one): the raw evidence score
    against ``min_confidence``, ``expert_confidence`` for words no tool checked (deprecated)."""
    if evidence.source == "tools":
        confidence, source = evidence.score, "the tools"
    elif evidence.check == "verified":
        confidence, source = max(expert_confidence, evidence.score or 0.0, evidence.ocr or 0.0), "a checked reply"
    else:
        confidence, source = expert_confidence, "a reply unverified by the tools"
    if evidence.vote is not None:
        confidence = evidence.vote if confidence is None else min(confidence, evidence.vote)
    if confidence is not None and confidence < min_confidence:
        hint = _missing(None, searches, default="")
        reason = (f"the evidence is too weak to answer ({source}: confidence {confidence:.2f}, below the "
                  f"threshold {min_confidence:.2f})" + (f"; {hint}" if hint else ""))
        return Outcome("abstained", None, reason, round(confidence, 4), trust)
    return Outcome("done", fitted, None, None if confidence is None else round(confidence, 4), trust)


def describe(evidence: Evidence) -> str:
    """An evidence kind in a user's words."""
    what = FORM_WORDS.get(evidence.form, "an answer")
    lone = " that nothing else printed on the image confirms" if evidence.unchecked else ""
    if evidence.rule is not None:
        lone = f" by the rule for {evidence.rule}, which has no labelled record of its own yet"
    if evidence.source == "tools":
        return f"{what} read by the {evidence.skill or 'vision'} tools{lone}"
    who = "the orchestrator's own reading" if evidence.source == "orchestrator" else \
        f"the reply of {evidence.source.split(':', 1)[1]}"
    checked = {"verified": f"checked against the text read on the image{lone}",
               "unverifiable": "that no tool could check"}.get(evidence.check, "")
    return f"{what} from {who} {checked}".strip()


FORM_WORDS = {"choice": "an option letter", "yesno": "a Yes/No answer", "count": "a count", "grid": "a grid size",
              "number": "a number", "text": "text as printed", "free": "a free-text answer"}


def _errors(searches: list[Step]) -> str:
    return "; ".join(f"{s.model}@@{s.skill}: {s.error}" for s in searches if s.error)


def _missing(answer: str | None, searches: list[Step], default: str = "no skill could settle the question") -> str:
    said = abstention_reason(answer)
    if said:
        return said
    parts = [f"{s.skill}: {s.missing or s.error}" for s in searches if (s.missing or s.error)]
    return "; ".join(dict.fromkeys(parts)) or default


def _short(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= 80 else flat[:77] + "…")
