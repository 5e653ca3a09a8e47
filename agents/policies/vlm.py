"""The VLM orchestrator: a vision-language model, served like an expert, writes each protocol turn itself.

The conversation is the paper's context c_t: the system prompt generated from the registry, the user turn with the
image and the question, then alternating assistant turns (the policy's text) and user turns carrying the
``<information>`` observations, truncated to a budget. The paper truncates observations to 1,024 tokens (D.4);
without the orchestrator's tokenizer at hand the token budget is approximated as ``CHARS_PER_TOKEN`` characters a
token, and the smaller of that and the character budget wins. Output is cut after the first closing action tag,
because a model that keeps writing would otherwise invent its own ``<information>``. A reply that closes a
``</think>`` it never opened (thinking models open it in the prompt) gets the opening tag back, and reasoning a
server returned apart (a reasoning parser) becomes the turn's ``<think>`` block, as the protocol writes it.
Sampling is the serving entry's (``temperature``, ``top_p``… in the registry) unless a temperature is given here
(self-consistency samples at its own); every call records the exact request parameters.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from agents.experts.base import image_part, text_part
from agents.policies.base import Context, PolicyTurn
from agents.prompts import system_prompt
from agents.protocol import render_information, truncate_observation
from agents.routing.decision import RoutingDecision
from storage.trace import ModelCall

if TYPE_CHECKING:
    from agents.registry import OrchestratorSpec, Registry

_ACTION_END = re.compile(r"</\s*(search|answer)\s*>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<\s*think\s*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</\s*think\s*>", re.IGNORECASE)

#: Characters per token for the approximate token budget: about 4 for English text under BPE tokenizers, which
#: errs towards keeping less for digit- and symbol-heavy observations (those take more tokens a character).
CHARS_PER_TOKEN = 4
#: The paper's observation budget (appendix D.4).
DEFAULT_OBSERVATION_TOKENS = 1024

FORCE_ANSWER = "The turn limit is reached. Write one <think> block and then your final <answer>."
REPAIR = "Your last turn could not be used ({error}). Write one <think> block and exactly one <search> or <answer>."


def observation_budget(orchestrator: OrchestratorSpec, observation_max_tokens: int | None = None) -> int:
    """The most characters of one observation the policy is shown under ``orchestrator``'s settings (also
    for a stored run's registry, which serves no expert)."""
    tokens = (observation_max_tokens or getattr(orchestrator, "observation_max_tokens", None)
              or DEFAULT_OBSERVATION_TOKENS)
    return min(orchestrator.observation_max_chars, tokens * CHARS_PER_TOKEN)


class VLMPolicy:
    name = "vlm"

    def __init__(self, registry: Registry, *, expert_name: str | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, observation_max_tokens: int | None = None) -> None:
        self.registry = registry
        self.expert_name = expert_name or registry.orchestrator.expert
        self.temperature = temperature
        self.max_tokens = max_tokens  # None: the serving expert entry's own max_tokens caps each action
        # A registry field of this name wins once the registry schema has one; until then the paper's value.
        self.observation_max_tokens = (observation_max_tokens
                                       or getattr(registry.orchestrator, "observation_max_tokens", None)
                                       or DEFAULT_OBSERVATION_TOKENS)

    @property
    def observation_budget(self) -> int:
        """The most characters of one observation the policy is shown."""
        return observation_budget(self.registry.orchestrator, self.observation_max_tokens)

    def messages(self, ctx: Context) -> list[dict[str, Any]]:
        """The chat sent to the orchestrator model for the turn ``ctx`` asks for."""
        budget = self.observation_budget
        out: list[dict[str, Any]] = [
            {"role": "system", "content": [text_part(system_prompt(self.registry, ctx.max_turns))]},
            {"role": "user", "content": [image_part(ctx.image), text_part(f"Question: {ctx.question}")]},
        ]
        def information(observation: str) -> str:
            return render_information(truncate_observation(observation, budget))

        for step in ctx.steps:
            out.extend(step.to_messages(information))
            if step.kind != "search" and step.status == "error":
                out.append({"role": "user", "content": [text_part(REPAIR.format(error=step.error))]})
        if ctx.force_answer:
            out.append({"role": "user", "content": [text_part(FORCE_ANSWER)]})
        return out

    def next_turn(self, ctx: Context) -> PolicyTurn:
        if self.expert_name is None:  # load_registry requires orchestrator.expert for the vlm policy
            raise KeyError("unknown expert None: the vlm policy needs orchestrator.expert")
        expert = self.registry.expert(self.expert_name)
        messages = self.messages(ctx)
        started = time.perf_counter()
        reply = expert.generate(messages, max_tokens=self.max_tokens, temperature=self.temperature)
        params = getattr(expert, "request_params", None)
        call = ModelCall(role="orchestrator", model=self.expert_name, messages=messages, raw_reply=reply.raw_text,
                         tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
                         latency_ms=reply.latency_ms or (time.perf_counter() - started) * 1000,
                         params=(params(max_tokens=self.max_tokens, temperature=self.temperature) if callable(params)
                                 else {"temperature": self.temperature, "max_tokens": self.max_tokens}),
                         reasoning=reply.reasoning)
        text = reply.raw_text
        if reply.reasoning and not _THINK_CLOSE.search(text):
            # The server's reasoning parser returned the <think> block apart: the protocol turn writes it.
            text = f"<think>{reply.reasoning}</think>\n{text}"
        close = _THINK_CLOSE.search(text)
        if close and not _THINK_OPEN.search(text, 0, close.start()):
            # Thinking models (Qwen3-VL-*-Thinking) open <think> in their chat template's generation prompt, so
            # the reply starts inside the block; the turn as the model saw it begins with the opening tag.
            text = "<think>" + text
        end = _ACTION_END.search(text)
        if end:
            text = text[: end.end()]
        return PolicyTurn(text.strip(), tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
                          routing=RoutingDecision(policy=self.name, extra={
                              "orchestrator": self.expert_name,
                              "temperature": call.params.get("temperature", self.temperature)}),
                          model_calls=[call])
