"""Accounts and the API-only endpoints against a real running app: annotators log in from the users file, each
rating is attributed to its login, two annotators' ratings of one run show their agreement, wrong passwords get
throttled (tests/test_web_access.py), and scripts get plain data from /answer, /rate and /run (uploads checked from the header first)."""

from __future__ import annotations

import inspect
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from gradio_client import Client, handle_file

from tests.test_web_access import serve_with_accounts
from tests.test_web_api import SIGN_QUESTION, Served, sign_png  # noqa: F401 - sign_png is a fixture
from ui.access import Access
from ui.accounts import Accounts
from ui.login_guard import MAX_PAIRS, LoginThrottle, Throttled, login_check

PASSWORDS = {"alice": "alice-password", "bob": "bob-password"}


@pytest.fixture
def accounts_server(data_dir: Path) -> Iterator[Served]:
    server = serve_with_accounts(data_dir, PASSWORDS)
    yield server
    server.close()


def login(server: Served, name: str) -> Client:
    return Client(server.url, auth=(name, PASSWORDS[name]), verbose=False)


def huge_png(path: Path, side: int = 13000) -> Path:
    """A valid PNG header of side x side grey pixels with one tiny (truncated) data chunk: enough for any decoder
    to believe it, and only a few hundred bytes on disk."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + header + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
                     + chunk(b"IEND", b""))
    return path


@pytest.mark.slow
def test_annotators_log_in_and_their_ratings_are_attributed_with_agreement(accounts_server: Served,
                                                                           sign_png: Path) -> None:  # noqa: F811
    server = accounts_server
    with pytest.raises(Exception):  # noqa: B017 - any refusal will do: without a login there is no app
        Client(server.url, verbose=False).predict("x", api_name="/run")
    with pytest.raises(Exception):  # noqa: B017
        Client(server.url, auth=("alice", "bob-password"), verbose=False)
    alice, bob = login(server, "alice"), login(server, "bob")
    result = alice.predict(handle_file(str(sign_png)), SIGN_QUESTION, api_name="/answer")
    assert {"run_id", "status", "answer", "reason", "confidence", "steps"} <= set(result)
    assert result["status"] == "done" and result["answer"] == "BAKERY"
    assert result["steps"][0]["kind"] == "search" and result["steps"][-1]["kind"] == "answer"
    run_id = result["run_id"]
    mine = alice.predict(run_id, "correct", "", None, api_name="/rate")
    assert (mine["rater"], mine["verdict"], mine["step_index"]) == ("alice", "correct", None)
    theirs = bob.predict(run_id, "incorrect", "BAKERY SHOP", None, api_name="/rate")
    assert (theirs["rater"], theirs["corrected_answer"]) == ("bob", "BAKERY SHOP")
    bob.predict(run_id, "correct", "", None, api_name="/rate")  # bob changes his mind: an edit, not a second row
    stored = alice.predict(run_id, api_name="/run")
    assert stored["id"] == run_id and stored["question"] == SIGN_QUESTION and stored["status"] == "done"
    assert sorted((r["rater"], r["verdict"]) for r in stored["ratings"]) == [("alice", "correct"), ("bob", "correct")]
    agreement = server.maestro.store.agreement()
    assert (agreement.runs, agreement.agreeing) == (1, 1)
    bob.predict(run_id, "partial", "", None, api_name="/rate")
    assert server.maestro.store.agreement().agreeing == 0, "now they disagree"
    with pytest.raises(Exception, match="verdict must be one of"):
        alice.predict(run_id, "great", "", None, api_name="/rate")
    with pytest.raises(Exception, match="No run"):
        alice.predict("0" * 32, api_name="/run")


@pytest.mark.slow
def test_api_uploads_are_checked_from_the_header(accounts_server: Served, tmp_path: Path) -> None:
    client = login(accounts_server, "alice")
    junk = tmp_path / "scan.png"
    junk.write_bytes(b"this is not an image at all" * 100)
    with pytest.raises(Exception, match="not an image Maestro can read: uploads must be PNG.*50 MB and 40 megapixels"):
        client.predict(handle_file(str(junk)), "What is it?", api_name="/answer")
    with pytest.raises(Exception, match="13000×13000 = 169 megapixels: the limit is 40 megapixels"):
        client.predict(handle_file(str(huge_png(tmp_path / "huge.png"))), "What is it?", api_name="/answer")
    assert accounts_server.maestro.store.count_runs() == 0


def test_the_login_check_is_a_coroutine_function_and_refuses_unknown_names(tmp_path: Path) -> None:
    accounts = Accounts.of(tmp_path, single=("solo", "solo-password"))
    check = login_check(Access(accounts), LoginThrottle())
    # Gradio awaits only coroutine functions; anything else would be called and its (truthy) result let anyone in.
    assert inspect.iscoroutinefunction(check)
    assert accounts.names() == ["solo"] and not (tmp_path / "users.txt").exists()
    assert [LoginThrottle.delay(n) for n in range(7)] == [0, 0, 0, 1, 2, 4, 8]
    assert LoginThrottle.delay(40) == 30


def test_made_up_names_cannot_make_the_throttle_forget_a_closed_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    # The clock stands still: the pair closes for one second, and ten thousand attempts on a loaded machine took
    # longer than that (a fresh-clone CI run saw the pair reopen by time, not by the spray of names).
    monkeypatch.setattr("ui.login_guard.time.monotonic", lambda: 1000.0)
    throttle = LoginThrottle()
    for _ in range(3):
        throttle.done(throttle.admit("10.0.0.9", "alice"), ok=False)
    with pytest.raises(Throttled):
        throttle.admit("10.0.0.9", "alice")
    for i in range(MAX_PAIRS + 10):  # a spray of made-up names from the same client
        throttle.done(throttle.admit("10.0.0.9", f"name{i}"), ok=False)
    with pytest.raises(Throttled):
        throttle.admit("10.0.0.9", "alice")
    throttle.done(throttle.admit("10.0.0.7", "alice"), ok=True)  # another client is not held up
