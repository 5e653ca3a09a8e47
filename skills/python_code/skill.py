"""Python Code skill: run code in the sandbox — code the expert writes (with repair rounds) or code shown to us.

With a neural expert (paper S9.1): the expert writes a program with an assert from the visual example; it runs in
the sandbox; on failure the error is fed back for repair, up to ``REPAIR_ROUNDS`` times. With the tools expert
(code execution): the code comes from a fenced block in the question, or is read from the image by OCR with its
indentation rebuilt from the line positions, and its printed output is the answer.
"""

from __future__ import annotations

import re

from skills.answer_form import format_answer
from skills.base import SkillContext, SkillResult
from skills.runner import ask_expert
from skills.sandbox import run_python

REPAIR_ROUNDS = 3
_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def run(ctx: SkillContext) -> SkillResult:
    if getattr(ctx.expert, "neural", False):
        return _write_and_repair(ctx)
    code = _code_from_question(ctx.question) or _code_from_image(ctx)
    if not code:
        return SkillResult(observation="No code was found in the question or the image, and the tools cannot "
                                       "write a program without a neural expert.")
    result = ctx.trace.call("python.run", run_python, code)
    if not result.ok:
        return SkillResult(observation=f"Code:\n{code}\nIt failed: {result.stderr.strip()[-800:] or 'timed out'}",
                           evidence=result.to_dict())
    output = result.stdout.strip()
    return SkillResult(observation=f"Code:\n{code}\nOutput:\n{output}", answer=format_answer(ctx.question, output),
                       evidence=result.to_dict())


def _write_and_repair(ctx: SkillContext) -> SkillResult:
    history = ""
    total = SkillResult(observation="")
    for attempt in range(1, REPAIR_ROUNDS + 1):
        reply = ask_expert(ctx, history)
        total.expert_ms += reply.expert_ms
        total.tokens_in += reply.tokens_in
        total.tokens_out += reply.tokens_out
        match = _FENCE.search(reply.observation)
        if not match:
            history += f"\nAttempt {attempt}: no ```python block in the reply."
            continue
        code = match.group(1)
        result = ctx.trace.call("python.run", run_python, code)
        if result.ok:
            output = result.stdout.strip()
            total.observation = f"Verified program (attempt {attempt}):\n{code}\nOutput:\n{output}"
            total.answer = output.splitlines()[-1] if output else None
            return total
        history += f"\nAttempt {attempt}:\n```python\n{code}```\nfailed with:\n{result.stderr.strip()[-1500:]}"
    total.observation = f"No program passed its own tests after {REPAIR_ROUNDS} attempts.{history}"
    return total


def _code_from_question(question: str) -> str | None:
    match = _FENCE.search(question)
    return match.group(1) if match else None


def _code_from_image(ctx: SkillContext) -> str | None:
    from vision_tools.text import read_text

    lines = ctx.trace.call("ocr.read_text", read_text, ctx.image).lines
    if not lines:
        return None
    left = min(line.box.x0 for line in lines)
    widths = [line.box.width / max(1, len(line.text)) for line in lines if line.text.strip()]
    char = sorted(widths)[len(widths) // 2] if widths else 8.0
    rebuilt = []
    for line in lines:
        indent = round((line.box.x0 - left) / (char * 4)) * 4
        rebuilt.append(" " * indent + line.text.strip())
    return "\n".join(rebuilt) + "\n"
