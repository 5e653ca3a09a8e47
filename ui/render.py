"""The one function that turns a stored run into chat messages, so a live run and its replay look the same.

The Ask tab re-reads the run from storage after every step and calls ``render_run``; the Replay and Rate tabs call
it on the same record later. Each step becomes a collapsible message (title ``Model@@Skill · Level-2``, status,
duration, tokens) with its tool calls nested inside, followed by the tools' annotated evidence images from the
image store (Gradio 6 renders only text inside a collapsible message); the final answer is a plain message so it
stands out. Text that came from images or experts is escaped, so it cannot inject links, images or HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr

ImageFile = Callable[[str], Path | None]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")
_KIND_ICON = {"think": "💭", "search": "🔍", "answer": "✅"}


def md_escape(text: str | None) -> str:
    """Untrusted text as literal Markdown: every character that could start markup is backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", text or "")


def code_block(text: str | None) -> str:
    """Untrusted multi-line text in a fence longer than any backtick run inside it."""
    text = text or ""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def ms(value: float | None) -> str:
    value = float(value or 0.0)
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def step_title(step: Any) -> str:
    """The title of a step's collapsible message, e.g. ``🔍 Step 1 · Tools@@OCR · Text Recognition · 12+3 tok``."""
    parts = [f"{_KIND_ICON.get(step.kind, '•')} Step {step.index + 1}"]
    if step.kind == "search":
        parts.append(f"{step.model}@@{step.skill}")
        if step.level2:
            parts.append(str(step.level2))
    elif step.kind == "answer":
        parts.append("answer" + (" (forced)" if step.status == "forced" else ""))
    else:
        parts.append("thinking")
    if step.tokens_in or step.tokens_out:
        parts.append(f"{step.tokens_in}+{step.tokens_out} tok")
    if step.status == "error":
        parts.append("⚠ failed")
    return " · ".join(parts)


def _timings(step: Any) -> str:
    line = f"{ms(step.latency_ms)} (policy {ms(step.policy_ms)}, tools {ms(step.tool_ms)}, expert {ms(step.expert_ms)})"
    return f"*{line} · tokens {step.tokens_in} in / {step.tokens_out} out*"


def _step_body(step: Any) -> str:
    lines: list[str] = []
    if step.think:
        lines.append(f"**Thinking:** {md_escape(step.think)}")
    if step.kind == "search":
        lines.append(f"**Query:** {md_escape(step.query)}")
        if step.level2:
            reason = f" — {md_escape(step.level2_reason)}" if step.level2_reason else ""
            lines.append(f"**Level-2:** {md_escape(step.level2)}{reason}")
    if step.kind == "answer" and step.answer is not None:
        lines.append(f"**Answer:** {md_escape(step.answer)}")
    if step.error:
        lines.append(f"**⚠ Error:** {md_escape(step.error)}")
    lines.append(_timings(step))
    if step.kind == "search" and step.observation:
        lines.append("**Observation** (what went back to the orchestrator):\n\n" + code_block(step.observation))
    return "\n\n".join(lines)


def _file(image_id: str | None, image_file: ImageFile) -> dict[str, str] | None:
    if not image_id:
        return None
    path = image_file(image_id)
    return {"path": str(path), "mime_type": "image/png"} if path is not None else None


def _tool_messages(step: Any, parent: str) -> list[gr.ChatMessage]:
    """One collapsible child per tool call (name, time, summary, error), nested inside the step."""
    out: list[gr.ChatMessage] = []
    for call in step.tool_calls:
        text = md_escape(call.summary) or "(no summary)"
        if call.error:
            text += f"\n\n**⚠ Error:** {md_escape(call.error)}"
        out.append(gr.ChatMessage(role="assistant", content=text, metadata={
            "title": f"🛠 {call.tool}" + (" · ⚠ failed" if call.error else ""), "id": f"{parent}-tool-{call.index}",
            "parent_id": parent, "status": "done", "duration": round(call.latency_ms / 1000, 3)}))
    return out


def _evidence_messages(step: Any, image_file: ImageFile) -> list[gr.ChatMessage]:
    """The step's images as plain messages under it: Gradio 6 shows only text inside a collapsible message, and
    evidence is worth seeing without a click anyway."""
    out: list[gr.ChatMessage] = []
    for call in step.tool_calls:
        evidence = _file(call.image_id, image_file)
        if evidence is not None:
            caption = f"Step {step.index + 1} · evidence from **{md_escape(call.tool)}**: {md_escape(call.summary)}"
            out.append(gr.ChatMessage(role="assistant", content=[caption, evidence]))
    extra = [f for f in (_file(i, image_file) for i in getattr(step, "artifacts", []) or []) if f is not None]
    if extra:
        out.append(gr.ChatMessage(role="assistant", content=[f"Step {step.index + 1} · images the skill produced "
                                                             f"(crops, views):", *extra]))
    return out


def pending_message(index: int) -> gr.ChatMessage:
    """The placeholder shown while step ``index`` (0-based) is in flight."""
    return gr.ChatMessage(role="assistant", content="The orchestrator is choosing the next (expert, skill) call…",
                          metadata={"title": f"⏳ Step {index + 1} · working…", "id": f"pending-{index}",
                                    "status": "pending"})


def question_messages(question: str, image: dict[str, str] | None) -> list[gr.ChatMessage]:
    out = [gr.ChatMessage(role="user", content=md_escape(question))]
    if image is not None:
        out.append(gr.ChatMessage(role="user", content=image))
    return out


def render_run(run: Any, image_file: ImageFile, *, in_flight: bool = False) -> list[gr.ChatMessage]:
    """Chat messages for ``run`` (a ``storage.RunRecord``): question and image, one collapsible message per step
    with its tool calls nested, then the answer or what went wrong. ``in_flight`` adds the pending next step."""
    messages = question_messages(run.question, _file(run.image_id, image_file))
    for step in run.steps:
        parent = f"step-{step.index}"
        messages.append(gr.ChatMessage(role="assistant", content=_step_body(step), metadata={
            "title": step_title(step), "id": parent, "status": "done",
            "duration": round((step.latency_ms or 0.0) / 1000, 3)}))
        messages.extend(_tool_messages(step, parent))
        messages.extend(_evidence_messages(step, image_file))
    if in_flight or run.status == "running":
        if in_flight:
            messages.append(pending_message(len(run.steps)))
        return messages
    messages.append(final_message(run))
    return messages


def final_message(run: Any) -> gr.ChatMessage:
    """The run's outcome as a plain (non-collapsible) message: the answer in bold, or what went wrong."""
    footer = f"\n\n<sub>run {run.id} · {run.status} · {ms(run.latency_ms)} · tokens {run.tokens_in} in / " \
             f"{run.tokens_out} out</sub>"
    if run.status == "done":
        forced = " *(forced at the turn limit)*" if run.forced_answer else ""
        return gr.ChatMessage(role="assistant", content=f"### Answer: {md_escape(run.answer)}{forced}{footer}")
    if run.status == "interrupted":
        return gr.ChatMessage(role="assistant",
                              content=f"⏹ **The run was interrupted** before it finished: "
                                      f"{md_escape(run.error)}{footer}")
    return gr.ChatMessage(role="assistant", content=f"⚠️ **The run failed:** {md_escape(run.error)}{footer}")


def error_message(text: str) -> gr.ChatMessage:
    """A problem the person can act on (bad input, a crash), shown in the chat instead of a stack trace."""
    return gr.ChatMessage(role="assistant", content=f"⚠️ {md_escape(text)}")
