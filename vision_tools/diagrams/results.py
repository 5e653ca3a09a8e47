"""Result types of the diagram tools: structured findings, a one-line summary, JSON-able data and the evidence image.

Every result also offers ``answer``: the finding as a string in the BlindTest answer format ("2", "Yes", "(3,4)"),
so an orchestrator or a benchmark can compare it directly with a ground truth, and ``confidence``: how far the
tool's own evidence supports it (0-1: the gap's distance from the touching threshold, undecided contacts, cells
that disagree with the lines, doubtful candidates, the OCR score). Whether the image is a drawing at all is the
caller's to weigh (``vision_tools.image.image_kind``).
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
    undecided: int = 0  # contacts whose border reading was unclear, decided by the overlap's size instead
    absent: list[str] = field(default_factory=list)  # the named colours that have no line in the image
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return str(self.count)

    @property
    def confidence(self) -> float:
        return 0.95 if self.undecided == 0 else 0.6

    def summary(self) -> str:
        where = "; ".join(f"({x:.0f}, {y:.0f})" for x, y in self.points)
        if self.absent:
            return f"no {' or '.join(self.absent)} line found, so no crossing can be counted"
        text = f"{self.count} crossing(s) of the {self.colour_a} and {self.colour_b} lines"
        if where:
            text += f" at {where}"
        if self.touches:
            text += f"; {self.touches} place(s) where they touch without crossing"
        if self.undecided:
            text += f"; {self.undecided} contact(s) judged by overlap size (border reading unclear)"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "points": [[round(x, 1), round(y, 1)] for x, y in self.points],
            "boxes": [b.as_list() for b in self.boxes],
            "colour_a": self.colour_a,
            "colour_b": self.colour_b,
            "touches": self.touches,
            "undecided": self.undecided,
            "absent": list(self.absent),
        }


@dataclass
class ContactResult:
    """Two circles, the gap between their perimeters (negative when they overlap) and whether they touch."""

    circles: list[Circle]
    gap_px: float
    touching: bool
    tolerance_px: float = 1.0  # perimeters this close count as touching
    fit_error_px: float = 0.0  # median distance of the rim points from their fitted circle (worse circle)
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return "Yes" if self.touching else "No"

    @property
    def confidence(self) -> float:
        """Near 1 when the gap is far from the touching threshold in units of the rims' own uncertainty (about half
        a pixel, more when the rims fit their circles poorly); 0.5 at the threshold itself."""
        uncertainty = max(0.5, self.fit_error_px)
        margin = abs(self.gap_px - self.tolerance_px) / uncertainty
        return round(0.5 + 0.47 * min(1.0, margin / 4.0), 3)

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
            "fit_error_px": round(self.fit_error_px, 2),
        }


@dataclass
class CountResult:
    """A count of shapes of one kind, each instance with its box (and its outline where known)."""

    count: int
    kind: str
    boxes: list[Box]
    outlines: list[list[tuple[float, float]]] = field(default_factory=list)
    #: Candidates left out that might still be real shapes (hidden in a dense cluster, or not nested): each one
    #: is a reason to doubt the count.
    doubtful: int = 0
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return str(self.count)

    @property
    def confidence(self) -> float:
        return 0.95 if self.doubtful == 0 else (0.6 if self.doubtful == 1 else 0.4)

    def summary(self) -> str:
        text = f"{self.count} {self.kind}(s) found" + (
            "" if not self.boxes else "; boxes " + " ".join(str(b.as_list()) for b in self.boxes[:12])
        )
        return text + (f"; {self.doubtful} doubtful candidate(s) left out" if self.doubtful else "")

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "kind": self.kind, "boxes": [b.as_list() for b in self.boxes],
                "doubtful": self.doubtful}


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

    @property
    def confidence(self) -> float:
        return 0.95 if self.consistent else 0.4

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
    ocr_confidence: float = 0.0  # the OCR score of the word
    by_glyphs: bool = False  # the letter was located on separated glyphs (else by proportional advance widths)
    highlight_share: float = 0.0  # the highlight's box as a share of the image (a circled letter is small)
    annotated: Image.Image | None = field(default=None, repr=False)

    @property
    def answer(self) -> str:
        return self.letter

    @property
    def confidence(self) -> float:
        if not self.letter:
            return 0.0
        if self.highlight_share > 0.3:  # "highlight" spread over the image: coloured marks, not one drawn ring
            return 0.2
        return round(min(0.95, self.ocr_confidence) * (1.0 if self.by_glyphs else 0.8), 3)

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
            "ocr_confidence": round(self.ocr_confidence, 3),
            "by_glyphs": self.by_glyphs,
            "highlight_share": round(self.highlight_share, 3),
        }
