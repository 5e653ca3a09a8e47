"""Tool outputs kept for reruns: stored as each step is recorded, handed back to skills by ``StoredToolCache``.

Every live tool call of a recorded step is encoded (``agents.replay.tool_codec``) and kept once per cache key
(``storage.tool_outputs``); images inside a result are the image store's content ids, the annotated evidence and
the crops included (already stored for the step, so never written twice). A rerun with ``--tools cached`` opens a
``StoredToolCache``: a call whose key is stored gets the decoded result instead of running (``ToolCall.reused``);
any other call, or one whose stored form no longer decodes (a result class that changed since), runs live.

Every new question uses a ``LiveToolCache`` the same way: a tool call already made on the same image (the key holds
the tool family's version, so only under the same code and thresholds) is answered from storage, through a
bounded in-memory layer, instead of parsing the chart or laying out the receipt again.
"""

from __future__ import annotations

import io
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from PIL import Image

from agents.replay import tool_codec
from skills.base import CachedOutput
from storage import Step, ToolCall, load_outputs, save_outputs

if TYPE_CHECKING:
    from storage import Store

log = logging.getLogger(__name__)

#: A result whose JSON form is larger than this is not kept (a rerun runs that call live).
MAX_OUTPUT_CHARS = 4_000_000


def save_step_outputs(store: Store, step: Step) -> int:
    """Keep the output of every live, successful tool call of ``step`` (recorded with its image ids); returns how
    many were new. A result with no faithful form is skipped: its call will simply run again on a rerun."""
    known = {id(call.image): call.image_id for call in step.tool_calls if call.image is not None and call.image_id}
    known.update({id(image): image_id for image, image_id in zip(step.extra_images, step.artifacts, strict=False)})

    def save_image(image: Image.Image) -> str:
        image_id = known.get(id(image))
        if image_id is None:
            image_id = known[id(image)] = store.images.put_image(image).id
        return image_id

    return save_call_outputs(store, step.tool_calls, save_image)


def save_call_outputs(store: Store, calls: list[ToolCall],
                      save_image: Callable[[Image.Image], str] | None = None) -> int:
    """Keep the output of every live, successful call in ``calls`` (outside a step: the routing policy's look at
    the image); returns how many were new. A tool that returned None ("no span answers this") is kept too: a
    rerun reuses that answer like any other."""
    save_image = save_image or (lambda image: store.images.put_image(image).id)
    outputs: dict[str, tuple[str, dict[str, Any]]] = {}
    for call in calls:
        if call.reused or call.error or not call.cache_key or call.cache_key in outputs:
            continue
        try:
            encoded = tool_codec.encode(call.output, save_image)
        except tool_codec.NotEncodable as exc:
            log.debug("tool %s: output not kept for reruns (%s)", call.tool, exc)
            continue
        if len(str(encoded)) > MAX_OUTPUT_CHARS:
            continue
        outputs[call.cache_key] = (call.tool, encoded)
    return save_outputs(store, outputs)


class StoredToolCache:
    """The ``skills.base.ToolCache`` of a rerun: stored outputs by cache key, decoded afresh for every call (a skill
    may change the object it is given; the next run must not see that). Safe to share between threads."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._rows: dict[str, dict[str, Any] | None] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def prefetch(self, keys: list[str]) -> None:
        """Read the stored outputs of ``keys`` in one query (a rerun knows the keys its source run used)."""
        wanted = [k for k in keys if k and k not in self._rows]
        found = load_outputs(self.store, wanted)
        with self._lock:
            for key in wanted:
                self._rows.setdefault(key, found.get(key))

    def get(self, tool: str, key: str) -> CachedOutput | None:
        with self._lock:
            cached = key in self._rows
            row = self._rows.get(key)
        if not cached:
            row = load_outputs(self.store, [key]).get(key)
            with self._lock:
                self._keep(key, row)
        result = self._decode(tool, key, row) if row is not None else None
        with self._lock:
            if result is None:
                self.misses += 1
            else:
                self.hits += 1
        return result

    def _keep(self, key: str, row: dict[str, Any] | None) -> None:
        self._rows[key] = row

    def _decode(self, tool: str, key: str, row: dict[str, Any]) -> CachedOutput | None:
        opened: dict[int, str] = {}

        def open_image(image_id: str) -> Image.Image:
            # Opened lazily from the bytes: mode and size are known now, the pixels are decoded only when a skill
            # looks at them (a tools-only rerun often never does). No file handle stays open.
            image = Image.open(io.BytesIO(self.store.images.read_bytes(image_id)))
            opened[id(image)] = image_id
            return image

        try:
            result = tool_codec.decode(row, open_image)
        except (tool_codec.NotDecodable, OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("tool %s: stored output %s cannot be reused (%s); running it", tool, key[:12], exc)
            return None
        # The annotated evidence is in the image store already: the step refers to it instead of storing it again.
        return CachedOutput(result, opened.get(id(getattr(result, "annotated", None))))


class LiveToolCache(StoredToolCache):
    """The tool cache of new questions: stored outputs found by key, the most recent ``capacity`` rows kept in
    memory. A key not stored yet is looked up again next time (the first question on an image stores its outputs
    as its steps are recorded; the second finds them)."""

    def __init__(self, store: Store, capacity: int = 256) -> None:
        super().__init__(store)
        self.capacity = capacity

    def _keep(self, key: str, row: dict[str, Any] | None) -> None:
        if row is None:
            return
        rows = cast(OrderedDict[str, dict[str, Any] | None], self._rows)
        rows[key] = row
        rows.move_to_end(key)
        while len(rows) > self.capacity:
            rows.popitem(last=False)
