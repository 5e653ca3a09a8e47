"""What every search-then-answer policy shares: the answer turn after a search, and the honest abstention.

After a successful search the policy answers with what the skill's tools settled, or with a neural expert's final
answer; when the skill settled nothing it tries the next plausible pair or abstains, saying what is missing (the
``missing`` of each skill it tried). ``agents.outcome`` then checks the answer against the question's form and its
evidence, so a policy never has to be trusted to do that itself.
"""

from __future__ import annotations

import re

from agents.outcome import abstention
from agents.policies.base import Context, PolicyTurn
from agents.protocol import Answer, render_turn
from agents.registry import Registry
from skills.answer_form import answer_form, conform
from storage.trace import Step

_NOT_ITS_KIND = re.compile(r"^no \w+(?: with [\w ]+)? (?:was|were) found in the image", re.IGNORECASE)
_ANSWER_LINE = re.compile(r"^(?:final\s+)?answer\s*[:：]\s*(.+)$", re.IGNORECASE)


def answer_from_search(step: Step, registry: Registry) -> PolicyTurn | None:
    """The answer turn after a successful search: a neural expert's final answer (``agents.outcome`` checks it
    against the tools' own reading), or what the tools settled; None when the search settled nothing (the caller
    tries another pair or abstains)."""
    text = (step.observation or "").strip()
    if step.model and registry.expert_spec(step.model).backend != "tools" and text:
        return PolicyTurn(render_turn(f"{step.model} answered through the {step.skill} skill.",
                                      Answer(extract_final_answer(text))))
    if step.settled_answer is not None:
        think = f"The {step.skill} tools settled it: {step.settled_answer}."
        return PolicyTurn(render_turn(think, Answer(step.settled_answer)))
    return None


def misfits_form(step: Step, registry: Registry, question: str) -> bool:
    """Whether the tools settled an answer that is not in the form ``question`` asks (the whole transcription for
    a multiple-choice question): another pair may still settle it, so it is tried before this answer is given
    (and then refused by ``agents.outcome``)."""
    if step.settled_answer is None or (step.model and registry.expert_spec(step.model).backend != "tools"):
        return False
    return conform(answer_form(question), step.settled_answer) is None


def abstain_turn(ctx: Context, extra: str | None = None, lead: str | None = None) -> PolicyTurn:
    """The final turn of a run that cannot answer: what each tried pair was missing, or ``extra``; ``lead`` says
    first what the question was to the policy ("the question names nothing the skills recognise")."""
    said = [s for s in ctx.searches if s.missing or s.error]
    # A skill that found nothing of its kind in the image ("no chart ... was found") speaks after one that looked
    # at what the question is about: its reason says least about this question.
    said.sort(key=lambda s: bool(_NOT_ITS_KIND.search(s.missing or "")))
    missing = [f"{s.skill}: {s.missing or s.error}" for s in said]
    reason = "; ".join(dict.fromkeys(missing)) or extra or "no skill could settle the question"
    if extra and missing and not any("expert" in m for m in missing):
        reason = f"{reason}; {extra}"
    if lead:
        reason = f"{lead}; {reason}"
    return PolicyTurn(render_turn(f"No evidence settles the question ({reason}).", Answer(abstention(reason))))


def extract_final_answer(text: str) -> str:
    """An expert's final answer: an explicit ``Answer: X`` line if there is one, else its last non-empty line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        match = _ANSWER_LINE.match(line)
        if match:
            return match.group(1).strip()
    return lines[-1] if lines else text


def needs_expert_hint(registry: Registry) -> str:
    """The advice for a question the tools cannot settle: configure a neural expert (none is configured)."""
    if any(e.backend != "tools" for e in registry.experts):
        return "no configured expert could settle it"
    return "the offline tools cannot settle this question: configure a VLM expert (see docs/experts.md)"
