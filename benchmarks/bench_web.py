"""How fast the web app shows a run: seconds from submit to the chosen (expert, skill) pair on screen (the pending
step titled ``Tools@@OCR · reading text…``), to the first finished step and to the answer, for tools-only questions, measured through the real HTTP API (gradio_client streaming) on a free local port.

    .venv/bin/python benchmarks/bench_web.py [--repeats 5]

Uses a throwaway data directory. Prints one line per question with the median and worst of each number.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import time
from pathlib import Path

from gradio_client import Client, handle_file

from agents.config import Settings
from agents.runtime import Maestro
from ui.web import launch

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
QUESTIONS = [("sign.png", "What is written on the sign?"), ("shapes.png", "How many circles are there?")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def has_finished_step(chat: list[dict]) -> bool:
    return any(str(m.get("metadata", {}).get("id", "")).startswith("step-")
               and m["metadata"].get("status") == "done" for m in chat)


def has_titled_pending(chat: list[dict]) -> bool:
    return any(m.get("metadata", {}).get("status") == "pending" and "@@" in m["metadata"].get("title", "")
               for m in chat)


def measure(client: Client, image: Path, question: str) -> tuple[float, float, float]:
    """(seconds to the chosen pair shown, to the first finished step shown, to the final answer) for one ask."""
    started = time.perf_counter()
    job = client.submit(handle_file(str(image)), question, api_name="/ask")
    pair_shown = first_step = None
    seen = 0
    while not job.done():
        outputs = job.outputs()
        for chat, _, _ in outputs[seen:]:
            now = time.perf_counter() - started
            if pair_shown is None and has_titled_pending(chat):
                pair_shown = now
            if first_step is None and has_finished_step(chat):
                first_step = now
        seen = len(outputs)
        time.sleep(0.005)
    job.result()
    total = time.perf_counter() - started
    # An update can be missed between polls (or all arrive in the last one): count it as shown no earlier.
    first_step = first_step if first_step is not None else total
    pair_shown = pair_shown if pair_shown is not None else first_step
    return pair_shown, first_step, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        maestro = Maestro.open(Settings.resolve(data_dir=home))
        port = free_port()
        app = launch(port=port, prevent_thread_lock=True, maestro=maestro)
        try:
            client = Client(f"http://127.0.0.1:{port}/", verbose=False)
            measure(client, EXAMPLES / QUESTIONS[0][0], QUESTIONS[0][1])  # warm-up: OCR models load once
            for image, question in QUESTIONS:
                samples = [measure(client, EXAMPLES / image, question) for _ in range(args.repeats)]
                pairs, firsts, totals = ([s[i] for s in samples] for i in range(3))
                print(f"{question!r:40} n={args.repeats}  pair shown: median {statistics.median(pairs):.3f} s"
                      f" (max {max(pairs):.3f})  first step shown: median {statistics.median(firsts):.3f} s"
                      f" (max {max(firsts):.3f})  answer: median {statistics.median(totals):.3f} s"
                      f" (max {max(totals):.3f})")
        finally:
            app.close()
            maestro.store.close()


if __name__ == "__main__":
    main()
