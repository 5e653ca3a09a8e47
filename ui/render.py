"""The one function that turns a stored run into chat messages, so a live run and its replay look the same.

The Ask tab re-reads the run from storage after every step and calls ``render_run``; the Replay and Rate tabs call
it on the same record later. Each step becomes a collapsible message (title ``Model@@Skill · Level-2``, status,
duration, tokens) whose body says why that pair was chosen (the policy's routing reasons, the router's posteriors,
costs and scores per candidate, λ) and which Level-2 sub-skill ran and why, with its tool calls nested inside,
followed by the tools' annotated evidence images from the image store (Gradio 6 renders only text inside a
collapsible message). Every model call of a step (the orchestrator's, an expert's) is a nested collapsible message
with its exact prompt and raw reply (``model_call_messages``); a self-consistency vote is a plain message before the
outcome (``self_consistency_messages``); the final answer is a plain message so it stands out. While a skill runs, the live page
shows a pending step titled with the chosen pair and a short verb phrase (``Tools@@OCR · reading text…``). Text
that came from images or experts is escaped, so it cannot inject links, images or HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr

from agents.routing.decision import RoutingDecision

if TYPE_CHECKING:
    from gradio.components.chatbot import FileDataDict

    from storage import RunRecord, Step

ImageFile = Callable[[str], Path | None]

_RUN_ID = re.compile(r"^[0-9a-f]{32}$")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~=])")
#: What a pending step says while its skill runs, by canonical Level-1 skill name (lower case).
SKILL_VERBS = {"ocr": "reading text", "chart": "reading the chart", "counting": "counting",
               "diagram-reasoning": "tracing the diagram", "embodied-scene": "looking around the scene",
               "geometric": "measuring the figure", "perception": "looking closely", "python-code": "running code",
               "science": "working through the science"}
#: Routing keys shown on their own lines (everything else scalar goes on one "other" line).
_ROUTING_MAIN = ("policy", "skill_reason", "expert_reason", "lambda", "candidates", "skill_scores", "violations",
                 "explore", "skill", "expert", "model")


def md_escape(text: str | None) -> str:
    """Untrusted text as literal Markdown: every character that could start markup is backslash-escaped (``=`` too:
    a line of them under text would make it a heading)."""
    return _MD_SPECIAL.sub(r"\\\1", text or "")


def plain_text(text: str | None) -> str:
    """Untrusted multi-line text shown as text: escaped, each line break kept as a line break (never a heading,
    a list or a paragraph merge)."""
    return "  \n".join(md_escape(line) for line in (text or "").splitlines() or [""])


def tokens_note(tokens_in: int, tokens_out: int) -> str:
    """`` · tokens 12 in / 3 out``, or nothing for tools-only work (no model was asked)."""
    return f" · tokens {tokens_in} in / {tokens_out} out" if tokens_in or tokens_out else ""


def code_block(text: str | None) -> str:
    """Untrusted multi-line text in a fence longer than any backtick run inside it."""
    text = text or ""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def ms(value: float | None) -> str:
    value = float(value or 0.0)
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def step_title(step: Step) -> str:
    """The title of a step's collapsible message, e.g. ``Step 1 · Tools@@OCR · Text Recognition · 12+3 tok``."""
    parts = [f"Step {step.index + 1}"]
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
        parts.append("failed")
    return " · ".join(parts)


def action_verb(skill: str | None, resolve: Callable[[str], str | None] | None = None) -> str:
    """A short verb phrase for a skill at work (``reading text…``); aliases resolve first, unknown skills say
    ``working…``."""
    name = (resolve(skill) if resolve is not None and skill else None) or skill or ""
    verb = SKILL_VERBS.get(name.strip().lower())
    return f"{verb}…" if verb else "working…"


def _num(value: Any, digits: int = 2) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return md_escape(str(value))
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _candidate_line(c: dict[str, Any], chosen: str | None) -> str:
    cost = raw if isinstance(raw := c.get("cost"), dict) else {}
    measured = ", ".join(f"{k} {_num(v, 1 if k != 'money' else 4)}" for k, v in cost.items() if v is not None)
    mark = " (chosen)" if chosen and c.get("expert") == chosen else ""
    parts = [f"Beta({_num(c.get('alpha'), 1)}, {_num(c.get('beta'), 1)})", f"mean {_num(c.get('mean'))}",
             f"evidence {_num(c.get('evidence'), 1)} ({md_escape(str(c.get('source', '?')))})",
             f"cost {_num(c.get('cost_norm'))}" + (f" [{measured}]" if measured else ""),
             f"value {_num(c.get('value'))}", f"score {_num(c.get('score'))}"]
    return f"- {md_escape(str(c.get('expert', '?')))}{mark}: " + " · ".join(parts)


def routing_text(step: Step) -> str:
    """The step's routing record as compact Markdown: policy, why this skill, why this expert, and for the
    learned router each candidate's posterior, cost, value and score with λ. Empty when nothing was recorded."""
    decision = RoutingDecision.from_dict(getattr(step, "routing", None))
    if decision is None:
        return ""
    routing = decision.to_dict()
    bits = [f"{md_escape(decision.policy)} policy"] if decision.policy else []
    lam = decision.cost_weight
    if lam is not None:
        bits.append(f"λ {lam:g}" if isinstance(lam, int | float) else f"λ {md_escape(str(lam))}")
    lines = ["**Routing**" + (f" ({', '.join(bits)})" if bits else "")]
    if decision.skill_reason:
        lines.append(f"- skill: {md_escape(str(decision.skill_reason))}")
    if decision.expert_reason:
        lines.append(f"- expert: {md_escape(str(decision.expert_reason))}")
    scores = decision.skill_scores
    if isinstance(scores, dict) and scores:
        ranked = ", ".join(f"{md_escape(str(k))} {_num(v.get('score') if isinstance(v, dict) else v)}"
                           for k, v in list(scores.items())[:5])
        lines.append(f"- skill scores: {ranked}")
    candidates = decision.candidates
    if isinstance(candidates, list) and candidates:
        lines.append("- candidates" + (" (exploring: Thompson samples)" if decision.explore else "") + ":")
        lines.extend("  " + _candidate_line(c, getattr(step, "model", None)) for c in candidates
                     if isinstance(c, dict))
    violations = decision.extra.get("violations")  # runs stored before violations had a column of their own
    if isinstance(violations, list) and violations:
        lines.append("- protocol problems: " + "; ".join(md_escape(str(v)) for v in violations))
    other = [f"{md_escape(str(k))} {_num(v)}" for k, v in routing.items()
             if k not in _ROUTING_MAIN and (v is None or isinstance(v, str | int | float))]
    if other:
        lines.append("- " + " · ".join(other))
    return "\n".join(lines)


def _timings(step: Step) -> str:
    line = f"{ms(step.latency_ms)} (policy {ms(step.policy_ms)}, tools {ms(step.tool_ms)}, expert {ms(step.expert_ms)})"
    return f"*{line}{tokens_note(step.tokens_in, step.tokens_out)}*"


def _step_body(step: Step) -> str:
    lines: list[str] = []
    if step.think:
        lines.append(f"**Thinking:** {md_escape(step.think)}")
    if step.kind == "search":
        lines.append(f"**Query:** {md_escape(step.query)}")
        if step.level2:
            reason = f" — {md_escape(step.level2_reason)}" if step.level2_reason else ""
            lines.append(f"**Level-2:** {md_escape(step.level2)}{reason}")
    if routing := routing_text(step):
        lines.append(routing)
    if step.kind == "answer" and step.answer is not None:
        # "Proposed": the final answer (its own message) is what the run settled on after the checks.
        lines.append(f"**Proposed answer:** {md_escape(step.answer)}")
    if step.settled_answer is not None:
        sure = f" (confidence {step.confidence:.2f})" if step.confidence is not None else ""
        lines.append(f"**Tools settled:** {md_escape(step.settled_answer)}{sure}")
    elif step.missing:
        lines.append(f"**Missing:** {md_escape(step.missing)}")
    if step.violations:
        lines.append("**Protocol problems:** " + "; ".join(md_escape(v) for v in step.violations))
    if step.error:
        lines.append(f"**Error:** {md_escape(step.error)}")
    lines.append(_timings(step))
    if step.kind == "search" and step.observation:
        lines.append("**Observation** (what went back to the orchestrator):\n\n" + code_block(step.observation))
    return "\n\n".join(lines)


def file_data(path: str) -> FileDataDict:
    """A chat message's image file. Gradio's Chatbot reads only ``path`` (the type comes from the file name);
    ``meta`` is a key the type of a message's content requires."""
    return {"path": path, "mime_type": "image/png", "meta": {"_type": "gradio.FileData"}}


def _file(image_id: str | None, image_file: ImageFile) -> FileDataDict | None:
    if not image_id:
        return None
    path = image_file(image_id)
    return file_data(str(path)) if path is not None else None


def _tool_messages(step: Step, parent: str) -> list[gr.ChatMessage]:
    """One collapsible child per tool call (name, time, summary, error), nested inside the step."""
    out: list[gr.ChatMessage] = []
    for call in step.tool_calls:
        text = md_escape(call.summary) or "(no summary)"
        if call.error:
            text += f"\n\n**Error:** {md_escape(call.error)}"
        out.append(gr.ChatMessage(role="assistant", content=text, metadata={
            "title": f"Tool {call.tool}" + (" · failed" if call.error else ""), "id": f"{parent}-tool-{call.index}",
            "parent_id": parent, "status": "done", "duration": round(call.latency_ms / 1000, 3)}))
    return out


def _evidence_messages(step: Step, image_file: ImageFile) -> list[gr.ChatMessage]:
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


def pending_message(index: int, action: Any = None,
                    resolve: Callable[[str], str | None] | None = None) -> gr.ChatMessage:
    """The placeholder shown while step ``index`` (0-based) is in flight: "choosing…" until the policy has picked a
    pair, then (``action``: the partly filled step of the loop's ``action`` event) the pair, a verb phrase for its
    skill, the query and the routing reasons."""
    if action is None or not getattr(action, "skill", None):
        return gr.ChatMessage(role="assistant", content="The orchestrator is choosing the next (expert, skill) call…",
                              metadata={"title": f"Step {index + 1} · working…", "id": f"pending-{index}",
                                        "status": "pending"})
    title = f"Step {index + 1} · {action.model}@@{action.skill} · {action_verb(action.skill, resolve)}"
    lines = [f"**Query:** {md_escape(action.query)}"]
    if action.think:
        lines.insert(0, f"**Thinking:** {md_escape(action.think)}")
    if routing := routing_text(action):
        lines.append(routing)
    return gr.ChatMessage(role="assistant", content="\n\n".join(lines),
                          metadata={"title": title, "id": f"pending-{index}", "status": "pending"})


def question_messages(question: str, image: FileDataDict | None) -> list[gr.ChatMessage]:
    out = [gr.ChatMessage(role="user", content=md_escape(question))]
    if image is not None:
        out.append(gr.ChatMessage(role="user", content=image))
    return out


def render_run(run: RunRecord, image_file: ImageFile, *, in_flight: bool = False, action: Any = None,
               resolve: Callable[[str], str | None] | None = None) -> list[gr.ChatMessage]:
    """Chat messages for ``run`` (a ``storage.RunRecord``): question and image, one collapsible message per step
    with its tool calls nested, then the answer or what went wrong. ``in_flight`` adds the pending next step,
    titled from ``action`` (the loop's chosen, still running step) when that is the step in flight; ``resolve``
    maps skill aliases to canonical names for its verb phrase."""
    messages = question_messages(run.question, _file(run.image_id, image_file))
    shown_images = {run.image_id}  # images a model call's prompt refers to are shown once, where first sent
    for step in run.steps:
        parent = f"step-{step.index}"
        messages.append(gr.ChatMessage(role="assistant", content=_step_body(step), metadata={
            "title": step_title(step), "id": parent, "status": "done",
            "duration": round((step.latency_ms or 0.0) / 1000, 3)}))
        messages.extend(_tool_messages(step, parent))
        messages.extend(model_call_messages(step, parent, image_file, run.image_id, shown_images))
        messages.extend(_evidence_messages(step, image_file))
    if in_flight or run.status == "running":
        if in_flight:
            current = action if action is not None and getattr(action, "index", None) == len(run.steps) else None
            messages.append(pending_message(len(run.steps), current, resolve))
        return messages
    messages.extend(self_consistency_messages(run))
    messages.append(final_message(run))
    return messages


def outcome_text(run: RunRecord) -> str:
    """What the run came to, as one Markdown paragraph: the answer (as text, never markup) with its confidence,
    or the abstention with what is missing, or why it stopped or failed."""
    reason = plain_text(getattr(run, "reason", None) or run.error or "no reason was recorded")
    if run.status == "done":
        forced = " *(forced at the turn limit)*" if run.forced_answer else ""
        confidence = getattr(run, "confidence", None)
        sure = f" · P(correct) {confidence:.2f}" if confidence is not None else ""
        return f"**Answer:** {plain_text(run.answer)}{forced}{sure}{_calibrated(run)}"
    if run.status == "abstained":
        return f"**No answer: the run abstained.** {reason}"
    if run.status == "cancelled":
        return "**The run was stopped** before it finished."
    if run.status == "interrupted":
        return f"**The run was interrupted** before it finished: {reason}"
    if run.status == "running":
        return "**Working…**"
    return f"**The run failed:** {reason}"


def _calibrated(run: RunRecord) -> str:
    """Why the confidence is what it is: the evidence kind and the version of the calibration that scored it."""
    trust = getattr(run, "trust", None) or {}
    kind = (trust.get("decision") or {}).get("kind")
    if not trust.get("calibration"):
        return ""
    return f" <sub>(evidence kind {plain_text(kind or '-')}; calibration {plain_text(trust['calibration'])})</sub>"


def final_message(run: RunRecord) -> gr.ChatMessage:
    """The run's outcome as a plain (non-collapsible) message: ``outcome_text`` and a footer."""
    footer = (f"\n\n<sub>run {run.id} · {run.status} · {ms(run.latency_ms)}"
              f"{tokens_note(run.tokens_in, run.tokens_out)}</sub>")
    return gr.ChatMessage(role="assistant", content=outcome_text(run) + footer)


def _prompt_text(call: Any, question_image: str | None, shown: set[str]) -> tuple[str, list[str]]:
    """A model call's exact messages as Markdown, and the ids of the images it sent that are not shown yet."""
    lines, others = [], []
    for message in call.messages:
        parts = message.get("content")
        parts = parts if isinstance(parts, list) else [{"type": "text", "text": str(parts or "")}]
        images = []
        for part in (p for p in parts if isinstance(p, dict) and p.get("type") == "image"):
            image_id = str(part.get("image_id") or "")
            label = f"image `{md_escape(image_id[:12]) or '?'}`"
            if image_id and image_id == question_image:
                images.append(f"{label} (the question image, shown above)")
            elif image_id in shown:
                images.append(f"{label} (shown above)")
            else:
                images.append(f"{label} (shown below)")
                others.append(image_id)
                shown.add(image_id)
        text = "\n".join(str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text")
        head = f"*{md_escape(str(message.get('role', '?')))}*" + "".join(f" · {i}" for i in images)
        lines.append(head + ("\n\n" + code_block(text) if text else ""))
    return "\n\n".join(lines), others


def model_call_messages(step: Step, parent: str, image_file: ImageFile, question_image: str | None = None,
                        shown: set[str] | None = None) -> list[gr.ChatMessage]:
    """Each model call of a step (the orchestrator's turn, an expert inside a skill) as a collapsible child of the
    step: the exact prompt, message by message, and the raw reply before any sanitising; then the images the
    prompt sent that are not on the page yet (crops, views), as thumbnails from the image store. ``shown`` holds
    the ids already on the page (``render_run`` keeps it across steps, so each image appears once)."""
    out: list[gr.ChatMessage] = []
    shown = shown if shown is not None else ({question_image} if question_image else set())
    for i, call in enumerate(getattr(step, "model_calls", None) or []):
        prompt, others = _prompt_text(call, question_image, shown)
        params = " · ".join(f"{md_escape(str(k))} {_num(v)}" for k, v in (call.params or {}).items() if v is not None)
        lines = [f"*{ms(call.latency_ms)} · tokens {call.tokens_in} in / {call.tokens_out} out"
                 + (f" · {params}" if params else "") + "*",
                 "**Prompt** (the exact messages sent):", prompt]
        if call.error:
            lines.append(f"**Error:** {md_escape(call.error)}")
        if getattr(call, "reasoning", None):  # kept apart from the reply: never read for boxes or answers
            lines.append("**Reasoning** (kept apart from the reply):\n\n" + code_block(call.reasoning))
        lines.append("**Raw reply** (before any sanitising):\n\n" + code_block(call.raw_reply or "(empty)"))
        if getattr(call, "boxes", None):
            lines.append("**Boxes** (original-image pixels): " + "; ".join(
                f"{md_escape(str(b.get('label') or 'box'))} {[round(v) for v in b['box']]}" for b in call.boxes))
        title = f"{call.role} call · {call.model}" + (" · failed" if call.error else "")
        out.append(gr.ChatMessage(role="assistant", content="\n\n".join(lines), metadata={
            "title": title, "id": f"{parent}-call-{i}", "parent_id": parent, "status": "done",
            "duration": round((call.latency_ms or 0.0) / 1000, 3)}))
        files = [f for f in (_file(image_id, image_file) for image_id in dict.fromkeys(others)) if f is not None]
        if files:
            caption = f"Step {step.index + 1} · images sent to **{md_escape(call.model)}** in its prompt:"
            out.append(gr.ChatMessage(role="assistant", content=[caption, *files]))
    return out


def self_consistency_messages(run: RunRecord) -> list[gr.ChatMessage]:
    """The sc@k vote of the run that carries it (answers, counts, agreement, the samples as links), the warning of
    a call whose policy could not sample, or which sample of a vote this run is."""
    vote = getattr(run, "vote", None) or {}
    sc = (getattr(run, "config", None) or {}).get("sc") or {}
    if vote:
        counts = " · ".join(f"**{md_escape(str(a))}** ×{n}" for a, n in (vote.get("counts") or {}).items())
        samples = ", ".join(f"[{str(r)[:8]}](?run={r})" if _RUN_ID.match(str(r)) else "?"
                            for r in vote.get("run_ids") or [])
        text = (f"**Self-consistency sc@{_num(vote.get('k'))}:** {counts or 'no sample answered'} — agreement "
                f"{float(vote.get('agreement') or 0.0):.2f} (the answer's confidence is at most this) · "
                f"samples: {samples}")
        return [gr.ChatMessage(role="assistant", content=text)]
    if sc.get("warning"):
        return [gr.ChatMessage(role="assistant", content=f"**Warning:** {md_escape(str(sc['warning']))}")]
    if sc.get("group"):
        return [gr.ChatMessage(role="assistant", content=f"Sample {int(sc.get('index', 0)) + 1} of a "
                                                         f"self-consistency call (sc@{_num(sc.get('k'))}); the vote "
                                                         "is shown on the sample that carries the winning answer.")]
    return []


def error_message(text: str) -> gr.ChatMessage:
    """A problem the person can act on (bad input, a crash), shown in the chat instead of a stack trace."""
    return gr.ChatMessage(role="assistant", content=f"**Error:** {md_escape(text)}")
