"""The learning router (docs/design.md §4): skill from the question and from past verdicts, expert from the handbook.

Relevance: cosine similarity of the question's sentence embedding to each skill's description, its Level-2
descriptions and past questions that a run with that skill answered correctly, plus the keyword score of
``agents.routing.skill_inference`` (keywords alone when the embedding model is unavailable). Only plausible skills are
called (a keyword matches, or a question answered right with the skill before is very close), the two most relevant
at most, as the keyword policy does.

Learning, from failures as well as successes (``agents.routing.evidence``): each plausible skill's success on this
question is estimated from the verdicts of past runs that used it, weighted by how similar their question is,
shrunk towards the skill's record elsewhere and that towards every verdict. The most relevant skill keeps a margin
(``RELEVANCE_MARGIN``): another plausible skill is tried first only once verdicts on questions like this one say
the first does clearly worse (with nothing else known, three failures and no success do it; one or two do not); a
skill's record on other kinds of question never overrides relevance by itself. Expert: for the chosen skill and the Level-2 its question selects, each expert's Beta(α, β) posterior: its
verdicts with the skill (the Level-2 row's own verdicts shrunk towards the skill's other rows) on top of a prior
drawn from the expert's record on other skills and the skill's record with other experts; declared strengths add
one pseudo-success (Atlas's prior); minus λ·normalised measured cost. While any candidate has fewer than
``min_evidence`` verdicts the value is a Thompson sample, so thin pairs still get tried; afterwards the posterior
mean. Every decision's inputs are recorded in ``PolicyTurn.routing``. Turns are ordinary protocol text, so the runs
are training data.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.policies.answering import abstain_turn, answer_from_search, misfits_form, needs_expert_hint
from agents.policies.base import Context, PolicyTurn
from agents.policies.fallback import FALLBACK_REASON, fallback_skill
from agents.policies.image_prior import MAX_SEARCHES, Recognised, recognised_skill, search_limit
from agents.protocol import Search, render_turn
from agents.replay.tool_cache import save_call_outputs
from agents.routing import embeddings
from agents.routing.decision import RoutingDecision
from agents.routing.evidence import (
    EXPERT_PRIOR_STRENGTH,
    PastVerdict,
    SkillEstimate,
    expert_prior,
    skill_estimates,
)
from agents.routing.handbook import load_handbook, pool
from agents.routing.shipped_vectors import description_texts
from agents.routing.skill_inference import infer_skills
from skills.answer_form import answer_form
from skills.base import ToolTrace
from skills.runner import choose_level2
from storage import handbook as tables
from storage.handbook import HandbookRecord

if TYPE_CHECKING:
    from agents.registry import Registry
    from storage import Store

#: How much one point of ``infer_skills`` score (keyword hits + description overlap, capped at 3) adds to a
#: cosine similarity.
KEYWORD_WEIGHT = 0.15
#: Past verdicts read per decision (newest first).
PAST_OUTCOMES = 2000
#: Similarity to a past, correctly answered question that makes a skill plausible without any keyword.
PAST_SIMILARITY_MIN = 0.8
#: Plausible skills considered per question (the keyword policy's first choice and fallback).
MAX_SKILLS = 2
#: The most relevant skill's head start over the others' learned success, and the similarity-weighted verdicts
#: on questions like this one it needs before anything can override it (see module doc).
RELEVANCE_MARGIN = 0.2
MIN_LOCAL_EVIDENCE = 2.0
#: How similar a past question must be to count as evidence about this one: weight 0 at or below the first value,
#: 1 (the same question) from the second; cosine of embeddings, or word overlap (Jaccard) without them.
SIMILAR_COSINE = (0.6, 0.9)
SIMILAR_WORDS = (0.3, 0.8)


class RouterPolicy:
    name = "router"

    def __init__(self, registry: Registry, store: Store | None = None, *, cost_weight: float | None = None, explore: bool = True,
                 min_evidence: int = 3, seed: int | None = None, use_embeddings: bool = True) -> None:
        self.registry = registry
        self.store = store
        self.cost_weight = float(registry.orchestrator.cost_weight if cost_weight is None else cost_weight)
        self.explore = explore
        self.min_evidence = max(0, int(min_evidence))
        self.use_embeddings = use_embeddings
        self.seed = seed or 0

    # -- the turn ------------------------------------------------------------------------------------------------
    def next_turn(self, ctx: Context) -> PolicyTurn:
        searches = ctx.searches
        last = searches[-1] if searches else None
        answered = answer_from_search(last, ctx.registry) if last is not None and last.status == "ok" else None
        if answered is not None and last is not None and not misfits_form(last, ctx.registry, ctx.question):
            return answered
        tried = {(s.model, s.skill) for s in searches}
        recognised = None if ctx.force_answer else self._recognised(ctx)
        # The try beyond the usual two is the image's own skill's, no other pair's.
        only = recognised.skill if recognised is not None and len(searches) >= MAX_SEARCHES else None
        decision = None if ctx.force_answer or len(searches) >= search_limit(recognised, searches) else self.decide(
            ctx.question, exclude=tried, recognised=recognised, only=only)
        fallback = None if ctx.force_answer else fallback_skill(ctx.registry, searches, ctx.question)
        if decision is None and fallback is not None:
            decision = self.decide(ctx.question, exclude=tried, only=fallback)
            if decision is not None:
                decision.skill_reason = f"{FALLBACK_REASON}; {decision.skill_reason}"
        if decision is None:
            if answered is not None:
                return answered
            # Only the fallback looked: the question and the image named no skill, which the reason says first.
            only_fallback = bool(searches) and all(FALLBACK_REASON in (s.routing.get("skill_reason") or "")
                                                   for s in searches)
            return abstain_turn(ctx, needs_expert_hint(ctx.registry),
                                lead="the question names nothing the skills recognise" if only_fallback else None)
        expert, skill = decision.expert or "", decision.skill or ""
        think = (f"The question needs the {skill} skill ({decision.skill_reason}); "
                 f"{expert} is the expert for it ({decision.expert_reason}).")
        if last is not None:
            why = last.error if last.status == "error" else (last.missing or "it settled nothing")
            think = f"{last.model}@@{last.skill} did not settle it ({why}). Trying another pair. " + think
        return PolicyTurn(render_turn(think, Search(expert, skill, ctx.question)), routing=decision)

    def _recognised(self, ctx: Context) -> Recognised | None:
        """The skill that recognises the image; the looks' outputs are kept for reruns (``--tools cached``)."""
        trace = ToolTrace()
        recognised = recognised_skill(ctx.registry, ctx.image, trace)
        if self.store is not None:
            save_call_outputs(self.store, trace.calls)
        return recognised

    # -- decisions -----------------------------------------------------------------------------------------------
    def decide(self, question: str, *, exclude: set[tuple[str | None, str | None]] | None = None,
               recognised: Recognised | None = None, only: str | None = None) -> RoutingDecision | None:
        """The (expert, skill) to call for ``question`` and why, skipping pairs in ``exclude``; None if none left.
        ``recognised`` (the skill that recognises the image, ``agents.policies.image_prior``) is plausible too:
        first for a multiple-choice question, after the skills the words name otherwise. ``only``: consider that
        skill alone (the extra try ``search_limit`` gives the image's own skill)."""
        exclude = exclude or set()
        ranked, skill_scores, method, outcomes, weights = self._relevance(question)
        reasons = dict(ranked)
        plausible = [s for s, _ in ranked if _plausible(skill_scores.get(s))][:MAX_SKILLS]
        choice = answer_form(question).kind == "choice"
        if recognised is not None and recognised.weak:  # a last resort, for a multiple-choice question only
            if choice and recognised.skill in reasons and recognised.skill not in plausible:
                reasons[recognised.skill] = f"{recognised.describe()}; {reasons[recognised.skill]}"
                plausible.append(recognised.skill)
        elif recognised is not None and recognised.skill in reasons:
            reasons[recognised.skill] = f"{recognised.describe()}; {reasons[recognised.skill]}"
            if choice:
                plausible = [recognised.skill] + [s for s in plausible if s != recognised.skill][:MAX_SKILLS - 1]
            elif recognised.skill not in plausible and len(plausible) < MAX_SKILLS:
                plausible.append(recognised.skill)
        if only is not None:
            # The extra try after two skills the words named ("How many books were read in Feb?": Counting, and
            # OCR by "read"): the image's own skill, which takes no part in ordering the first two.
            plausible = [only] if only in reasons else []
        estimates = skill_estimates(outcomes, weights, plausible)
        order = _learned_order(plausible, estimates)
        handbook = load_handbook(self.store) if self.store is not None else {}
        for skill in order:
            options = self.rank_experts(question, skill, handbook, outcomes)
            options["candidates"] = [c for c in options["candidates"] if (c["expert"], skill) not in exclude]
            if not options["candidates"]:
                continue
            best = max(options["candidates"], key=lambda c: c["score"])
            why = (f"{'exploring: sampled ' if options['explore'] else 'posterior mean '}"
                   f"{best['value']:.2f} − λ {self.cost_weight:g} × cost {best['cost_norm']:.2f} = {best['score']:.2f}"
                   f" from Beta({best['alpha']:.1f}, {best['beta']:.1f}) over {best['evidence']:.0f} verdicts")
            learned = estimates[skill]
            reason = reasons[skill] + (f"; learned success {learned.value:.2f} from {learned.local_n:.1f} "
                                       f"verdicts on questions like this" if learned.local_n >= 0.5 else "")
            if skill != plausible[0]:
                first = estimates[plausible[0]]
                reason += (f"; preferred to {plausible[0]} (learned success {first.value:.2f} from "
                           f"{first.local_n:.1f} verdicts on questions like this, less than this one's by more than "
                           f"the relevance margin {RELEVANCE_MARGIN:g})" if order[0] == skill
                           else f"; {plausible[0]} was tried")
            return RoutingDecision(
                policy=self.name, skill=skill, level2=options["level2"], expert=best["expert"], skill_method=method,
                skill_reason=reason, skill_scores=skill_scores,
                skill_evidence={s: estimates[s].as_dict() for s in plausible}, relevance_margin=RELEVANCE_MARGIN,
                expert_reason=why, cost_weight=self.cost_weight, explore=options["explore"],
                candidates=options["candidates"])
        return None

    def infer_skill(self, question: str) -> tuple[list[tuple[str, str]], dict[str, dict[str, float]], str]:
        """Skills ranked by relevance for ``question`` with a one-line reason each, the per-skill scores, and the
        method used."""
        ranked, scores, method, _, _ = self._relevance(question)
        return ranked, scores, method

    def _relevance(self, question: str) -> tuple[list[tuple[str, str]], dict[str, dict[str, float]], str,
                                                 list[PastVerdict], list[float]]:
        """``infer_skill``'s answer, plus the past verdicts and how similar each one's question is to this one."""
        specs = [s.spec for s in self.registry.skills]
        guesses = {g.skill: g for g in infer_skills(question, specs)}
        keyword = {name: min(3.0, g.score) for name, g in guesses.items()}
        outcomes = self._outcomes()
        scores: dict[str, dict[str, float]] = {}
        method = "embeddings+keywords"
        try:
            if not self.use_embeddings:
                raise embeddings.EmbeddingsUnavailable("embeddings switched off for this router")
            similarity, cosines = self._similarities(question, specs, outcomes)
            weights = [_ramp(c, *SIMILAR_COSINE) for c in cosines]
        except embeddings.EmbeddingsUnavailable as exc:
            method = f"keywords only (embeddings unavailable: {exc})"
            similarity = {}
            weights = [_ramp(_word_overlap(question, o.question), *SIMILAR_WORDS) for o in outcomes]
        for spec in specs:
            described, past = similarity.get(spec.name, (0.0, 0.0))
            total = max(described, past) + KEYWORD_WEIGHT * keyword[spec.name] if similarity else guesses[
                spec.name].score
            scores[spec.name] = {"score": round(total, 4), "description": round(described, 4),
                                 "past_questions": round(past, 4), "keywords": round(keyword[spec.name], 2),
                                 "declared_keywords": round(guesses[spec.name].keyword_score, 2)}
        order = {spec.name: i for i, spec in enumerate(specs)}
        ranked_names = sorted(scores, key=lambda n: (-scores[n]["score"], order[n]))
        ranked = []
        for name in ranked_names:
            s = scores[name]
            reason = (f"similarity {max(s['description'], s['past_questions']):.2f} "
                      f"(description {s['description']:.2f}, past questions {s['past_questions']:.2f}), "
                      f"{guesses[name].reason}") if similarity else guesses[name].reason
            ranked.append((name, reason))
        return ranked, {n: scores[n] for n in ranked_names}, method, outcomes, weights

    def _outcomes(self) -> list[PastVerdict]:
        if self.store is None:
            return []
        names = self.registry.skill_names
        return [PastVerdict(question, expert, names.resolve(skill) or skill, success)
                for question, expert, skill, success in tables.skill_outcomes(self.store, limit=PAST_OUTCOMES)]

    def rank_experts(self, question: str, skill: str, handbook: dict[tuple[str, str, str], HandbookRecord],
                     outcomes: list[PastVerdict] | None = None) -> dict[str, Any]:
        """Every expert scored for ``skill`` on ``question``: posterior, cost, value and score (not yet chosen).
        ``outcomes`` (past verdicts) give each pair its prior; without them the prior is Beta(1, 1)."""
        spec = self.registry.skill(skill).spec
        level2 = choose_level2(spec.level2, f"{question}\n{question}").level2.name  # as steps store it
        names = self.registry.skill_names
        rows: list[dict[str, Any]] = []
        for expert in self.registry.experts:
            alpha0, beta0 = (expert_prior(outcomes, expert.name, skill) if outcomes
                             else (tables.PRIOR_ALPHA, tables.PRIOR_BETA))
            own = [r for (e, s, _), r in handbook.items() if e == expert.name and s == skill]
            others = [r for r in own if r.level2 != level2]
            alpha = alpha0 + sum(r.alpha - tables.PRIOR_ALPHA for r in others)
            beta = beta0 + sum(r.beta - tables.PRIOR_BETA for r in others)
            evidence = sum(r.evidence for r in others)
            source = "skill (other Level-2 rows)" if others else "prior (the expert's and the skill's records)"
            row = handbook.get((expert.name, skill, level2))
            if row is not None and row.evidence > 0:
                # The Level-2 row's own verdicts, shrunk towards what the rest says about this pair.
                mean = alpha / (alpha + beta)
                alpha = row.alpha - tables.PRIOR_ALPHA + EXPERT_PRIOR_STRENGTH * mean
                beta = row.beta - tables.PRIOR_BETA + EXPERT_PRIOR_STRENGTH * (1.0 - mean)
                evidence += row.evidence
                source = "level2, shrunk towards the pair's other records"
            strong = any(names.resolve(s) == skill for s in expert.strengths)
            alpha += 1.0 if strong else 0.0
            rows.append({"expert": expert.name, "alpha": round(alpha, 3), "beta": round(beta, 3),
                         "mean": round(alpha / (alpha + beta), 4), "evidence": evidence, "source": source,
                         "strength_prior": strong, "cost": _measured_cost(pool(own) if own else None, expert)})
        explore = self.explore and any(r["evidence"] < self.min_evidence for r in rows)
        _normalise_costs(rows)
        draws = self._draws(question, skill, level2, rows) if explore else None
        for i, r in enumerate(rows):
            r["value"] = round(draws[i], 4) if draws else r["mean"]
            r["score"] = round(r["value"] - self.cost_weight * r["cost_norm"], 4)
        return {"level2": level2, "explore": explore, "candidates": rows}

    # -- helpers -------------------------------------------------------------------------------------------------
    def _draws(self, question: str, skill: str, level2: str, rows: list[dict[str, Any]]) -> list[float]:
        """Thompson draws from each candidate's Beta posterior, seeded by the question and the posteriors: the
        same question under the same handbook draws the same values, so a rerun routes exactly as its run did
        (and threads need no shared generator); every new verdict changes the posteriors and so the draws."""
        key = json.dumps([self.seed, " ".join(question.lower().split()), skill, level2,
                          [[r["expert"], r["alpha"], r["beta"]] for r in rows]])
        rng = np.random.default_rng(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
        return [float(rng.beta(r["alpha"], r["beta"])) for r in rows]

    def _similarities(self, question: str, specs: list[Any], outcomes: list[PastVerdict]
                      ) -> tuple[dict[str, tuple[float, float]], list[float]]:
        """Per skill: best cosine similarity to its descriptions, and to past questions answered right with it (0
        unless above ``SIMILAR_COSINE[0]``); and the cosine similarity of the question to each past verdict's
        question."""
        described: dict[str, list[str]] = {}
        for spec in specs:
            described[spec.name] = description_texts(spec)
        past = list(dict.fromkeys(o.question for o in outcomes))
        flat = [question] + [t for texts in described.values() for t in texts] + past
        vectors = embeddings.embed(flat)
        sims = vectors[1:] @ vectors[0]
        out: dict[str, tuple[float, float]] = {}
        at = 0
        for spec in specs:
            n = len(described[spec.name])
            out[spec.name] = (float(sims[at:at + n].max()), 0.0)
            at += n
        by_question = {text: float(sims[at + i]) for i, text in enumerate(past)}
        for o in outcomes:
            # A past success says something about this question only when the two questions are alike: a loose
            # resemblance (another kind of question) must not pull this one to that skill.
            if o.success >= 1.0 and o.skill in out and by_question[o.question] > SIMILAR_COSINE[0]:
                described_sim, best = out[o.skill]
                out[o.skill] = (described_sim, max(best, by_question[o.question]))
        return out, [by_question[o.question] for o in outcomes]


def _ramp(value: float, low: float, high: float) -> float:
    """0 at or below ``low``, 1 at or above ``high``, linear between."""
    return min(1.0, max(0.0, (value - low) / (high - low)))


def _word_overlap(a: str, b: str) -> float:
    """Jaccard overlap of the two questions' lower-case words."""
    first, second = set(re.findall(r"[a-z0-9]+", a.lower())), set(re.findall(r"[a-z0-9]+", b.lower()))
    return len(first & second) / len(first | second) if first | second else 0.0


def _plausible(score: dict[str, float] | None) -> bool:
    """A skill may be called for a question only if a declared keyword matches it, or a question answered right
    with it before is very close: similarity to a description (or words shared with it) is too loose to act on."""
    return score is not None and (score["declared_keywords"] > 0 or score["past_questions"] >= PAST_SIMILARITY_MIN)


def _learned_order(plausible: list[str], estimates: dict[str, SkillEstimate]) -> list[str]:
    """Plausible skills in the order to try them: by relevance, unless the most relevant one has verdicts on
    questions like this one (at least ``MIN_LOCAL_EVIDENCE``) that put its learned success more than
    ``RELEVANCE_MARGIN`` below another's. A skill's record on other questions alone never overrides relevance."""
    first = plausible[0] if plausible else None
    if first is None or estimates[first].local_n < MIN_LOCAL_EVIDENCE:
        return list(plausible)
    head = {s: (RELEVANCE_MARGIN if s == first else 0.0) for s in plausible}
    return sorted(plausible, key=lambda s: (-(estimates[s].value + head[s]), plausible.index(s)))


def _measured_cost(row: HandbookRecord | None, expert: Any) -> dict[str, float | None]:
    """Mean cost per call from the handbook; money falls back to the registry's price, latency to unknown."""
    money = row.money if row is not None and row.calls else float(expert.cost.per_call)
    return {"latency_ms": round(row.latency_ms, 1) if row is not None else None,
            "tokens": round(row.tokens, 1) if row is not None else None, "money": money}


def _normalise_costs(rows: list[dict[str, Any]]) -> None:
    """``cost_norm`` in [0, 1]: each cost dimension over its largest value among the candidates, averaged over the
    dimensions that are non-zero for someone; an unmeasured latency or token count counts as the candidates' mean."""
    dims = []
    for key in ("latency_ms", "tokens", "money"):
        known = [r["cost"][key] for r in rows if r["cost"][key] is not None]
        if not known or max(known) <= 0:
            continue
        fill = sum(known) / len(known)
        top = max(known)
        dims.append([(r["cost"][key] if r["cost"][key] is not None else fill) / top for r in rows])
    for i, r in enumerate(rows):
        r["cost_norm"] = round(sum(d[i] for d in dims) / len(dims), 4) if dims else 0.0
