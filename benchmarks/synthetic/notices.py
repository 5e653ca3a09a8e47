"""Labelled sign/notice images with questions, as calibration data for visual question answering.

Five kinds are cycled: opening hours, price lists, direction signs, closure notices and product
labels. Each image gets 4 questions, about 1 in 4 of them not answerable from the image. An answer
is the exact text span printed on the image, "Yes"/"No", or "UNANSWERABLE".

They are labelled data for the rules that read facts off signs in users' words (opening hours, a price or a
distance beside its name, a fact a notice states, a quantity on a label), which answer only once labelled examples
certify them (``skills/ocr/spans.py: own_record``). Two seeds of 100 signs are part of the shipped calibration
(``scripts/fit_calibration.sh``): they certify the opening-hours rule (76 of 76 candidates right). An item lists the
other right forms of its answer (``alternatives``: "5" for "Platform 5", a date without its weekday), without which
right answers had been judged wrong and the set's validation ECE was 0.11-0.14 (docs/trust.md §8).
The wordings are in ``benchmarks/synthetic/notice_wordings.py``.

CLI: ``python -m benchmarks.synthetic.notices OUT_DIR --n 60 --seed 0`` writes OUT_DIR/images/*.png and
OUT_DIR/items.jsonl.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import pathlib
import random
import re
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from benchmarks.synthetic import FONT_DIR, write_items
from benchmarks.synthetic.notice_wordings import (
    D_Q,
    DAY_ASK,
    DAYS,
    F_UN,
    FAMILIES,
    H_CLOSE,
    H_OPEN,
    H_UN,
    H_YN,
    HOURS_NAMES,
    KINDS,
    NUT_Q,
    NUTRIENTS,
    P_Q,
    PALETTES,
    PLACE_TYPES,
    PLACES,
    PRICE_THEMES,
    PRODUCTS,
    Q_UN,
    REASONS,
    STATEMENTS,
    UNANS,
    UNIT_Q,
)

Row = tuple[str, ...]  # one string: a full-width line; two strings: left and right column
Spec = dict[str, Any]  # title, rows, qa [(question, answer)], un [questions], optional mono/center/arrows


def _time(h: int, m: int, st: tuple[bool, str, bool, bool, bool]) -> str:
    is24, sep, full, gap, upper = st
    if is24:
        return f"{h:02d}{sep}{m:02d}" if full else f"{h}{sep}{m:02d}"
    core = f"{h % 12 or 12}{sep}{m:02d}" if (m or full) else str(h % 12 or 12)
    suf = "am" if h < 12 else "pm"
    return core + (" " if gap else "") + (suf.upper() if upper else suf)


def _style(rng: random.Random) -> tuple[bool, str, bool, bool, bool]:
    return rng.random() < 0.5, rng.choice("::."), rng.random() < 0.5, rng.random() < 0.4, rng.random() < 0.3


def _layout(rng: random.Random, pairs: list[tuple[str, str]], seps: tuple[str, ...]) -> tuple[list[Row], bool]:
    """Two drawn columns, one space/dot-aligned string (often monospaced), or one inline string per row."""
    mode = rng.choice(("cols", "cols", "aligned", "inline"))
    if mode != "aligned":
        sep = rng.choice(seps)
        return (list(pairs) if mode == "cols" else [(f"{a}{sep}{b}",) for a, b in pairs]), False
    w, dots = max(len(a) for a, _ in pairs), rng.random() < 0.3
    rows = [(f"{a} {'.' * (w - len(a) + 3)} {b}" if dots else f"{a.ljust(w)}  {b}",) for a, b in pairs]
    return rows, rng.random() < 0.75


def _hours(rng: random.Random) -> Spec:
    name, short = rng.choice(HOURS_NAMES)
    bounds = [0, *sorted(rng.sample(range(1, 7), rng.randint(1, 3))), 7]
    st, ddash = _style(rng), rng.choice((" – ", " - ", "-", " to "))
    dash = rng.choice((" – ", " - ", "–", "-", " to "))
    dfmt, closed = rng.choice(("full", "short", "upper")), rng.choice(("Closed", "CLOSED", "closed"))
    day = [d if dfmt == "full" else d[:3].upper() if dfmt == "upper" else d[:3] for d in DAYS]
    sched: dict[int, tuple[str, str] | None] = {}
    pairs = []
    for a, b in zip(bounds[:-1], [x - 1 for x in bounds[1:]], strict=True):
        hrs = None
        if not (a >= 5 and rng.random() < 0.45):  # weekend groups are sometimes closed
            hrs = (_time(rng.choice((7, 8, 9, 10, 11)), rng.choice((0, 0, 30)), st),
                   _time(rng.choice((13, 16, 17, 18, 19, 20, 22)), rng.choice((0, 0, 30)), st))
        label = day[a] if a == b else f"{day[a]}{ddash}{day[b]}"
        pairs.append((label, closed if hrs is None else f"{hrs[0]}{dash}{hrs[1]}"))
        sched.update(dict.fromkeys(range(a, b + 1), hrs))
    rows, mono = _layout(rng, pairs, (" ", "  ", ": "))
    nm, qa = rng.choice((short, name.lower())), []
    for d in rng.sample(range(7), 7):  # one question per day, so the facts asked are distinct
        da, hrs, r = rng.choice(DAY_ASK[d]), sched[d], rng.random()
        if hrs is None or r < 0.25:
            qa.append((rng.choice(H_YN).format(d=da, n=nm), "No" if hrs is None else "Yes"))
        else:
            qa.append((rng.choice(H_OPEN if r < 0.6 else H_CLOSE).format(d=da, n=nm), hrs[0] if r < 0.6 else hrs[1]))
    return {"title": name, "rows": rows, "mono": mono, "qa": qa, "un": list(H_UN)}


def _price(rng: random.Random) -> Spec:
    titles, (lo, hi), items, extra, unlisted_ok, jitter = rng.choice(PRICE_THEMES)
    idx = sorted(rng.sample(range(len(items)), rng.randint(3, min(6, len(items)))))  # items are never repeated
    if jitter:
        rng.shuffle(idx)
    cur, base, comma = rng.choice("£$€"), rng.uniform(lo, hi), rng.random() < 0.5
    suffix, pairs, qa = cur == "€" and rng.random() < 0.5, [], []
    for i in idx:
        p = round(base * items[i][2] * (rng.uniform(0.85, 1.15) if jitter else 1) * 20) / 20
        price = (f"{p:.2f}".replace(".", "," if comma else ".") + " €") if suffix else f"{cur}{p:.2f}"
        pairs.append((items[i][0], price))
        qa.append((rng.choice(P_Q).format(a=items[i][1]), price))
    rows, mono = _layout(rng, pairs, ("  ", " – ", " ... "))
    un = list(extra) + [rng.choice(P_Q).format(a=it[1]) for j, it in enumerate(items) if unlisted_ok and j not in idx]
    return {"title": rng.choice(titles), "rows": rows, "mono": mono, "qa": qa, "un": un}


def _distance(rng: random.Random) -> Spec:
    walk, metric, places = rng.random() < 0.35, rng.random() < 0.6, rng.sample(PLACES, rng.randint(2, 4))
    mi_word, wunit = rng.choice((" mi", " miles")), rng.choice((" min", " mins"))
    wfmt = rng.choice(("{}  ({})", "{} / {}"))
    pairs, qa, un = [], [], []
    for name, ask in places:
        km = rng.uniform(0.2, 4.5 if walk else 30)
        v, unit = (km, " km") if metric else (km / 1.609, mi_word)
        dist = f"{v:.1f}{unit}" if v < 9.5 else f"{round(v)}{unit}"
        if v < (0.9 if metric else 0.3):  # short distances in metres or yards
            dist = f"{round(km * 20) * 50} m" if metric else f"{round(v * 1760 / 50) * 50} yds"
        qa.append((rng.choice(D_Q + tuple(q for suf, q in UNIT_Q.items() if dist.endswith(suf))).format(a=ask), dist))
        wt = f"{max(5, round(km * 12 / 5) * 5)}{wunit}"
        if walk:
            qa.append((rng.choice(("how long to walk to {}?", "walking time to {}?", "mins walk to {}")).format(ask),
                       wt))
        else:
            un.append(f"how long is the walk to {ask}?")
        pairs.append((name, wfmt.format(dist, wt) if walk else dist))
        un += [f"how long does it take to drive to {ask}", f"is there a bus to {ask}?"]
    un += [rng.choice(D_Q).format(a=ask) for name, ask in PLACES if (name, ask) not in places]
    rows, mono = _layout(rng, pairs, (" ", "  "))
    titles = ("Coastal Path", "Heritage Trail", "Town Trail") if walk else ("Tourist Information", "",
                                                                            "Welcome to Porthaven", "Cycle Route 7")
    arrows = [rng.choice("<>^") for _ in rows] if rng.random() < 0.7 else None
    return {"title": rng.choice(titles), "rows": rows, "mono": mono, "qa": qa, "un": un, "arrows": arrows}


def _fact(rng: random.Random) -> Spec:
    noun, prep, values, facs, place_q = rng.choice(PLACE_TYPES)
    place, fac, st = f"{noun} {rng.choice(values)}", rng.choice(facs), _style(rng)
    d = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(1000))
    th = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(d.day, "th")
    date = rng.choice((f"{d:%A} {d.day} {d:%B}", f"{d:%a} {d.day} {d:%b} {d.year}", f"{d:%d/%m/%Y}",
                       f"{d.day} {d:%B} {d.year}", f"{d:%A} {d.day}{th} {d:%B}"))
    h1, dash, reason, ext = rng.randint(6, 17), rng.choice((" – ", " - ", "–")), rng.choice(REASONS), rng.random() < .6
    t1, t2 = _time(h1, rng.choice((0, 30)), st), _time(h1 + rng.randint(1, 6), 0, st)
    shown = reason[0].upper() + reason[1:] if rng.random() < 0.5 else reason
    contact = f"{rng.choice(('ext. ', 'Ext ', 'ext '))}{rng.randint(2000, 8999)}" if ext else rng.choice(
        (f"01632 960{rng.randint(0, 999):03d}", f"555-01{rng.randint(0, 99):02d}"))  # fictional number ranges
    rows = [f"The {fac} {prep} {place}", "will be closed"] if rng.random() < 0.6 else [
        f"Location: {place}", f"Closed: {fac[0].upper()}{fac[1:]}"]
    rows += [rng.choice(("Date: {}", "On {}")).format(date),
             rng.choice((f"Time: {t1}{dash}{t2}", f"From {t1} to {t2}", f"Between {t1} and {t2}", f"{t1}{dash}{t2}")),
             f"Reason: {shown}" if shown != reason else f"Due to {shown}"]
    qa = [(rng.choice(place_q), place), (rng.choice(("what date is the closure", "which day is the work on",
                                                    "what date pls")), date),
          (rng.choice(("what time does it start", "when does the closure begin?", "what time does work start")), t1),
          (rng.choice(("when does it reopen", "what time does it finish?", "till what time is it closed")), t2),
          (rng.choice(("why is it closed", "whats the reason for the closure?", "reason for closing?")), shown)]
    un = list(F_UN) + ([] if ext else ["what's the extension number"])
    stmt = rng.choice(STATEMENTS) if rng.random() < 0.7 else None
    if stmt:
        rows.append(stmt[0])
        qa.append(rng.choice(stmt[1]))
    if not stmt or stmt[0].startswith("Toilets"):  # "no step-free access" might imply the lift, so not asked
        un.append("is the lift affected?")
    rows.append(rng.choice(("Enquiries: {}", "Questions? Call {}", "Contact: {}")).format(contact))
    qa.append((rng.choice(("what's the extension number", "which ext do i call?", "extension to call for questions?")
                          if ext else ("whats the phone number", "number to call pls", "what number should i ring?")),
               contact))
    rows += ["We apologise for any inconvenience."] if rng.random() < 0.4 else []
    title = rng.choice(("NOTICE", "Closure Notice", "PLANNED MAINTENANCE", "Important Notice", "Temporary Closure"))
    return {"title": title, "rows": [(r,) for r in rows], "qa": qa, "un": un, "center": rng.random() < 0.6}


def _quantity(rng: random.Random) -> Spec:
    name, liquid, noun = rng.choice(PRODUCTS)
    sp, un = rng.choice((" ", "")), list(Q_UN)
    if liquid:
        amt = rng.choice([f"{v}{sp}ml" for v in (250, 330, 500, 750)] + [f"1{sp}L", f"1.5{sp}L"])
        rows = [rng.choice(("{}", "Volume {}", "Contents: {}")).format(amt)]
        qs = ("how much is in it", "whats the volume?", "how much does it hold") + ("how many ml's",) * ("ml" in amt)
    else:
        amt = rng.choice([f"{v}{sp}g" for v in (125, 200, 250, 400, 500, 750)] + [f"1{sp}kg", f"1.5{sp}kg"])
        rows = [rng.choice(("Net wt {}", "NET WEIGHT {}", "Net {}", "Net weight: {}")).format(amt)]
        qs = ("how heavy is the pack", "whats the net weight?", "how much does it weigh", "weight of the pack?")
    qa = [(rng.choice(qs), amt)]
    if noun and rng.random() < 0.6:
        k = str(rng.choice((4, 6, 8, 10, 12, 24)))
        rows.append(rng.choice((f"Pack of {k}", f"Contains {k} {noun}", f"{k} {noun}")))
        qa.append((rng.choice(("how many {} are in the pack", "how many {}?", "no. of {} in the box")).format(noun), k))
    if rng.random() < 0.5 and (not liquid or "L" in amt):  # no "serves 4" on a 250 ml drink
        s = str(rng.randint(2, 8))
        rows.append(rng.choice((f"Serves {s}", f"Approx. {s} servings", f"{s} servings")))
        qa.append((rng.choice(("how many does it serve", "how many servings?", "serves how many?")), s))
    elif len(qa) == 1:  # with a pack count, "how many servings" could be argued from it
        un.append("how many servings?")
    unit = "ml" if liquid else "g"
    p_show, p_ask = rng.choice((f"100{unit}", f"100 {unit}")), rng.choice((f"100{unit}", f"100 {unit}"))
    rows.append(rng.choice(("Nutrition per {}", "Typical values per {}", "NUTRITION (per {})")).format(p_show))
    keep, kj = rng.sample(range(8), rng.randint(4, 6)), rng.randint(80, 300) if liquid else rng.randint(300, 2200)
    vals, pairs = [rng.uniform(0.1, 6) if liquid else rng.uniform(0.5, 45) for _ in range(8)], []
    vals[2], vals[4] = vals[1] * rng.uniform(0.1, 0.7), vals[3] * rng.uniform(0.05, 0.8)  # part <= whole
    vals[7] = rng.uniform(0.02, 0.3 if liquid else 2.5)  # salt
    for i in range(8):  # one column of values only, so each nutrient has a single printed value
        kcal = f"{round(kj / 4.184)}{sp}kcal"
        txt = f"{kj}{sp}kJ / {kcal}" if i == 0 else f"{vals[i]:.2f}{sp}g" if i == 7 else f"{vals[i]:.1f}{sp}g"
        if i in keep:
            label = NUTRIENTS[i][-1] if i in (2, 4) and i - 1 not in keep else rng.choice(NUTRIENTS[i])
            pairs.append((label, txt))
            qa.append((rng.choice(NUT_Q[i]).format(p=p_ask), kcal if i == 0 else txt))
        else:
            un.append(rng.choice(NUT_Q[i]).format(p=p_ask))
    nut, mono = _layout(rng, pairs, ("  ", ": "))
    return {"title": name, "rows": [(r,) for r in rows] + nut, "mono": mono, "qa": qa, "un": un}


def _casual(q: str, rng: random.Random) -> str:
    """Vary the register: an occasional letter-swap typo, all-lowercase without '?', or a tidy form."""
    r, words = rng.random(), q.split(" ")
    long_words = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
    if r < 0.07 and long_words:
        i = rng.choice(long_words)
        j = rng.randrange(1, len(words[i]) - 2)
        words[i] = words[i][:j] + words[i][j + 1] + words[i][j] + words[i][j + 2:]
        return " ".join(words)
    if r < 0.3:
        return q.lower().rstrip("?")
    return q[0].upper() + q[1:] + ("" if q.endswith("?") else "?") if r < 0.42 else q


def _arrow(draw: ImageDraw.ImageDraw, cx: float, cy: float, s: float, d: str, fill: tuple[int, ...]) -> None:
    pts = [(-1, -0.18), (0.1, -0.18), (0.1, -0.55), (1, 0), (0.1, 0.55), (0.1, 0.18), (-1, 0.18)]
    c, sn = {">": (1, 0), "<": (-1, 0), "^": (0, -1)}[d]
    draw.polygon([(cx + s * (x * c - y * sn), cy + s * (x * sn + y * c)) for x, y in pts], fill=fill)


def _background(rng: random.Random, nrng: np.random.Generator, w: int, h: int) -> Image.Image:
    c1 = (rng.randint(50, 215) + np.array([rng.uniform(-35, 35) for _ in range(3)], np.float32)).clip(0, 255)
    c2 = (c1 + np.array([rng.uniform(-50, 50) for _ in range(3)], np.float32)).clip(0, 255)
    t = np.linspace(0, 1, h)[:, None, None] if rng.random() < 0.5 else np.linspace(0, 1, w)[None, :, None]
    kind = rng.choice(("plain", "gradient", "texture"))
    bg = np.broadcast_to(c1 + (c2 - c1) * t if kind == "gradient" else c1, (h, w, 3)).astype(np.float32)
    if kind == "texture":
        small = Image.fromarray(nrng.normal(128, 30, (h // 16 + 2, w // 16 + 2)).clip(0, 255).astype(np.uint8), "L")
        tex = small.resize((w, h), Image.Resampling.BICUBIC).filter(ImageFilter.GaussianBlur(6))
        bg = bg + (np.asarray(tex, np.float32)[..., None] - 128) * 0.5 + nrng.normal(0, 4, (h, w, 1))
    return Image.fromarray(bg.clip(0, 255).astype(np.uint8), "RGB")


def _render(spec: Spec, rng: random.Random, nrng: np.random.Generator,
            fonts: list[tuple[str, str, bool]]) -> tuple[Image.Image, list[str]]:
    """Lay out the board, assert every text box lies inside it without overlaps, place it on a background."""
    reg, bold, _ = rng.choice([f for f in fonts if f[2]] if spec.get("mono") and any(f[2] for f in fonts) else fonts)
    board_c, text_c, title_c = rng.choice(PALETTES)
    title, rows, arrows = spec["title"], spec["rows"], spec.get("arrows")
    w, mx, my = rng.randint(700, 1600), rng.randint(24, 70), rng.randint(24, 90)
    size, tscale, spacing = rng.randint(30, 52), rng.uniform(1.2, 1.6), rng.uniform(1.3, 1.7)
    while True:  # shrink the font (not below 28 px), then widen the image (not beyond 1600 px) until it fits
        body, head = ImageFont.truetype(reg, size), ImageFont.truetype(bold, round(size * tscale))
        pad, gap, aw = round(size * 0.9), round(size * 1.5), round(size * 1.6) if arrows else 0
        widths = [aw + sum(body.getlength(s) for s in r) + gap * (len(r) - 1) for r in rows]
        need = 2 * pad + math.ceil(max([head.getlength(title), *widths]))
        if need <= w - 2 * mx:
            break
        if size > 28:
            size -= 2
        elif w < 1600 or mx > 12:
            w, mx = min(1600, w + need - (w - 2 * mx)), mx if w < 1600 else 12
        else:
            raise ValueError(f"content too wide: {title!r}")
    assert body.getbbox("Hg")[3] - body.getbbox("Hg")[1] >= 22, "text must be at least 22 px tall"
    asc, desc = body.getmetrics()
    lh, th = round((asc + desc) * spacing), (sum(head.getmetrics()) + round(size * 0.8)) if title else 0
    bw, bh = min(w - 2 * mx, max(need, round((w - 2 * mx) * rng.uniform(0.7, 1.0)))), 2 * pad + th + len(rows) * lh
    border, board = rng.choice((0, 0, 3, 6)), Image.new("RGBA", (bw, bh), (0, 0, 0, 0))
    ImageDraw.Draw(board).rounded_rectangle((0, 0, bw - 1, bh - 1), radius=rng.choice((0, 10, 22)), fill=board_c,
                                            outline=title_c if border else None, width=border)
    arr = np.asarray(board).astype(np.float32)
    arr[..., :3] += nrng.normal(0, rng.uniform(1, 6), (bh, bw, 1)) * (arr[..., 3:] > 0)  # light board texture
    board = Image.fromarray(arr.clip(0, 255).astype(np.uint8), "RGBA")
    draw, boxes, drawn = ImageDraw.Draw(board), [], []

    def put(x: float, y: float, s: str, font: ImageFont.FreeTypeFont, fill: tuple[int, ...]) -> None:
        draw.text((x, y), s, font=font, fill=fill, anchor="la")
        boxes.append(draw.textbbox((x, y), s, font=font, anchor="la"))
        drawn.append(s)

    if title:
        put((bw - head.getlength(title)) / 2 if rng.random() < 0.7 else pad, pad, title, head, title_c)
        if rng.random() < 0.6:
            ly = pad + sum(head.getmetrics()) + round(size * 0.35)
            draw.line((pad, ly, bw - pad, ly), fill=title_c, width=3)
    for i, r in enumerate(rows):
        y = pad + th + i * lh + (lh - asc - desc) / 2
        if arrows:
            _arrow(draw, pad + aw * 0.38, y + asc * 0.6, size * 0.55, arrows[i], text_c)
            boxes.append((pad, y, pad + aw * 0.76, y + asc * 1.2))
        if len(r) == 1:
            x = (bw - body.getlength(r[0])) / 2 if spec.get("center") and not arrows else pad + aw
            put(x, y, r[0], body, text_c)
        else:
            put(pad + aw, y, r[0], body, text_c)
            put(bw - pad - body.getlength(r[1]), y, r[1], body, text_c)
    for k, (x0, y0, x1, y1) in enumerate(boxes):
        assert border < x0 and x1 < bw - border and border < y0 and y1 < bh - border, f"text outside board: {drawn}"
        assert all(x1 <= a or c <= x0 or y1 <= b or d <= y0 for a, b, c, d in boxes[k + 1:]), f"overlap: {drawn}"
    rot = board.rotate(rng.uniform(-4, 4) if rng.random() < 0.5 else 0, Image.Resampling.BICUBIC, expand=True)
    rot = rot if rot.width <= w - 16 else board  # the whole board always stays inside the image
    h, x = rot.height + 2 * my, rng.randint(8, w - rot.width - 8)
    img = _background(rng, nrng, w, h)
    if rng.random() < 0.5:  # soft drop shadow
        mask = rot.getchannel("A").point(lambda v: int(v * 0.35)).filter(ImageFilter.GaussianBlur(6))
        img.paste(Image.new("RGB", rot.size, (0, 0, 0)), (x + 6, my + 8), mask)
    img.paste(rot, (x, my), rot)
    if rng.random() < 0.5:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.0)))
    out = np.asarray(img, np.float32) + nrng.normal(0, rng.uniform(0, 5), (h, w, 1))
    return Image.fromarray(out.clip(0, 255).astype(np.uint8), "RGB"), drawn


def render_dataset(out_dir: pathlib.Path, n: int, seed: int = 0) -> tuple[list[dict[str, str]], dict[str, list[str]]]:
    """Like generate(), but also return the strings drawn on each image, keyed by relative image path."""
    fonts = [(str(FONT_DIR / f"{f}.ttf"), str(FONT_DIR / f"{f}-Bold.ttf"), "Mono" in f) for f in FAMILIES]
    missing = [path for regular, bold, _ in fonts for path in (regular, bold) if not pathlib.Path(path).is_file()]
    if missing:
        raise RuntimeError(f"fonts missing ({', '.join(missing)}): apt-get install fonts-dejavu-core fonts-dejavu-extra")
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    builders = (_hours, _price, _distance, _fact, _quantity)
    items: list[dict[str, str]] = []
    texts: dict[str, list[str]] = {}
    for i in range(n):
        rng, kind = random.Random(seed * 1_000_003 + i), KINDS[i % len(KINDS)]
        spec, rel = builders[i % len(KINDS)](rng), f"images/{kind}_{i:04d}.png"
        img, texts[rel] = _render(spec, rng, np.random.default_rng(rng.getrandbits(64)), fonts)
        img.save(out_dir / rel)
        n_un = min(max(rng.choices((0, 1, 2), weights=(1, 6, 1))[0], 4 - len(spec["qa"])), len(set(spec["un"])))
        chosen = rng.sample(spec["qa"], 4 - n_un) + [(q, UNANS) for q in rng.sample(sorted(set(spec["un"])), n_un)]
        rng.shuffle(chosen)
        items += [{"id": f"{kind}_{i:04d}_q{j}", "image": rel, "question": _casual(q, rng), "answer": a,
                   "category": kind, **({"alternatives": also} if (also := alternatives(q, a)) else {})}
                  for j, (q, a) in enumerate(chosen, 1)]
    return items, texts


#: A place named by its kind and its code ("Platform 5"): the code alone answers "which platform?" too.
_CODED_PLACE = re.compile(r"^(?:Block|Level|Platform|Car Park)\s+(?P<code>\w+)$")
#: A date led by its weekday ("Mon 2 Jun 2025", "Monday 2nd June").
_DAY_FIRST = re.compile(r"^(?P<day>(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*)\s+(?P<date>\d.*)$")


def alternatives(question: str, answer: str) -> list[str]:
    """Other forms of ``answer`` that answer ``question`` as well: the code of a coded place, a date without its
    weekday, and the weekday alone when the question asks which day."""
    if (place := _CODED_PLACE.match(answer)) is not None:
        return [place.group("code")]
    if (dated := _DAY_FIRST.match(answer)) is not None:
        return [dated.group("date")] + ([dated.group("day")] if re.search(r"\bwhich day\b", question, re.I) else [])
    return []


def generate(out_dir: pathlib.Path, n: int, seed: int = 0) -> list[dict]:
    """Render n notice images into out_dir/images (PNG) and return 4 question items per image."""
    return render_dataset(pathlib.Path(out_dir), n, seed)[0]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=pathlib.Path)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    records = generate(args.out_dir, args.n, args.seed)
    write_items(args.out_dir, records)
    print(f"wrote {len(records)} items for {args.n} images to {args.out_dir}")
