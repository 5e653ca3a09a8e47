"""Writing a run to storage as it happens: the run row at the start, each step the moment it completes.

The recorder is an event sink for the loop. Annotated tool images and crops go into the content-addressed image
store, so a replay re-renders exactly what was shown live from storage alone.
"""

from __future__ import annotations

from typing import Any

from agents.types import Event, Run, Step
from storage import StepRecord, ToolCallRecord


class StorageRecorder:
    """Persists one run; pass ``recorder.on_event`` to ``agents.loop.run``."""

    def __init__(self, store: Any, *, image_id: str, registry_hash: str, config: dict[str, Any],
                 dataset: str | None = None, item_id: str | None = None, expected: str | None = None) -> None:
        self.store = store
        self.image_id = image_id
        self.registry_hash = registry_hash
        self.config = config
        self.dataset, self.item_id, self.expected = dataset, item_id, expected
        self.run_id: str | None = None

    def on_event(self, event: Event) -> None:
        if event.kind == "run_started":
            self.run_id = self.store.create_run(
                question=event.run.question, image_id=self.image_id, policy=event.run.policy,
                registry_hash=self.registry_hash, config=self.config, dataset=self.dataset, item_id=self.item_id,
                expected=self.expected)
            event.run.id = self.run_id
        elif event.kind == "step" and event.step is not None and self.run_id:
            self.store.add_step(self.run_id, self.step_record(event.step))
        elif event.kind == "run_finished" and self.run_id:
            self._finish(event.run)

    def _finish(self, run: Run) -> None:
        self.store.finish_run(self.run_id, status=run.status, answer=run.answer, latency_ms=run.latency_ms,
                              tokens_in=run.tokens_in, tokens_out=run.tokens_out, cost=run.cost, error=run.error,
                              forced_answer=run.forced_answer)

    def step_record(self, step: Step) -> StepRecord:
        images = self.store.images
        calls = [
            ToolCallRecord(index=c.index, tool=c.tool, args=c.args, summary=c.summary, latency_ms=c.latency_ms,
                           image_id=images.put_image(c.image).id if c.image is not None else None,
                           error=c.error, data=c.data)
            for c in step.tool_calls
        ]
        routing = dict(step.routing)
        if step.violations:
            routing["violations"] = step.violations
        if step.settled_answer is not None:
            routing["settled_answer"] = step.settled_answer
        return StepRecord(
            index=step.index, kind=step.kind, raw_text=step.raw_text, think=step.think, model=step.model,
            skill=step.skill, level2=step.level2, level2_reason=step.level2_reason, query=step.query,
            observation=step.observation, answer=step.answer, status=step.status, error=step.error,
            latency_ms=step.latency_ms, policy_ms=step.policy_ms, tool_ms=step.tool_ms, expert_ms=step.expert_ms,
            tokens_in=step.tokens_in, tokens_out=step.tokens_out, routing=routing,
            artifacts=[images.put_image(img).id for img in step.extra_images], tool_calls=calls)
