"""How long a guesser can keep an account's owner out: 30 parallel wrong passwords for ``alice``, then alice's
right one, against the real app on a free local port (real HTTP, a throwaway data directory).

    .venv/bin/python -m benchmarks.bench_login [--guesses 30] [--repeats 3]

Prints, per repeat: how the guesses were answered (400 checked, 429 throttled) and the slowest answer to a
throttled one; the seconds until alice is in when she logs in from another machine (another loopback address,
127.0.0.2 for the guesser); and when she logs in from the guesser's own address, honouring ``Retry-After``.
"""

from __future__ import annotations

import argparse
import os
import socket
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from agents.config import Settings
from agents.runtime import Maestro
from ui.accounts import Accounts
from ui.web import launch

PASSWORD = "alice-password"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def attempt(url: str, password: str, source: str) -> tuple[int, float, str]:
    started = time.monotonic()
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=120) as http:
        reply = http.post(f"{url}login", data={"username": "alice", "password": password})
    return reply.status_code, time.monotonic() - started, reply.headers.get("Retry-After", "0")


def owner_gets_in(url: str, source: str) -> float:
    """Seconds until alice's right password is accepted, retrying when told to (never sooner)."""
    started = time.monotonic()
    while True:
        code, _, retry_after = attempt(url, PASSWORD, source)
        if code == 200:
            return time.monotonic() - started
        if code != 429:
            raise SystemExit(f"alice's right password was answered {code}")
        time.sleep(int(retry_after))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--guesses", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ["MAESTRO_HOME"] = str(home)
        Accounts.of(home).add("alice", PASSWORD)
        maestro = Maestro.open(Settings.resolve(data_dir=home))
        port = free_port()
        app = launch(port=port, prevent_thread_lock=True, maestro=maestro)
        url = f"http://127.0.0.1:{port}/"
        try:
            for repeat in range(args.repeats):
                for owner in ("127.0.0.3", "127.0.0.2"):  # another machine, then the guesser's own
                    with ThreadPoolExecutor(max_workers=args.guesses) as pool:
                        answers = list(pool.map(lambda _: attempt(url, "wrong guess", "127.0.0.2"),
                                                range(args.guesses)))
                    codes = Counter(code for code, _, _ in answers)
                    slowest = max((s for code, s, _ in answers if code == 429), default=0.0)
                    seconds = owner_gets_in(url, owner)
                    where = "another address" if owner != "127.0.0.2" else "the guesser's address"
                    print(f"repeat {repeat + 1}: {args.guesses} parallel guesses -> {dict(sorted(codes.items()))}, "
                          f"slowest 429 {slowest:.2f} s; alice from {where} is in after {seconds:.2f} s")
        finally:
            app.close()
            maestro.store.close()


if __name__ == "__main__":
    main()
