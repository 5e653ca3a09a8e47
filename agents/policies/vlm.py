"""The VLM orchestrator: a vision-language model, served like an expert, writes each protocol turn itself.

The conversation is the paper's context c_t: the system prompt generated from the registry, the user turn with the
image and the question, then alternating assistant turns (the policy's text) and user turns carrying the
``<information>`` observations, truncated to a budget. Output is cut after the first closing action tag, because a
model that keeps writing would otherwise invent its own ``<information>``.
"""

from __future__ import annotations

import re
from typing import Any

from agents.experts.base import image_part, text_part
from agents.policies.base import Context, PolicyTurn
from agents.prompts import system_prompt
from agents.protocol import render_information

_ACTION_END = re.compile(r"</\s*(search|answer)\s*>", re.IGNORECASE)


class VLMPolicy:
    name = "vlm"

    def __init__(self, registry: Any, *, expert_name: str | None = None, temperature: float = 0.0,
                 max_tokens: int = 1024) -> None:
        self.registry = registry
        self.expert_name = expert_name or registry.orchestrator.expert
        self.temperature = temperature
        self.max_tokens = max_tokens

    def messages(self, ctx: Context) -> list[dict[str, Any]]:
        budget = self.registry.orchestrator.observation_max_chars
        out: list[dict[str, Any]] = [
            {"role": "system", "content": [text_part(system_prompt(self.registry, ctx.max_turns))]},
            {"role": "user", "content": [image_part(ctx.image), text_part(f"Question: {ctx.question}")]},
        ]
        for step in ctx.steps:
            out.append({"role": "assistant", "content": [text_part(step.raw_text)]})
            if step.kind == "search":
                out.append({"role": "user", "content": [text_part(render_information((step.observation or "")[:budget]))]})
            elif step.status == "error":
                out.append({"role": "user", "content": [text_part(
                    f"Your last turn could not be used ({step.error}). Write one <think> block and exactly one "
                    "<search> or <answer>.")]})
        if ctx.force_answer:
            out.append({"role": "user", "content": [text_part(
                "The turn limit is reached. Write one <think> block and then your final <answer>.")]})
        return out

    def next_turn(self, ctx: Context) -> PolicyTurn:
        expert = self.registry.expert(self.expert_name)
        reply = expert.generate(self.messages(ctx), max_tokens=self.max_tokens, temperature=self.temperature)
        text = reply.text
        end = _ACTION_END.search(text)
        if end:
            text = text[: end.end()]
        return PolicyTurn(text.strip(), tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
                          routing={"policy": self.name, "orchestrator": self.expert_name})
