"""The one interface every orchestrator implements, and the context it is given each turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from PIL import Image

from agents.routing.decision import RoutingDecision
from skills.answer_form import AnswerForm
from storage.trace import ModelCall, Step

if TYPE_CHECKING:
    from agents.registry import Registry


@dataclass
class PolicyTurn:
    """The text a policy wrote for one turn, what it cost, and why it chose what it chose."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    routing: RoutingDecision | None = None
    model_calls: list[ModelCall] = field(default_factory=list)  # the orchestrator model's exact prompt and reply


@dataclass
class Context:
    """What the policy sees: the question, the image, the registry and every earlier step."""

    question: str
    image: Image.Image
    registry: Registry  # agents.registry.Registry
    steps: list[Step]
    max_turns: int
    turn: int  # 0-based index of the turn being asked for
    force_answer: bool = False  # the turn limit is reached: the next turn must be an <answer>
    repair_hint: str | None = None  # set after a malformed turn: what was wrong with it
    form: AnswerForm = field(default_factory=lambda: AnswerForm("free"))  # the form the question asks for

    @property
    def searches(self) -> list[Step]:
        return [s for s in self.steps if s.kind == "search"]


class Policy(Protocol):
    name: str

    def next_turn(self, ctx: Context) -> PolicyTurn: ...


class ScriptedPolicy:
    """Plays back fixed turns, one per call (for tests and for replaying a stored trajectory)."""

    name = "scripted"

    def __init__(self, turns: list[str]) -> None:
        self._turns = list(turns)

    def next_turn(self, ctx: Context) -> PolicyTurn:
        if ctx.turn < len(self._turns):
            return PolicyTurn(self._turns[ctx.turn])
        return PolicyTurn("<think>No more scripted turns.</think>\n<answer>unknown</answer>")
