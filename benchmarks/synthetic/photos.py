"""Photographs with known answers: collages of one to three copies of scikit-image's astronaut portrait (a real
photograph shipped inside the package) on a plain canvas, at varied sizes, mirrored or not.

Questions, cycled: how many faces there are (the offline face detector's job), and the colour of the canvas around
the photos (the background question, answered from the border). Photos are where the pixel tools for drawings
must stay silent, so the questions here are only those the offline tools can settle on a photograph.

scikit-image is a benchmark/test dependency only; the runtime never imports this module.
"""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageOps
from skimage import data

#: Canvas colours (palette names as ``vision_tools.image.name_colour`` says them) and their RGB values.
CANVASES = {"white": (246, 246, 244), "gray": (150, 150, 150), "blue": (40, 80, 200), "green": (40, 150, 60),
            "yellow": (235, 205, 30), "black": (18, 18, 18)}
_FACE_WORDINGS = ("How many faces are in this photo?", "How many faces can you see in the picture?",
                  "Count the faces in the image.")
_BACKGROUND_WORDINGS = ("What colour is the background?", "What is the background color of this picture?")


def generate(out_dir: Path, n: int, seed: int = 0) -> list[dict]:
    """Write ``n`` photo collages into ``out_dir/images/`` and return their items."""
    rng = random.Random(seed)
    portrait = Image.fromarray(data.astronaut())
    images = Path(out_dir) / "images"
    images.mkdir(parents=True, exist_ok=True)
    items = []
    for i in range(n):
        copies, side = rng.choice((1, 2, 3)), rng.choice((240, 320, 400))
        canvas_name = rng.choice(list(CANVASES))
        gap = rng.randint(16, 48)
        canvas = Image.new("RGB", (copies * side + (copies + 1) * gap, side + 2 * gap), CANVASES[canvas_name])
        for k in range(copies):
            photo = portrait.resize((side, side), Image.Resampling.LANCZOS)
            if rng.random() < 0.5:
                photo = ImageOps.mirror(photo)
            canvas.paste(photo, (gap + k * (side + gap), gap))
        name = f"photo_{seed}_{i:04d}.jpg"
        canvas.save(images / name, quality=rng.choice((80, 90, 95)))
        if i % 2 == 0:
            question, answer, category = rng.choice(_FACE_WORDINGS), str(copies), "photo_faces"
        else:
            question, answer, category = rng.choice(_BACKGROUND_WORDINGS), canvas_name, "photo_background"
        items.append({"id": f"photo_{seed}_{i:04d}", "image": f"images/{name}", "question": question,
                      "answer": answer, "category": category,
                      "meta": {"copies": copies, "side": side, "canvas": canvas_name}})
    return items
