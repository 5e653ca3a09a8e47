"""New users' wordings: questions about synthetic signs, labels, charts, shapes and 4K needles, asked the way a
person who never read the keyword tables would ask them, each with its known answer.

Every kind of question has a list of wordings. Wordings at even positions are the tuning half (rules may be
decided on them); wordings at odd positions are held out (``split`` = "tune" | "held-out"), so coverage on them
measures how far the routing and the answers generalise to wordings nobody tuned on. Kinds:

- ``sign_exit`` / ``sign_distance``: one part of a road sign's text (an exit number, the distance to a place);
- ``label_number``: a number, a price or a phone number printed on a label;
- ``printed_yesno``: whether a word is printed on a sign (half yes, half no);
- ``chart_title``: the title of a chart (not the whole transcription of the chart);
- ``count``: how many shapes of one kind, in everyday wordings;
- ``needle_colour``: the colour of the one small filled coloured shape in a busy 4K image (gray clutter; in
  every second image also coloured strokes and rings of other colour families).
"""

from __future__ import annotations

import random
from pathlib import Path

from PIL import ImageDraw

from benchmarks.synthetic import charts, shapes
from benchmarks.synthetic.needles import (
    CLUTTER_COLOURS,
    FAMILIES,
    NEEDLE_COLOURS,
    SIZE,
    _draw_shape,
    _free_spot,
    _haystack,
)
from benchmarks.synthetic.text import _render

PLACES = ("AIRPORT", "HARBOR", "CITY CENTRE", "STATION", "MUSEUM", "HOSPITAL", "STADIUM", "UNIVERSITY")
STREETS = ("HARBOR ROAD", "MAPLE AVENUE", "RIVERSIDE DRIVE", "KINGSWAY", "OAK STREET", "MARKET LANE")
WORDS = ("STOP", "EXIT", "PARKING", "MUSEUM", "CLOSED", "OPEN", "DANGER", "TICKETS", "LIBRARY", "BAKERY")
WORDINGS: dict[str, tuple[str, ...]] = {
    "sign_exit": ("What exit number is on the sign?", "Which exit does this sign point to?",
                  "What is the exit number?", "Which exit number is shown?"),
    "sign_distance": ("How far is {place}?", "How many km to {place} according to the sign?",
                      "What distance does the sign give for {place}?", "How far away is {place}?"),
    "label_number": ("What number is written on the label?", "What's the room number?",
                     "What phone number is shown on the label?", "How much does it cost?",
                     "What is the price on the tag?", "Which number is printed on the label?"),
    "printed_yesno": ("Does the sign say {word}?", "Is the word '{word}' on the sign?",
                      "Is {word} written on the sign?", "Does the sign read '{word}'?"),
    "chart_title": ("What does the title say?", "What is the chart's title?", "What is the title of the chart?",
                    "What heading is printed above the chart?"),
    "count": ("How many {kinds} can you see?", "Count the {kinds}.", "What's the number of {kinds} in the picture?",
              "How many {kinds} are there in total?", "Tell me how many {kinds} are drawn.",
              "Could you count the {kinds} for me?"),
    "needle_colour": ("What colour is the small {shape}?", "What color is the little {shape}?",
                      "Which colour is the {shape}?", "What is the colour of the tiny {shape}?"),
}
#: Clutter colours kept out of a needle image: all saturated ones, so the needle is the one coloured shape.
_SATURATED = tuple(c for c in ("red", "blue", "green", "purple", "orange", "yellow", "pink", "brown"))


def generate(out_dir: Path, per_wording: int = 2, seed: int = 0, kinds: list[str] | None = None) -> list[dict]:
    """Render ``per_wording`` images for every wording of every kind (or of ``kinds``) and return the items."""
    rng = random.Random(seed)
    images = Path(out_dir) / "images"
    images.mkdir(parents=True, exist_ok=True)
    items = []
    for kind in kinds or list(WORDINGS):
        for position, wording in enumerate(WORDINGS[kind]):
            for copy in range(per_wording):
                item_id = f"wording_{kind}_{position}_{copy}"
                question, answer, image = _MAKERS[kind](rng, wording, position, copy, images / f"{item_id}.png")
                if image is not None:
                    image.save(images / f"{item_id}.png", compress_level=1)
                items.append({"id": item_id, "image": f"images/{item_id}.png", "question": question,
                              "answer": answer, "category": kind, "wording": wording,
                              "split": "tune" if position % 2 == 0 else "held-out"})
    return items


def _sign_exit(rng, wording, position, copy, path):
    number = rng.randint(2, 99)
    lines = [rng.choice(STREETS), f"EXIT {number}"]
    image, _ = _render(rng, lines, (30, 48), (rng.choice((640, 800)), 480), pad=18)
    return wording, str(number), image


def _sign_distance(rng, wording, position, copy, path):
    places = rng.sample(PLACES, 2)
    distances = rng.sample(range(2, 60), 2)
    lines = [f"{p} {d} km" for p, d in zip(places, distances, strict=True)]
    image, _ = _render(rng, lines, (28, 44), (rng.choice((640, 800)), 480), pad=18)
    asked = rng.randrange(2)
    # "How many km ..." asks for a count of kilometres; the others for the distance as printed.
    answer = str(distances[asked]) if "how many" in wording.lower() else f"{distances[asked]} km"
    return wording.format(place=places[asked].title()), answer, image


def _label_number(rng, wording, position, copy, path):
    if "phone" in wording:
        answer = f"555-{rng.randint(1000, 9999)}"
        lines = ["CALL US", answer]
    elif "cost" in wording or "price" in wording:
        answer = f"${rng.randint(1, 49)}.{rng.choice(('50', '99', '25', '00'))}"
        lines = [rng.choice(("FRESH BREAD", "APPLES", "COFFEE", "ORGANIC TEA")), answer]
    else:
        answer = str(rng.randint(10, 999))
        noun = "ROOM" if "room" in wording else rng.choice(("GATE", "PLATFORM", "LOCKER"))
        lines = [f"{noun} {answer}"]
    image, _ = _render(rng, lines, (22, 40), (rng.choice((400, 520)), 300), pad=14)
    return wording, answer, image


def _printed_yesno(rng, wording, position, copy, path):
    shown = rng.choice(WORDS)
    asked = shown if copy % 2 == 0 else rng.choice([w for w in WORDS if w != shown])
    lines = [shown] if rng.random() < 0.5 else [shown, rng.choice(("AHEAD", "HERE", "TODAY", "ONLY"))]
    image, _ = _render(rng, lines, (30, 56), (rng.choice((480, 640)), 360), pad=18)
    return wording.format(word=asked.title() if rng.random() < 0.5 else asked), \
        "yes" if asked == shown else "no", image


def _chart_title(rng, wording, position, copy, path):
    kind = rng.choice(("bar", "line", "hbar"))
    spec = charts.random_spec(kind, rng)
    while not spec.title:  # a chart without a title has no answer to this question
        spec = charts.random_spec(kind, rng)
    charts.render(spec, path, rng)
    return wording, spec.title, None


def _count(rng, wording, position, copy, path):
    items = shapes.generate(path.parent / "_shapes", 1, seed=rng.randrange(10 ** 6))
    objects = items[0]["objects"]
    kinds = sorted({o["kind"] for o in objects} - {"rectangle"}) or ["square"]  # squares are rectangles too
    kind = rng.choice(kinds)
    from PIL import Image

    image = Image.open(path.parent / "_shapes" / items[0]["image"]).convert("RGB")
    return wording.format(kinds=shapes.PLURAL[kind]), str(sum(o["kind"] == kind for o in objects)), image


def _needle_colour(rng, wording, position, copy, path):
    colour, shape = rng.choice(list(NEEDLE_COLOURS)), rng.choice(("square", "circle", "triangle", "star"))
    image = _haystack(rng, avoid=_SATURATED)
    if copy % 2:  # busier: coloured strokes and rings of other colour families, none of them a filled shape
        draw = ImageDraw.Draw(image)
        others = [rgb for name, rgb in CLUTTER_COLOURS.items() if name not in FAMILIES[colour]]
        for _ in range(rng.randint(60, 120)):
            x, y = rng.randrange(SIZE[0]), rng.randrange(SIZE[1])
            if rng.random() < 0.6:
                draw.line([x, y, x + rng.randint(-500, 500), y + rng.randint(-500, 500)], fill=rng.choice(others),
                          width=rng.randint(2, 6))
            else:
                draw.ellipse([x, y, x + rng.randint(60, 300), y + rng.randint(40, 160)], outline=rng.choice(others),
                             width=rng.randint(2, 5))
    cx, cy = _free_spot(rng, 120)
    _draw_shape(ImageDraw.Draw(image), shape, (cx, cy), rng.randint(22, 34), NEEDLE_COLOURS[colour], rng)
    assert image.size == SIZE
    return wording.format(shape=shape), colour, image


_MAKERS = {"sign_exit": _sign_exit, "sign_distance": _sign_distance, "label_number": _label_number,
           "printed_yesno": _printed_yesno, "chart_title": _chart_title, "count": _count,
           "needle_colour": _needle_colour}
