"""Upload limits against a real running app: a per-user and a per-server quota of bytes per hour (enforced on
Gradio's upload route before the file is read: 429, Retry-After, a sentence naming the limit), tiny or degenerate
images refused up front with nothing stored, and a 16-bit PNG of many pixels answered like any other image."""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from gradio_client import Client, handle_file
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_web_access import serve_with_accounts
from tests.test_web_api import Served
from ui.upload_quota import SERVER_ENV, USER_ENV

PASSWORDS = {"alice": "alice-password", "bob": "bob-password", "carol": "carol-password"}


@pytest.fixture
def server(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    monkeypatch.setenv(USER_ENV, "1")  # MB per hour
    monkeypatch.setenv(SERVER_ENV, "2")
    served = serve_with_accounts(data_dir, PASSWORDS)
    yield served
    served.close()


def noise_png(path: Path, side: int = 620, seed: int = 0) -> Path:
    """An incompressible PNG of about side² bytes."""
    pixels = np.random.default_rng(seed).integers(0, 256, (side, side), dtype=np.uint8)
    Image.fromarray(pixels, mode="L").save(path)
    return path


def session(server: Served, name: str) -> httpx.Client:
    http = httpx.Client(base_url=server.url, timeout=60)
    assert http.post("/login", data={"username": name, "password": PASSWORDS[name]}).status_code == 200
    return http


def upload(http: httpx.Client, path: Path) -> httpx.Response:
    with path.open("rb") as handle:
        return http.post("/gradio_api/upload", files={"files": (path.name, handle, "image/png")})


@pytest.mark.slow
def test_uploads_have_a_quota_per_user_and_per_server(server: Served, tmp_path: Path) -> None:
    files = [noise_png(tmp_path / f"noise{i}.png", seed=i) for i in range(4)]
    assert all(380_000 < f.stat().st_size < 400_000 for f in files)
    alice = Client(server.url, auth=("alice", PASSWORDS["alice"]), verbose=False)
    for path in files[:2]:
        alice.predict(handle_file(str(path)), "What is written here?", api_name="/answer")
    with pytest.raises(Exception, match="429"):
        alice.predict(handle_file(str(files[2])), "What is written here?", api_name="/answer")
    assert server.maestro.store.count_runs() == 2
    reply = upload(session(server, "alice"), files[2])
    assert reply.status_code == 429 and int(reply.headers["Retry-After"]) > 0
    assert re.fullmatch(r"Upload refused: your upload quota is 1 MB per hour and 1 MB were uploaded in the last "
                        r"hour; this file is 0\.4 MB\. Try again in \d+ min\.", reply.json()["detail"])

    bob = Client(server.url, auth=("bob", PASSWORDS["bob"]), verbose=False)  # his own quota is untouched
    bob.predict(handle_file(str(files[2])), "What is written here?", api_name="/answer")
    bob.predict(handle_file(str(files[3])), "What is written here?", api_name="/answer")
    # 4 files (~1.5 MB) so far: carol's first fits the server's 2 MB, then the server is full for everyone.
    carol = session(server, "carol")
    for attempt in range(3):
        reply = upload(carol, files[attempt])
        if reply.status_code == 429:
            break
    assert reply.status_code == 429 and attempt >= 1, (attempt, reply.text)
    assert "this server's upload quota is 2 MB per hour" in reply.json()["detail"]
    assert int(reply.headers["Retry-After"]) > 0
    unannounced = httpx.Request("POST", f"{server.url}gradio_api/upload", cookies=carol.cookies,
                                content=iter([b"--x\r\n"]))  # a streamed body without Content-Length
    assert httpx.Client().send(unannounced).status_code == 411
    assert chunked_with_a_small_length(server, carol, files[0]).startswith(b"HTTP/1.1 411"), "the chunks would count"


def chunked_with_a_small_length(server: Served, http: httpx.Client, path: Path) -> bytes:
    """The status line for a chunked upload that also claims ``Content-Length: 1`` (sent raw: clients won't)."""
    part = (b'--B\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\nContent-Type: image/png'
            b"\r\n\r\n" + path.read_bytes() + b"\r\n--B--\r\n")
    cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
    head = (f"POST /gradio_api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\nContent-Type: "
            f"multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n")
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head.encode() + b"%x\r\n" % len(part) + part + b"\r\n0\r\n\r\n")
        return sock.recv(200)


@pytest.mark.parametrize(("size", "why"), [((1, 1), "too small"), ((8, 8), "too small"),
                                           ((30000, 10), "too small"), ((2000, 40), "too elongated")])
def test_tiny_and_degenerate_images_are_refused_up_front(data_dir: Path, tmp_path: Path, size: tuple[int, int],
                                                          why: str) -> None:
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir)))
    try:
        path = tmp_path / "tiny.png"
        Image.new("RGB", size, "white").save(path)
        with pytest.raises(Exception, match=f"tiny.png: image {why}: {size[0]}x{size[1]} pixels"):
            server.client().predict(handle_file(str(path)), "What is it?", api_name="/answer")
        assert server.maestro.store.count_runs() == 0
        assert not list((Path(server.maestro.store.data_dir) / "images").rglob("*.png")), "nothing stored"
    finally:
        server.close()


@pytest.mark.slow
def test_a_16_bit_png_of_many_pixels_is_answered(data_dir: Path, tmp_path: Path) -> None:
    ramp = (np.arange(3000, dtype=np.uint32) * 65535 // 2999).astype(np.uint16)
    path = tmp_path / "deep.png"
    Image.fromarray(np.broadcast_to(ramp, (2000, 3000)).copy()).save(path, optimize=True)
    assert Image.open(path).mode == "I;16" and path.stat().st_size < 100_000
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir)))
    try:
        result = server.client().predict(handle_file(str(path)), "What is written here?", api_name="/answer")
        assert result["status"] in {"done", "abstained"} and result["run_id"]
    finally:
        server.close()
    assert os.path.getsize(path) < 100_000
