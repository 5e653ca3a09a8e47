"""The default offline orchestrator: infer the skill from the question, call the best expert for it, answer.

It writes real protocol text, so its runs are valid training trajectories for a VLM orchestrator. Turn 1 searches
with the inferred (expert, skill) pair; the next turn answers from what the tools settled or what the expert said.
If a call failed, it tries the next candidate pair once before answering honestly that it could not tell.
"""

from __future__ import annotations

import re
from typing import Any

from agents.policies.base import Context, PolicyTurn
from agents.protocol import Answer, Search, render_turn
from agents.skill_inference import infer_skills

_ANSWER_LINE = re.compile(r"^(?:final\s+)?answer\s*[:：]\s*(.+)$", re.IGNORECASE)


class KeywordPolicy:
    name = "keyword"

    def next_turn(self, ctx: Context) -> PolicyTurn:
        candidates = self.candidates(ctx)
        searches = ctx.searches
        last = searches[-1] if searches else None
        if last is not None and last.status == "ok":
            return answer_from_search(last, ctx.registry)
        if ctx.force_answer or len(searches) >= min(2, len(candidates)):
            reason = last.error if last is not None else "no skill and expert could be called"
            return PolicyTurn(render_turn(f"I could not get evidence: {reason}",
                                          Answer("I could not determine the answer.")))
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
        pairs: list[tuple[str, str, dict[str, Any]]] = []
        for guess in guesses[:2]:
            for expert, why in _experts_for(registry, guess.skill):
                pairs.append((expert, guess.skill, {"policy": self.name, "skill_reason": guess.reason,
                                                    "skill_score": round(guess.score, 3), "expert_reason": why}))
        return pairs


def _experts_for(registry: Any, skill: str) -> list[tuple[str, str]]:
    """Experts declaring ``skill`` among their strengths first (registry order), then generalists."""
    names = registry.skill_names
    strong = [e for e in registry.experts if any(names.resolve(s) == skill for s in e.strengths)]
    general = [e for e in registry.experts if not e.strengths]
    out = [(e.name, f"lists {skill} among its strengths") for e in strong]
    out += [(e.name, "a generalist (no declared strengths)") for e in general]
    return out[:2]


def answer_from_search(step: Any, registry: Any) -> PolicyTurn:
    """The answer turn after a successful search: what the tools settled, the neural expert's final answer, or an
    honest "could not determine" (shared by every policy that searches once and answers)."""
    if step.settled_answer is not None:
        think = f"The {step.skill} tools settled it: {step.settled_answer}."
        return PolicyTurn(render_turn(think, Answer(step.settled_answer)))
    text = (step.observation or "").strip()
    if registry.expert_spec(step.model).backend != "tools" and text:
        return PolicyTurn(render_turn(f"{step.model} answered through the {step.skill} skill.",
                                      Answer(extract_final_answer(text))))
    return PolicyTurn(render_turn(f"The {step.skill} skill could not settle it: {text[:300]}",
                                  Answer("I could not determine the answer.")))


def extract_final_answer(text: str) -> str:
    """An expert's final answer: an explicit ``Answer: X`` line if there is one, else its last non-empty line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        match = _ANSWER_LINE.match(line)
        if match:
            return match.group(1).strip()
    return lines[-1] if lines else text
