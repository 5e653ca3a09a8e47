"""Writing a run to storage as it happens: the run row at the start, each step the moment it completes.

The recorder is an event sink for the loop. The live images of a step (annotated tool outputs, crops, the images in
the exact prompts sent to models) go into the content-addressed image store and the step keeps their ids, so a
replay re-renders exactly what was shown live from storage alone. The output of each tool call is kept too, in a
re-loadable form (``agents.replay.tool_cache``), so a rerun can reuse it instead of running the tool again.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from agents.replay.tool_cache import save_step_outputs
from storage import Store
from storage.trace import Event, Run, Step


class StorageRecorder:
    """Persists one run; pass ``recorder.on_event`` to ``agents.loop.run``."""

    def __init__(self, store: Store, *, image_id: str, registry_hash: str, config: dict[str, Any],
                 dataset: str | None = None, item_id: str | None = None, expected: str | None = None,
                 parent_run_id: str | None = None) -> None:
        self.store = store
        self.parent_run_id = parent_run_id
        self.image_id = image_id
        self.registry_hash = registry_hash
        self.config = config
        self.dataset, self.item_id, self.expected = dataset, item_id, expected
        self.run_id: str | None = None
        self.question_image: Image.Image | None = None  # the decoded upload, stored as ``image_id`` already

    def on_event(self, event: Event) -> None:
        if event.kind == "run_started":
            self.question_image = event.run.image
            self.run_id = self.store.create_run(
                question=event.run.question, image_id=self.image_id, policy=event.run.policy,
                registry_hash=self.registry_hash, config=self.config, dataset=self.dataset, item_id=self.item_id,
                expected=self.expected, parent_run_id=self.parent_run_id)
            event.run.id = self.run_id
        elif event.kind == "step" and event.step is not None and self.run_id:
            self.store.add_step(self.run_id, self.with_image_ids(event.step))
            save_step_outputs(self.store, event.step)
        elif event.kind == "run_finished" and self.run_id:
            self._finish(event.run)

    def _finish(self, run: Run) -> None:
        self.store.finish_run(self.run_id or "", status=run.status, answer=run.answer, latency_ms=run.latency_ms,
                              tokens_in=run.tokens_in, tokens_out=run.tokens_out, cost=run.cost, error=run.error,
                              forced_answer=run.forced_answer, reason=run.reason, confidence=run.confidence,
                              answer_form=run.answer_form, vote=run.vote, trust=run.trust)

    def with_image_ids(self, step: Step) -> Step:
        """``step`` with every live image stored and referenced by its content id (in place, and returned)."""
        images = self.store.images
        for call in step.tool_calls:
            if call.image is not None and call.image_id is None:
                call.image_id = images.put_image(call.image).id
        step.artifacts = step.artifacts or [images.put_image(img).id for img in step.extra_images]
        for model_call in step.model_calls:
            model_call.messages = [self._message_with_ids(m) for m in model_call.messages]
        return step

    def _message_with_ids(self, message: dict[str, Any]) -> dict[str, Any]:
        content = message.get("content")
        if not isinstance(content, list):
            return message
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("image"), Image.Image):
                # The question image itself is the upload already stored (no re-encoded copy per model call).
                image_id = (self.image_id if part["image"] is self.question_image
                            else self.store.images.put_image(part["image"]).id)
                parts.append({"type": "image", "image_id": image_id})
            else:
                parts.append(part)
        return {**message, "content": parts}
