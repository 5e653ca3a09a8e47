"""The learning router (DESIGN §4): skill from the question, expert from the handbook, exploring where evidence is thin.

Level-1 skill: cosine similarity of the question's sentence embedding to each skill's description, its Level-2
descriptions and past questions that a run with that skill answered correctly, plus the keyword score of
``agents.skill_inference`` as a prior (keywords alone when the embedding model is unavailable). Expert: for the
chosen skill and the Level-2 its question selects, each expert's Beta(α, β) success posterior from the handbook
(Level-2 row, or the skill's rows pooled while the Level-2 row is thin; declared strengths add one pseudo-success,
Atlas's prior) minus λ·normalised measured cost. While any candidate has fewer than ``min_evidence`` verdicts the
value is a Thompson sample from its posterior, so thin pairs still get tried; afterwards the posterior mean, so the
choice follows the evidence and each skill goes to the expert that is best for it. Every decision's inputs are
recorded in ``PolicyTurn.routing``. Turns are ordinary protocol text, so the runs are training data.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from agents import embeddings
from agents.handbook import load_handbook, pool
from agents.policies.base import Context, PolicyTurn
from agents.policies.keyword import answer_from_search
from agents.protocol import Answer, Search, render_turn
from agents.skill_inference import infer_skills
from skills.runner import choose_level2
from storage import handbook as tables
from storage.handbook import HandbookRecord

#: How much one point of ``infer_skills`` score (keyword hits + description overlap, capped at 3) adds to a
#: cosine similarity.
KEYWORD_WEIGHT = 0.15
#: Past questions per skill kept as examples for skill inference (newest first).
PAST_PER_SKILL = 200
#: Verdicts a Level-2 row needs before it is used on its own instead of the skill's pooled rows.
LEVEL2_MIN_EVIDENCE = 3


class RouterPolicy:
    name = "router"

    def __init__(self, registry: Any, store: Any = None, *, cost_weight: float | None = None, explore: bool = True,
                 min_evidence: int = 3, seed: int | None = None, use_embeddings: bool = True) -> None:
        self.registry = registry
        self.store = store
        self.cost_weight = float(registry.orchestrator.cost_weight if cost_weight is None else cost_weight)
        self.explore = explore
        self.min_evidence = max(0, int(min_evidence))
        self.use_embeddings = use_embeddings
        self._rng = np.random.default_rng(seed)
        self._lock = threading.Lock()

    # -- the turn ------------------------------------------------------------------------------------------------
    def next_turn(self, ctx: Context) -> PolicyTurn:
        searches = ctx.searches
        last = searches[-1] if searches else None
        if last is not None and last.status == "ok":
            return answer_from_search(last, ctx.registry, ctx.question)
        tried = {(s.model, s.skill) for s in searches}
        if ctx.force_answer or len(searches) >= 2:
            reason = last.error if last is not None else "no skill and expert could be called"
            return PolicyTurn(render_turn(f"I could not get evidence: {reason}",
                                          Answer("I could not determine the answer.")))
        decision = self.decide(ctx.question, exclude=tried)
        if decision is None:
            reason = last.error if last is not None else "no skill and expert could be called"
            return PolicyTurn(render_turn(f"I could not get evidence: {reason}",
                                          Answer("I could not determine the answer.")))
        expert, skill = decision["expert"], decision["skill"]
        think = (f"The question needs the {skill} skill ({decision['skill_reason']}); "
                 f"{expert} is the expert for it ({decision['expert_reason']}).")
        if last is not None:
            think = f"The previous call failed ({last.error}). Trying another pair. " + think
        return PolicyTurn(render_turn(think, Search(expert, skill, ctx.question)), routing=decision)

    # -- decisions -----------------------------------------------------------------------------------------------
    def decide(self, question: str, *, exclude: set[tuple[str | None, str | None]] | None = None
               ) -> dict[str, Any] | None:
        """The (expert, skill) to call for ``question`` and why, skipping pairs in ``exclude``; None if none left."""
        exclude = exclude or set()
        ranked, skill_scores, method = self.infer_skill(question)
        handbook = load_handbook(self.store) if self.store is not None else {}
        for skill, skill_info in ranked[:2]:
            options = self.rank_experts(question, skill, handbook)
            options["candidates"] = [c for c in options["candidates"] if (c["expert"], skill) not in exclude]
            if not options["candidates"]:
                continue
            best = max(options["candidates"], key=lambda c: c["score"])
            why = (f"{'exploring: sampled ' if options['explore'] else 'posterior mean '}"
                   f"{best['value']:.2f} − λ {self.cost_weight:g} × cost {best['cost_norm']:.2f} = {best['score']:.2f}"
                   f" from Beta({best['alpha']:.1f}, {best['beta']:.1f}) over {best['evidence']:.0f} verdicts")
            return {"policy": self.name, "skill": skill, "level2": options["level2"], "expert": best["expert"],
                    "skill_method": method, "skill_reason": skill_info, "skill_scores": skill_scores,
                    "expert_reason": why, "lambda": self.cost_weight, "explore": options["explore"],
                    "candidates": options["candidates"]}
        return None

    def infer_skill(self, question: str) -> tuple[list[tuple[str, str]], dict[str, dict[str, float]], str]:
        """Skills ranked for ``question`` with a one-line reason each, the per-skill scores, and the method used."""
        specs = [s.spec for s in self.registry.skills]
        guesses = {g.skill: g for g in infer_skills(question, specs)}
        keyword = {name: min(3.0, g.score) for name, g in guesses.items()}
        scores: dict[str, dict[str, float]] = {}
        method = "embeddings+keywords"
        try:
            if not self.use_embeddings:
                raise embeddings.EmbeddingsUnavailable("embeddings switched off for this router")
            similarity = self._similarities(question, specs)
        except embeddings.EmbeddingsUnavailable as exc:
            method = f"keywords only (embeddings unavailable: {exc})"
            similarity = {}
        for spec in specs:
            described, past = similarity.get(spec.name, (0.0, 0.0))
            total = max(described, past) + KEYWORD_WEIGHT * keyword[spec.name] if similarity else guesses[
                spec.name].score
            scores[spec.name] = {"score": round(total, 4), "description": round(described, 4),
                                 "past_questions": round(past, 4), "keywords": round(keyword[spec.name], 2)}
        order = {spec.name: i for i, spec in enumerate(specs)}
        ranked_names = sorted(scores, key=lambda n: (-scores[n]["score"], order[n]))
        ranked = []
        for name in ranked_names:
            s = scores[name]
            reason = (f"similarity {max(s['description'], s['past_questions']):.2f} "
                      f"(description {s['description']:.2f}, past questions {s['past_questions']:.2f}), "
                      f"{guesses[name].reason}") if similarity else guesses[name].reason
            ranked.append((name, reason))
        top = {n: scores[n] for n in ranked_names[:5]}
        return ranked, top, method

    def rank_experts(self, question: str, skill: str, handbook: dict[tuple[str, str, str], HandbookRecord]
                     ) -> dict[str, Any]:
        """Every expert scored for ``skill`` on ``question``: posterior, cost, value and score (not yet chosen)."""
        spec = self.registry.skill(skill).spec
        level2 = choose_level2(spec.level2, f"{question}\n{question}").level2.name  # as steps store it
        names = self.registry.skill_names
        rows = []
        for expert in self.registry.experts:
            own = [r for (e, s, _), r in handbook.items() if e == expert.name and s == skill]
            row = handbook.get((expert.name, skill, level2))
            if row is not None and row.evidence >= LEVEL2_MIN_EVIDENCE:
                used, source = row, "level2"
            elif own:
                used, source = pool(own), "skill (Level-2 rows pooled)"
            else:
                used, source = None, "prior"
            strong = any(names.resolve(s) == skill for s in expert.strengths)
            alpha = (used.alpha if used else tables.PRIOR_ALPHA) + (1.0 if strong else 0.0)
            beta = used.beta if used else tables.PRIOR_BETA
            evidence = used.evidence if used else 0.0
            rows.append({"expert": expert.name, "alpha": round(alpha, 3), "beta": round(beta, 3),
                         "mean": round(alpha / (alpha + beta), 4), "evidence": evidence, "source": source,
                         "strength_prior": strong, "cost": _measured_cost(used, expert)})
        explore = self.explore and any(r["evidence"] < self.min_evidence for r in rows)
        _normalise_costs(rows)
        with self._lock:  # numpy Generators are not thread-safe; evaluations share one policy across threads
            draws = [float(self._rng.beta(r["alpha"], r["beta"])) for r in rows] if explore else None
        for i, r in enumerate(rows):
            r["value"] = round(draws[i], 4) if draws else r["mean"]
            r["score"] = round(r["value"] - self.cost_weight * r["cost_norm"], 4)
        return {"level2": level2, "explore": explore, "candidates": rows}

    # -- helpers -------------------------------------------------------------------------------------------------
    def _similarities(self, question: str, specs: list[Any]) -> dict[str, tuple[float, float]]:
        """Per skill: best cosine similarity to its descriptions, and to past questions answered right with it."""
        described: dict[str, list[str]] = {}
        for spec in specs:
            texts = [f"{spec.name}: {spec.description}"]
            texts += [f"{sub.name}: {sub.description}" for sub in spec.level2]
            described[spec.name] = texts
        past: dict[str, list[str]] = {spec.name: [] for spec in specs}
        if self.store is not None:
            for text, skill in tables.skill_questions(self.store, limit=PAST_PER_SKILL * max(1, len(specs))):
                if skill in past and len(past[skill]) < PAST_PER_SKILL:
                    past[skill].append(text)
        flat = [question] + [t for texts in described.values() for t in texts] + [t for q in past.values() for t in q]
        vectors = embeddings.embed(flat)
        sims = vectors[1:] @ vectors[0]
        out: dict[str, tuple[float, float]] = {}
        at = 0
        for spec in specs:
            n = len(described[spec.name])
            out[spec.name] = (float(sims[at:at + n].max()), 0.0)
            at += n
        for spec in specs:
            n = len(past[spec.name])
            if n:
                out[spec.name] = (out[spec.name][0], float(sims[at:at + n].max()))
            at += n
        return out


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
