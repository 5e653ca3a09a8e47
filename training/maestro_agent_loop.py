"""verl agent loop for GRPO rollouts of the Maestro protocol, with observation tokens masked (paper eq. 8).

Each rollout is a real Maestro run: the policy being trained writes a turn (generation stops after ``</search>`` or
``</answer>``, as the VLM policy cuts it at inference); a ``<search>`` is executed through the Maestro registry
(the experts' endpoints and the skills' tools, ``agents.loop``'s own search step) and its ``<information>`` reply
is appended as the next user turn, exactly as ``agents.policies.vlm`` lays the conversation out. Policy tokens get
``response_mask`` 1; observation, end-of-turn and notice tokens get 0, so neither the loss nor the KL term sees them.
After ``max_assistant_turns`` searches one forced-answer turn follows, as in the app. The reward is computed after
the loop by ``training/maestro_reward.py`` on the decoded response.

Written against verl's AgentLoopBase of 2025-26 (``run(sampling_params, **kwargs)``, ``process_vision_info``,
``apply_chat_template(..., remove_system_prompt=True)``, ``server_manager.generate`` returning token ids);
it imports verl, so it runs only on the training host. Rows ask for it with ``agent_name: maestro_agent``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any
from uuid import uuid4

_REPO = Path(__file__).resolve().parent.parent
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register  # noqa: E402

from agents.loop import execute_search  # noqa: E402  (the app's own search step: same observations as inference)
from agents.policies.base import Context  # noqa: E402
from agents.policies.vlm import CHARS_PER_TOKEN, FORCE_ANSWER  # noqa: E402
from agents.protocol import Search, parse_turn, render_information, truncate_observation  # noqa: E402
from agents.registry import load_registry  # noqa: E402
from storage.trace import Step  # noqa: E402

_STOP = ["</search>", "</answer>"]
_REGISTRY: Any = None


def _registry() -> Any:
    global _REGISTRY
    if _REGISTRY is None:  # one per worker process: experts are shared clients, skills are loaded modules
        _REGISTRY = load_registry(os.environ.get("MAESTRO_REGISTRY") or None)
    return _REGISTRY


def _token_ids(output: Any) -> tuple[list[int], list[float] | None]:
    if isinstance(output, list):  # older verl returned bare ids
        return output, None
    return list(output.token_ids), getattr(output, "log_probs", None)


@register("maestro_agent")
class MaestroAgentLoop(AgentLoopBase):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rollout = getattr(self, "rollout_config", None) or self.config.actor_rollout_ref.rollout
        self.prompt_length = rollout.prompt_length
        self.response_length = rollout.response_length
        self.max_turns = rollout.multi_turn.max_assistant_turns or 4
        self.observation_chars = (rollout.multi_turn.max_tool_response_length or 1024) * CHARS_PER_TOKEN

    async def _user_turns(self, *texts: str) -> list[int]:
        """Tokens of user messages plus the next assistant header, as the chat template writes them mid-chat."""
        messages = [{"role": "user", "content": [{"type": "text", "text": text}]} for text in texts]
        return list(await self.apply_chat_template(messages, images=None, remove_system_prompt=True))

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        registry = _registry()
        models, skills = registry.model_names, registry.skill_names
        messages = list(kwargs["raw_prompt"])
        extra = kwargs.get("extra_info") or {}
        images = (await self.process_vision_info(messages)).get("images")
        prompt_ids = list(await self.apply_chat_template(messages, images=images))
        # Generation stops at the action's closing tag, before the model's own end of turn: close the turn the
        # way the chat template does (Qwen style) before the system's reply; these tokens are masked too.
        eos = (self.tokenizer.encode("<|im_end|>\n", add_special_tokens=False)
               if "<|im_end|>" in self.tokenizer.get_vocab() else [])
        params = {**sampling_params, "stop": _STOP, "include_stop_str_in_output": True}
        request_id = uuid4().hex
        response: list[int] = []
        mask: list[int] = []
        logprobs: list[float] = []
        steps: list[Step] = []
        turns = 0
        for turn in range(self.max_turns + 1):
            output = await self.server_manager.generate(request_id=request_id, prompt_ids=prompt_ids + response,
                                                        sampling_params=params, image_data=images)
            ids, lps = _token_ids(output)
            response, mask = response + ids, mask + [1] * len(ids)
            logprobs += list(lps) if lps is not None else [0.0] * len(ids)
            turns += 1
            if len(response) >= self.response_length:
                break
            text = self.tokenizer.decode(ids, skip_special_tokens=True)
            action = parse_turn(text, models, skills).action
            if not isinstance(action, Search) or turn == self.max_turns:
                break  # an answer, or a malformed turn: the rollout ends and the reward judges it
            step = Step(index=len(steps), kind="search", raw_text=text, model=action.model, skill=action.skill,
                        query=action.query)
            image = images[0] if images else None
            ctx = Context(str(extra.get("question", "")), image, registry, steps, self.max_turns, turn)
            await self.loop.run_in_executor(None, execute_search, step, ctx, registry)
            steps.append(step)
            observation = truncate_observation(step.observation or "", self.observation_chars)
            # Before the forced final turn the app adds its notice; the policy sees the same here.
            notes = (FORCE_ANSWER,) if turn + 1 == self.max_turns else ()
            reply = eos + await self._user_turns(render_information(observation), *notes)
            if len(response) + len(reply) >= self.response_length:
                break
            response, mask, logprobs = response + reply, mask + [0] * len(reply), logprobs + [0.0] * len(reply)
        n = self.response_length
        return AgentLoopOutput(prompt_ids=prompt_ids, response_ids=response[:n], response_mask=mask[:n],
                               response_logprobs=logprobs[:n], multi_modal_data={"images": images} if images else {},
                               num_turns=2 * turns, metrics={})
