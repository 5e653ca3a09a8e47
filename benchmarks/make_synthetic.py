"""Write the synthetic evaluation set: rendered text, shapes to count, charts, 4K needles, BlindTest-style diagrams
and photographs, with known answers.

    python -m benchmarks.make_synthetic OUT_DIR [--per-kind 40] [--seed 0]

Writes ``OUT_DIR/items.jsonl`` (the ``maestro eval`` format, plus ``skill``: the Level-1 skill each question needs,
used to score routing) and the images under ``OUT_DIR/<kind>/images/``.
"""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

#: Generator module (benchmarks.synthetic.<name>) -> the Level-1 skill its questions need.
KINDS = {"text": "OCR", "text_choices": "OCR", "shapes": "Counting", "charts": "Chart", "needles": "Perception",
         "diagrams": None, "photos": None}
#: Categories whose questions need another skill than their generator's: reading the word on a coloured label is
#: scene-text OCR (paper S7.3: locate the object, then read its text), not perception. Diagram circles are counted
#: by the Counting skill (it traces overlapping outlines), like pentagons and nested squares; the other diagram
#: primitives by Diagram-Reasoning.
SKILL_BY_CATEGORY = {"needle_label": "OCR", "diagram_circles": "Counting", "diagram_nested_squares": "Counting",
                     "diagram_pentagons": "Counting", "diagram_grid": "Diagram-Reasoning",
                     "diagram_crossings": "Diagram-Reasoning", "diagram_touching": "Diagram-Reasoning",
                     "photo_faces": "Counting", "photo_background": "Perception"}


def build(out_dir: Path, per_kind: int, seed: int, kinds: list[str] | None = None) -> list[dict]:
    items: list[dict] = []
    for kind in kinds or list(KINDS):
        module = importlib.import_module(f"benchmarks.synthetic.{kind}")
        for item in module.generate(out_dir / kind, per_kind, seed=seed):
            item = dict(item)
            item["image"] = f"{kind}/{item['image']}"
            item.setdefault("skill", SKILL_BY_CATEGORY.get(item.get("category", ""), KINDS[kind]))
            item["category"] = f"{kind}:{item.get('category', kind)}"
            items.append(item)
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "items.jsonl").open("w", encoding="utf-8") as handle:
        for item in items:
            handle.write(json.dumps(item) + "\n")
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--per-kind", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", nargs="*", choices=list(KINDS), default=None)
    args = parser.parse_args()
    items = build(args.out_dir, args.per_kind, args.seed, args.kinds)
    print(f"wrote {len(items)} items to {args.out_dir / 'items.jsonl'}")


if __name__ == "__main__":
    main()
