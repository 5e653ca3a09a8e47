"""The answer to one field of a document: the printed text, the box(es) it was read from, how it was found, and a
confidence from the OCR scores and the pairing; or, when nothing fits, what is missing."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field  # FieldAnswer has an attribute named ``field``

from PIL import Image, ImageDraw

from vision_tools.image.boxes import Box
from vision_tools.image.drawing import label_font
from vision_tools.image.loading import shrink


@dataclass(frozen=True)
class Candidate:
    """One reading the field could have, with the evidence for it (kept so a run shows what lost and why)."""

    value: str
    score: float
    why: str

    def to_dict(self) -> dict[str, object]:
        return {"value": self.value, "score": round(self.score, 3), "why": self.why}


@dataclass
class FieldAnswer:
    """A field read from a document: ``value`` exactly as printed (None when not found) with its evidence."""

    field: str  # "total", "date", "company", "address", or the printed label asked for ("invoice number")
    value: str | None
    confidence: float
    boxes: list[Box] = dataclass_field(default_factory=list)  # where the value was read, original pixels
    label: str | None = None  # the printed label the value was paired with
    label_box: Box | None = None
    how: str = ""  # how the value was found ("right of 'TOTAL' on its row; cash 20.00 - change 5.90 agrees")
    missing: str | None = None  # when ``value`` is None: what is missing, in words a user can act on
    candidates: list[Candidate] = dataclass_field(default_factory=list)
    annotated: Image.Image | None = dataclass_field(default=None, repr=False)
    #: Nothing else on the page confirms the value (a total no payment, sum or other total line agrees with): a
    #: kind of evidence of its own for the calibration (``agents.trust.evidence``).
    unchecked: bool = False

    @property
    def found(self) -> bool:
        return self.value is not None

    def summary(self) -> str:
        if self.value is None:
            return f"{self.field}: not found ({self.missing})"
        others = [c for c in self.candidates if c.value != self.value][:2]
        rest = ("; also considered " + ", ".join(f"{c.value!r} ({c.score:.2f})" for c in others)) if others else ""
        return f"{self.field}: {self.value!r}, confidence {self.confidence:.2f} ({self.how}){rest}"

    def to_dict(self) -> dict[str, object]:
        return {
            "field": self.field,
            "value": self.value,
            "confidence": round(self.confidence, 3),
            "boxes": [box.as_list() for box in self.boxes],
            "label": self.label,
            "label_box": self.label_box.as_list() if self.label_box is not None else None,
            "how": self.how,
            "missing": self.missing,
            "candidates": [c.to_dict() for c in self.candidates[:5]],
            "unchecked": self.unchecked,
        }

    def draw(self, image: Image.Image, scale: float | None = None) -> FieldAnswer:
        """Set ``annotated``: the value's box in green and its label's in blue, on ``image`` shrunk to at most
        1600 px; or on ``image`` as it is when it is already a preview drawn at ``scale`` of the original."""
        if scale is None:
            image, scale = shrink(image if image.mode == "RGB" else image.convert("RGB"), 1600)
        out = image.copy()
        draw = ImageDraw.Draw(out)
        font = label_font(14)
        if self.label_box is not None:
            draw.rectangle([v * scale for v in self.label_box.as_list()], outline=(30, 90, 220), width=3)
        for box in self.boxes:
            rect = [v * scale for v in box.as_list()]
            draw.rectangle(rect, outline=(0, 180, 0), width=3)
        if self.boxes:
            first = [v * scale for v in self.boxes[0].as_list()]
            caption = f"{self.field} ({self.confidence:.2f})"
            ty = max(0.0, first[1] - 17)
            draw.rectangle([first[0], ty, first[0] + 8 * len(caption) + 6, ty + 17], fill=(0, 180, 0))
            draw.text((first[0] + 3, ty), caption, fill=(255, 255, 255), font=font)
        self.annotated = out
        return self


def union(boxes: list[Box]) -> Box:
    """The smallest box holding all of ``boxes``."""
    return Box(min(b.x0 for b in boxes), min(b.y0 for b in boxes), max(b.x1 for b in boxes), max(b.y1 for b in boxes))
