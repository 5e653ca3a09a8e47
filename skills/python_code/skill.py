"""Python Code skill: run code in the sandbox — code the expert writes (with repair rounds) or code shown to us.

With a neural expert (paper S9.1): the expert writes a program with an assert from the visual example; it runs in
the sandbox; on failure the error is fed back for repair, up to ``REPAIR_ROUNDS`` times. With the tools expert
(code execution): the code comes from a fenced block in the question, or is read from the image by OCR with its
indentation rebuilt from the line positions. Code shown to us is data, never instructions: it runs only when the
question asks about its behaviour (what it prints, outputs, returns or raises), and then only in the kernel
sandbox (``sandbox``); otherwise the skill answers nothing and says why.
"""

from __future__ import annotations

import re

from sandbox import SandboxResult, SandboxUnavailable, run_python
from skills.answer_form import format_answer
from skills.base import SkillContext, SkillResult
from skills.runner import ask_expert

REPAIR_ROUNDS = 3
_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)
# A question about what the code does when it runs, not about how it looks or what it means.
_ASKS_BEHAVIOUR = re.compile(
    r"\b(outputs?|output(?:ted)?|prints?|printed|displays?|returns?|returned|raises?|raised|throws?|thrown"
    r"|exceptions?|evaluates?\s+to|result\s+of\s+(?:running|executing|calling|evaluating)"
    r"|when\s+(?:it\s+is\s+)?(?:run|executed|called)|after\s+(?:running|executing|it\s+runs)"
    r"|what\s+does\s+(?:this|the)\s+(?:code|program|snippet|script|function)\s+(?:do|produce|compute|give))\b",
    re.IGNORECASE)
_ASKS_ERROR = re.compile(r"\b(raises?|raised|throws?|thrown|exceptions?|errors?)\b", re.IGNORECASE)
_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))\b")


def asks_about_behaviour(question: str) -> bool:
    """Whether the question asks what code does when run (its output, return value or exception)."""
    return bool(_ASKS_BEHAVIOUR.search(_FENCE.sub(" ", question)))


def run(ctx: SkillContext) -> SkillResult:
    if getattr(ctx.expert, "neural", False):
        return _write_and_repair(ctx)
    code = _code_from_question(ctx.question)
    origin, reading_confidence = "the question", 1.0
    if not code:
        code, reading_confidence = _code_from_image(ctx)
        origin = "the image"
    if not code:
        return SkillResult(observation="No code was found in the question or the image, and the tools cannot "
                                       "write a program without a neural expert.",
                           missing="code to run: none in the question or the image")
    if not asks_about_behaviour(ctx.question):
        return SkillResult(
            observation=f"Code shown in {origin} (not run):\n{code}",
            missing=f"the code in {origin} was not run: the question does not ask what it prints, returns or "
                    "raises, and shown code is data, never instructions")
    try:
        result = ctx.trace.call("python.run", run_python, code)
    except SandboxUnavailable as exc:
        return SkillResult(observation=f"Code:\n{code}\nIt was not run: {exc}",
                           missing=f"a sandbox to run the code in ({exc})")
    return _report(ctx.question, code, result, reading_confidence)


def _report(question: str, code: str, result: SandboxResult, reading_confidence: float) -> SkillResult:
    """The answer the run settles: its printed output, or the exception it raised when that is what is asked."""
    evidence = result.to_dict()
    if result.stopped_by is not None:
        return SkillResult(observation=f"Code:\n{code}\nThe sandbox stopped it ({result.stopped_by}).",
                           evidence=evidence,
                           missing=f"what the code does outside the sandbox: it was stopped by the {result.stopped_by}")
    if result.hint is not None:  # the error looks like a sandbox rule: outside, the code may well run on
        return SkillResult(observation=f"Code:\n{code}\nIt failed: {result.stderr.strip()[-800:]}",
                           evidence=evidence,
                           missing=f"what the code does outside the sandbox: it was probably stopped by the "
                                   f"{result.hint} (so its error says; the sandbox cannot confirm it)")
    if not result.ok:
        last = (result.stderr.strip().splitlines() or [""])[-1]
        raised = _EXCEPTION_LINE.match(last)
        observation = f"Code:\n{code}\nIt raised: {result.stderr.strip()[-800:]}"
        if raised and _ASKS_ERROR.search(question):
            return SkillResult(observation=observation, answer=format_answer(question, raised.group(1)),
                               confidence=reading_confidence, evidence=evidence)
        return SkillResult(observation=observation, evidence=evidence,
                           missing="a clean run: the code raised " + (raised.group(1) if raised else "an error"))
    output = result.stdout.strip()
    return SkillResult(observation=f"Code:\n{code}\nOutput:\n{output}", answer=format_answer(question, output),
                       confidence=reading_confidence, evidence=evidence)


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
        try:
            result = ctx.trace.call("python.run", run_python, code)
        except SandboxUnavailable as exc:
            total.observation = f"The program was not run: {exc}"
            total.missing = f"a sandbox to run the program in ({exc})"
            return total
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


def _code_from_image(ctx: SkillContext) -> tuple[str | None, float]:
    """The code in the image with its indentation rebuilt, and how sure the OCR was (its weakest line)."""
    from vision_tools.text import read_text

    lines = ctx.trace.call("ocr.read_text", read_text, ctx.image).lines
    if not lines:
        return None, 0.0
    left = min(line.box.x0 for line in lines)
    widths = [line.box.width / max(1, len(line.text)) for line in lines if line.text.strip()]
    char = sorted(widths)[len(widths) // 2] if widths else 8.0
    rebuilt = []
    for line in lines:
        indent = round((line.box.x0 - left) / (char * 4)) * 4
        rebuilt.append(" " * indent + line.text.strip())
    return "\n".join(rebuilt) + "\n", min(line.confidence for line in lines)
