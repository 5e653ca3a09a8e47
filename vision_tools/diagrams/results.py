"""Result types of the diagram tools: structured findings, a one-line summary, JSON-able data and the evidence image.

Every result also offers ``answer``: the finding as a string in the BlindTest answer format ("2", "Yes", "(3,4)"),
so an orchestrator or a benchmark can compare it directly with a ground truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from vision_tools.image.boxes import Box


@dataclass(frozen=True)
class Circle:
    """A circle in original-image pixels."""

    cx: float
    cy: float
    r: float

    @property
    def box(self) -> Box:
        return Box(self.cx - self.r, self.cy - self.r, self.cx + self.r, self.cy + self.r)

    def to_dict(self) -> dict[str, float]:
        return {"cx": round(self.cx, 1), "cy": round(self.cy, 1), "r": round(self.r, 1)}


@dataclass
class CrossingResult:
    """Where two coloured polylines cross: one point (and its box) per crossing."""

    count: int
    points: list[tuple[float, float]]
    boxes: list[Box]
    colour_a: str
    colour_b: str
    touches: int = 0  # places where the lines meet without crossing
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return str(self.count)

    def summary(self) -> str:
        where = "; ".join(f"({x:.0f}, {y:.0f})" for x, y in self.points)
        text = f"{self.count} crossing(s) of the {self.colour_a} and {self.colour_b} lines"
        if where:
            text += f" at {where}"
        if self.touches:
            text += f"; {self.touches} place(s) where they touch without crossing"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "points": [[round(x, 1), round(y, 1)] for x, y in self.points],
            "boxes": [b.as_list() for b in self.boxes],
            "colour_a": self.colour_a,
            "colour_b": self.colour_b,
            "touches": self.touches,
        }


@dataclass
class ContactResult:
    """Two circles, the gap between their perimeters (negative when they overlap) and whether they touch."""

    circles: list[Circle]
    gap_px: float
    touching: bool
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return "Yes" if self.touching else "No"

    def summary(self) -> str:
        a, b = self.circles
        state = "overlap" if self.gap_px < -1 else ("touch" if self.touching else "are apart")
        return (
            f"the two circles {state}: gap between perimeters {self.gap_px:.1f} px "
            f"(r={a.r:.1f} at ({a.cx:.0f}, {a.cy:.0f}); r={b.r:.1f} at ({b.cx:.0f}, {b.cy:.0f}))"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "circles": [c.to_dict() for c in self.circles],
            "boxes": [c.box.as_list() for c in self.circles],
            "gap_px": round(self.gap_px, 2),
            "touching": self.touching,
        }


@dataclass
class CountResult:
    """A count of shapes of one kind, each instance with its box (and its outline where known)."""

    count: int
    kind: str
    boxes: list[Box]
    outlines: list[list[tuple[float, float]]] = field(default_factory=list)
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return str(self.count)

    def summary(self) -> str:
        return f"{self.count} {self.kind}(s) found" + (
            "" if not self.boxes else "; boxes " + " ".join(str(b.as_list()) for b in self.boxes[:12])
        )

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "kind": self.kind, "boxes": [b.as_list() for b in self.boxes]}


@dataclass
class GridResult:
    """Rows and columns of a ruled table/grid, from its horizontal and vertical lines, checked against the cells."""

    rows: int
    columns: int
    row_lines: list[float]
    column_lines: list[float]
    cells_found: int
    box: Box | None
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def consistent(self) -> bool:
        """Whether the enclosed cells found agree with rows x columns."""
        return self.cells_found == self.rows * self.columns

    @property
    def answer(self) -> str:
        return f"({self.rows},{self.columns})"

    def summary(self) -> str:
        check = "matches" if self.consistent else "does NOT match"
        return (
            f"grid of {self.rows} rows x {self.columns} columns ({len(self.row_lines)} horizontal and "
            f"{len(self.column_lines)} vertical lines); {self.cells_found} enclosed cells {check} rows x columns"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "columns": self.columns,
            "row_lines": [round(v, 1) for v in self.row_lines],
            "column_lines": [round(v, 1) for v in self.column_lines],
            "cells_found": self.cells_found,
            "consistent": self.consistent,
            "box": self.box.as_list() if self.box else None,
        }


@dataclass
class LetterResult:
    """The letter of a word that is highlighted by a drawn circle/ellipse."""

    letter: str
    word: str
    index: int  # 0-based position of the letter in the word, -1 when unknown
    box: Box | None
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return self.letter

    def summary(self) -> str:
        if not self.letter:
            return f"no highlighted letter found (word read: {self.word!r})"
        return f"the highlighted letter is {self.letter!r} (position {self.index + 1} in {self.word!r})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "letter": self.letter,
            "word": self.word,
            "index": self.index,
            "box": self.box.as_list() if self.box else None,
        }
