"""The default offline orchestrator: infer the skill from the question, call the best expert for it, answer.

It writes real protocol text, so its runs are valid training trajectories for a VLM orchestrator. Only *plausible*
pairs are ever called: a skill whose keywords the question matches (a question that matches none goes to a neural
generalist when one is configured, and is otherwise abstained on — no default skill answers a question it does not
understand). Turn 1 searches with the best pair; the next turn answers from what the tools settled or what the
expert said; when the skill found nothing (no chart, no text, the named object not found) or the call failed, it
tries the next plausible pair once, then abstains saying what each pair was missing.

A question often does not name the kind of image it is about ("Do HR employees have salaries above 18
thousand?"). A skill that recognises the image by its pixels (``agents.policies.image_prior``, e.g. Chart's quick
look for axes) is plausible too: tried first for a multiple-choice question, otherwise after the skills the words
name, as one more try when they named two. When every chosen pair settled nothing, the registry's fallback skill
(``fallback: true``, OCR) gets one more try at an open question (``agents.policies.fallback``).
"""

from __future__ import annotations

from agents.policies.answering import abstain_turn, answer_from_search, misfits_form, needs_expert_hint
from agents.policies.base import Context, PolicyTurn
from agents.policies.fallback import FALLBACK_REASON, fallback_skill
from agents.policies.image_prior import MAX_SEARCHES, Recognised, recognised_skill, search_limit
from agents.protocol import Search, render_turn
from agents.registry import Registry
from agents.routing.decision import RoutingDecision
from agents.routing.skill_inference import SkillGuess, infer_skills
from skills.answer_form import answer_form


class KeywordPolicy:
    name = "keyword"

    def next_turn(self, ctx: Context) -> PolicyTurn:
        searches = ctx.searches
        last = searches[-1] if searches else None
        answered = answer_from_search(last, ctx.registry) if last is not None and last.status == "ok" else None
        if answered is not None and last is not None and not misfits_form(last, ctx.registry, ctx.question):
            return answered
        tried = {(s.model, s.skill) for s in searches}
        untried = [c for c in self.candidates(ctx) if (c[0], c[1]) not in tried]
        recognised = recognised_skill(ctx.registry, ctx.image)
        limit = search_limit(recognised, searches, MAX_SEARCHES)
        if recognised is not None and len(searches) >= MAX_SEARCHES:  # the extra try is the image's own skill's
            untried = [c for c in untried if c[1] == recognised.skill]
        fallback = fallback_skill(ctx.registry, searches, ctx.question)
        if fallback is not None and not any(c[1] == fallback for c in untried) and (
                len(searches) >= limit or not untried):
            # The one extra try is the fallback's, no other pair's.
            untried, limit = self._fallback_pairs(ctx.registry, fallback), len(searches) + 1
        if ctx.force_answer or len(searches) >= limit or not untried:
            if answered is not None:  # no other pair: the answer is given, and refused for its form
                return answered
            hint = needs_expert_hint(ctx.registry)
            if not searches:
                hint = f"the question names nothing the skills recognise; {hint}"
            elif all(FALLBACK_REASON in (s.routing.get("skill_reason") or "") for s in searches):
                return abstain_turn(ctx, hint, lead="the question names nothing the skills recognise")
            return abstain_turn(ctx, hint)
        expert, skill, routing = untried[0]
        think = (f"The question needs the {skill} skill ({routing.skill_reason}); "
                 f"{expert} is the expert for it ({routing.expert_reason}).")
        if last is not None:
            why = last.error if last.status == "error" else (last.missing or "it settled nothing")
            think = f"{last.model}@@{last.skill} did not settle it ({why}). Trying the next plausible pair. " + think
        return PolicyTurn(render_turn(think, Search(expert, skill, ctx.question)), routing=routing)

    def _fallback_pairs(self, registry: Registry, skill: str) -> list[tuple[str, str, RoutingDecision]]:
        """The fallback skill's pair, once every chosen pair settled nothing (``agents.policies.fallback``)."""
        return [(expert, skill, RoutingDecision(policy=self.name, skill_reason=FALLBACK_REASON, expert_reason=why))
                for expert, why in _experts_for(registry, skill)[:1]]

    def candidates(self, ctx: Context) -> list[tuple[str, str, RoutingDecision]]:
        """Plausible (expert, skill, routing reason) pairs in order of preference."""
        registry = ctx.registry
        guesses = infer_skills(ctx.question, [s.spec for s in registry.skills])
        recognised = recognised_skill(registry, ctx.image)
        choice = answer_form(ctx.question).kind == "choice"
        guesses = _recognised_first(guesses, recognised, choice=choice)
        plausible = [g for g in guesses if g.keyword_score > 0][:2]
        if recognised is not None and (choice or not recognised.weak):  # after the words' skills, one more try
            plausible += [g for g in guesses if g.skill == recognised.skill and g not in plausible]
        pairs: list[tuple[str, str, RoutingDecision]] = []
        for guess in plausible:
            for expert, why in _experts_for(registry, guess.skill):
                pairs.append((expert, guess.skill, RoutingDecision(
                    policy=self.name, skill_reason=guess.reason, skill_score=round(guess.score, 3), expert_reason=why)))
        if not plausible and guesses:  # no keyword at all: only a neural generalist may take the question
            general = [e for e in registry.experts if e.backend != "tools" and not e.strengths]
            for generalist in general[:1]:
                pairs.append((generalist.name, guesses[0].skill, RoutingDecision(
                    policy=self.name, skill_reason=f"no skill keyword matched; closest description "
                    f"({guesses[0].reason})", skill_score=round(guesses[0].score, 3),
                    expert_reason="a neural generalist takes questions no skill recognises")))
        return pairs


def _recognised_first(guesses: list[SkillGuess], recognised: Recognised | None, *, choice: bool) -> list[SkillGuess]:
    """``guesses`` with the skill that recognises the image made plausible: moved to the front for a
    multiple-choice question, kept in its place otherwise (``agents.policies.image_prior``)."""
    if recognised is None or (recognised.weak and not choice):
        return guesses
    mine = [SkillGuess(g.skill, g.score, f"{recognised.describe()}; {g.reason}",
                       max(g.keyword_score, recognised.score)) for g in guesses if g.skill == recognised.skill]
    others = [g for g in guesses if g.skill != recognised.skill]
    if choice and not recognised.weak:
        return mine + others
    text_plausible = [g for g in others if g.keyword_score > 0]
    return text_plausible + mine + [g for g in others if g.keyword_score <= 0]


def _experts_for(registry: Registry, skill: str) -> list[tuple[str, str]]:
    """Experts declaring ``skill`` among their strengths first (registry order), then generalists."""
    names = registry.skill_names
    strong = [e for e in registry.experts if any(names.resolve(s) == skill for s in e.strengths)]
    general = [e for e in registry.experts if not e.strengths]
    out = [(e.name, f"lists {skill} among its strengths") for e in strong]
    out += [(e.name, "a generalist (no declared strengths)") for e in general]
    return out[:2]
