"""The default offline orchestrator: infer the skill from the question, call the best expert for it, answer.

It writes real protocol text, so its runs are valid training trajectories for a VLM orchestrator. Turn 1 searches
with the inferred (expert, skill) pair; the next turn answers from what the tools settled or what the expert said.
If a call failed, it tries the next candidate pair once before answering honestly that it could not tell.

A multiple-choice question often does not name the kind of image it is about ("Do HR employees have salaries
above 18 thousand?"), and its options' words say little about it. For those, a skill that can recognise its kind of
image (a ``skill.py`` with ``image_prior(image) -> (score, reason)``, e.g. Chart's quick look for axes) is tried
first when it recognises the image with a score of at least ``IMAGE_PRIOR_MIN``.
A settled answer that does not have the form the question asks (a letter for a multiple-choice question) is never
given: the run says it could not determine the answer, and why.
"""

from __future__ import annotations

import re
from typing import Any

from agents.policies.base import Context, PolicyTurn
from agents.protocol import Answer, Search, render_turn
from agents.skill_inference import SkillGuess, infer_skills
from skills.answer_form import answer_form, conform

_ANSWER_LINE = re.compile(r"^(?:final\s+)?answer\s*[:：]\s*(.+)$", re.IGNORECASE)
#: Smallest ``image_prior`` score that puts a skill first for a multiple-choice question.
IMAGE_PRIOR_MIN = 0.7
NO_ANSWER = "I could not determine the answer."


class KeywordPolicy:
    name = "keyword"

    def next_turn(self, ctx: Context) -> PolicyTurn:
        candidates = self.candidates(ctx)
        searches = ctx.searches
        last = searches[-1] if searches else None
        if last is not None and last.status == "ok":
            return answer_from_search(last, ctx.registry, ctx.question)
        if ctx.force_answer or len(searches) >= min(2, len(candidates)):
            reason = last.error if last is not None else "no skill and expert could be called"
            return PolicyTurn(render_turn(f"I could not get evidence: {reason}",
                                          Answer(NO_ANSWER)))
        expert, skill, routing = candidates[len(searches)]
        think = (f"The question needs the {skill} skill ({routing['skill_reason']}); "
                 f"{expert} is the expert for it ({routing['expert_reason']}).")
        if last is not None:
            think = f"The previous call failed ({last.error}). Trying another pair. " + think
        return PolicyTurn(render_turn(think, Search(expert, skill, ctx.question)), routing=routing)

    def candidates(self, ctx: Context) -> list[tuple[str, str, dict[str, Any]]]:
        """(expert, skill, routing reason) pairs in order of preference."""
        registry = ctx.registry
        guesses = infer_skills(ctx.question, [s.spec for s in registry.skills])
        if answer_form(ctx.question).kind == "choice":
            guesses = _recognised_first(guesses, registry, ctx.image)
        pairs: list[tuple[str, str, dict[str, Any]]] = []
        for guess in guesses[:2]:
            for expert, why in _experts_for(registry, guess.skill):
                pairs.append((expert, guess.skill, {"policy": self.name, "skill_reason": guess.reason,
                                                    "skill_score": round(guess.score, 3), "expert_reason": why}))
        return pairs


def _recognised_first(guesses: list[SkillGuess], registry: Any, image: Any) -> list[SkillGuess]:
    """``guesses`` with the skill that best recognises ``image`` (``image_prior``) moved to the front, when one
    does with a score of at least ``IMAGE_PRIOR_MIN``."""
    best: tuple[float, str, str] | None = None
    for loaded in registry.skills:
        prior = getattr(loaded.module, "image_prior", None)
        if not callable(prior):
            continue
        score, why = prior(image)
        if score >= IMAGE_PRIOR_MIN and (best is None or score > best[0]):
            best = (score, loaded.spec.name, why)
    if best is None:
        return guesses
    score, name, why = best
    front = [SkillGuess(g.skill, g.score, f"the image looks like its kind ({why}); {g.reason}")
             for g in guesses if g.skill == name]
    return front + [g for g in guesses if g.skill != name]


def _experts_for(registry: Any, skill: str) -> list[tuple[str, str]]:
    """Experts declaring ``skill`` among their strengths first (registry order), then generalists."""
    names = registry.skill_names
    strong = [e for e in registry.experts if any(names.resolve(s) == skill for s in e.strengths)]
    general = [e for e in registry.experts if not e.strengths]
    out = [(e.name, f"lists {skill} among its strengths") for e in strong]
    out += [(e.name, "a generalist (no declared strengths)") for e in general]
    return out[:2]


def answer_from_search(step: Any, registry: Any, question: str | None = None) -> PolicyTurn:
    """The answer turn after a successful search: what the tools settled, the neural expert's final answer, or an
    honest "could not determine" (shared by every policy that searches once and answers). With ``question``, a
    settled answer that does not have the form it asks for is not given."""
    if step.settled_answer is not None:
        settled = step.settled_answer
        if question is not None:
            form = answer_form(question)
            fitted = conform(form, settled)
            if fitted is None:
                think = (f"The {step.skill} tools gave '{settled[:80]}', which is not {form.description}; "
                         "it cannot be the answer.")
                return PolicyTurn(render_turn(think, Answer(NO_ANSWER)))
            settled = fitted
        think = f"The {step.skill} tools settled it: {settled}."
        return PolicyTurn(render_turn(think, Answer(settled)))
    text = (step.observation or "").strip()
    if registry.expert_spec(step.model).backend != "tools" and text:
        return PolicyTurn(render_turn(f"{step.model} answered through the {step.skill} skill.",
                                      Answer(extract_final_answer(text))))
    return PolicyTurn(render_turn(f"The {step.skill} skill could not settle it: {text[:300]}",
                                  Answer(NO_ANSWER)))


def extract_final_answer(text: str) -> str:
    """An expert's final answer: an explicit ``Answer: X`` line if there is one, else its last non-empty line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        match = _ANSWER_LINE.match(line)
        if match:
            return match.group(1).strip()
    return lines[-1] if lines else text
