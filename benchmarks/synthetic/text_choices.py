"""Multiple-choice questions about rendered signs and labels: which offered text is printed.

Each item is a sign or label rendered like ``benchmarks.synthetic.text`` (DejaVu fonts, coloured boards, a soft
scene) with four lettered options: the printed phrase, the same phrase with one word swapped (a near miss), and
two other phrases. The question is worded in one of several ways a user would ask; the answer is the letter.
A third are small labels (14-20 px), the rest signs.
"""

from __future__ import annotations

import random
from pathlib import Path

from benchmarks.synthetic.text import WORDS, _phrase, _render

QUESTIONS = (
    "What is written on the sign?",
    "What does the sign say?",
    "Which of these is printed on the board?",
    "Which text appears on the sign?",
    "What does the label read?",
    "Which words are shown on this sign?",
)
FORMAT = "Answer with the option's letter from the given choices directly."


def generate(out_dir: Path, n: int, seed: int = 0) -> list[dict]:
    """Render ``n`` signs into ``out_dir/images`` and return their multiple-choice items."""
    rng = random.Random(seed + 7919)
    images = Path(out_dir) / "images"
    images.mkdir(parents=True, exist_ok=True)
    items = []
    for i in range(n):
        printed = _phrase(rng, rng.randint(1, 3))
        options = [printed, _near_miss(rng, printed)]
        while len(options) < 4:
            other = _phrase(rng, rng.randint(1, 3))
            if other.lower() not in {o.lower() for o in options}:
                options.append(other)
        rng.shuffle(options)
        letter = "ABCD"[options.index(printed)]
        label = rng.random() < 0.3
        size_range, canvas, pad = ((14, 20), (320, 200), 6) if label else ((28, 60), (640, 420), 18)
        image, meta = _render(rng, [printed], size_range, canvas, pad=pad)
        name = f"text_choice_{i:04d}.png"
        image.save(images / name, optimize=False, compress_level=1)
        question = rng.choice(QUESTIONS)
        if label:
            question = question.replace("sign", "label").replace("board", "label")
        lines = [question, *(f"{'ABCD'[k]}. {o}" for k, o in enumerate(options)), FORMAT]
        items.append({
            "id": f"text_choice_{i:04d}",
            "image": f"images/{name}",
            "question": "\n".join(lines),
            "answer": letter,
            "match": "choice",
            "category": "text_choice",
            "meta": {"printed": printed, "options": options, **meta},
        })
    return items


def _near_miss(rng: random.Random, phrase: str) -> str:
    """``phrase`` with one word replaced by another word of the vocabulary (same case style)."""
    words = phrase.split()
    k = rng.randrange(len(words))
    replacement = rng.choice([w for w in WORDS if w.lower() != words[k].lower()])
    if words[k].isupper():
        replacement = replacement.upper()
    elif words[k][:1].isupper():
        replacement = replacement.title()
    words[k] = replacement
    return " ".join(words)
