"""Roles, sessions and login throttling against a real running app (real HTTP on loopback, real users file):
only admins edit the guidelines, export and rebuild the handbook, through the page's handlers and the API alike;
a role change counts at the next request; removing an account or changing its password ends its sessions (401 on
the API, the login form on the page); a guesser's wrong passwords from another client never delay the owner's
login, throttled attempts are answered at once with 429 and Retry-After, and names are compared exactly. One
browser test: a removed user's open page asks for a login again."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from gradio_client import Client

from agents.config import Settings
from agents.runtime import Maestro
from tests.test_web_api import Served
from ui.accounts import HASHER, Accounts

PASSWORDS = {"alice": "alice-password", "bob": "bob-password", "carol": "carol-password"}
ROLES = {"alice": "admin", "bob": "annotator", "carol": "reviewer"}


def serve_with_accounts(data_dir: Path, passwords: dict[str, str], roles: dict[str, str] | None = None) -> Served:
    """The app served on ``data_dir`` after writing these accounts to its users file."""
    accounts = Accounts.of(data_dir)
    for name, password in passwords.items():
        accounts.add(name, password, (roles or {}).get(name))
    return Served(Maestro.open(Settings.resolve(data_dir=data_dir)))


@pytest.fixture
def server(data_dir: Path) -> Iterator[Served]:
    served = serve_with_accounts(data_dir, PASSWORDS, ROLES)
    yield served
    served.close()


def client(server: Served, name: str) -> Client:
    return Client(server.url, auth=(name, PASSWORDS[name]), verbose=False)


def session(server: Served, name: str, password: str | None = None) -> httpx.Client:
    """A browser-like HTTP session (cookies kept) logged in as ``name``."""
    http = httpx.Client(base_url=server.url, timeout=60)
    reply = http.post("/login", data={"username": name, "password": password or PASSWORDS[name]})
    assert reply.status_code == 200, reply.text
    return http


def login(server: Served, name: str, password: str, source: str = "127.0.0.1") -> tuple[int, float, httpx.Response]:
    """One login attempt from the loopback address ``source`` (another address is another client)."""
    transport = httpx.HTTPTransport(local_address=source)
    started = time.monotonic()
    with httpx.Client(transport=transport, timeout=120) as http:
        reply = http.post(f"{server.url}login", data={"username": name, "password": password})
    return reply.status_code, time.monotonic() - started, reply


@pytest.mark.slow
def test_only_admins_edit_guidelines_export_and_rebuild(server: Served) -> None:
    bob, carol, alice = client(server, "bob"), client(server, "carol"), client(server, "alice")
    assert bob.predict(api_name="/whoami") == {"name": "bob", "role": "annotator"}
    assert carol.predict(api_name="/whoami") == {"name": "carol", "role": "reviewer"}
    assert alice.predict(api_name="/users") == [{"name": n, "role": ROLES[n]} for n in sorted(ROLES)]
    guidelines = Path(server.maestro.store.data_dir) / "guidelines.md"
    for who in (bob, carol):
        with pytest.raises(Exception, match=r"Only admins can edit the guidelines \(you are \w+, an? \w+\)"):
            who.predict("<form action='https://evil.example'><input name=p></form>", api_name="/guidelines_save")
        with pytest.raises(Exception, match="Only admins can export runs and ratings"):
            who.predict(["sft"], "", "", "(any)", "(any)", "(any)", "(any)", api_name="/export")
        with pytest.raises(Exception, match="Only admins can rebuild the handbook"):
            who.predict(False, api_name="/handbook_rebuild")
        with pytest.raises(Exception, match="Only admins can list the accounts"):
            who.predict(api_name="/users")
    assert not guidelines.exists(), "nothing was written"
    assert not (Path(server.maestro.store.data_dir) / "exports").exists() or not any(
        (Path(server.maestro.store.data_dir) / "exports").iterdir())

    note, html = alice.predict("### Rules\n<form action='https://evil.example'><input name=p>"
                               "<button>go</button></form>\n[x](javascript:alert(1))", api_name="/guidelines_save")
    assert note.startswith("Saved the guidelines") and "Rules" in guidelines.read_text(encoding="utf-8")
    assert "<h3>Rules</h3>" in html
    for forbidden in ("<form", "<input", "<button", "<a ", "href"):  # the markup shows as text, the link is gone
        assert forbidden not in html, forbidden
    summary, _, _ = alice.predict(["sft"], "", "", "(any)", "(any)", "(any)", "(any)", api_name="/export")
    assert "sft" in summary
    alice.predict(False, api_name="/handbook_rebuild")

    # A promotion counts at the next request: no new login.
    Accounts.of(server.maestro.store.data_dir).set_role("bob", "admin")
    assert bob.predict(api_name="/whoami")["role"] == "admin"
    assert bob.predict("bob's rules", api_name="/guidelines_save")[0].startswith("Saved")


@pytest.mark.slow
def test_a_removed_or_changed_account_loses_its_sessions(server: Served) -> None:
    accounts = Accounts.of(server.maestro.store.data_dir)
    bob_api, bob_page = client(server, "bob"), session(server, "bob")
    carol_page = session(server, "carol")
    assert bob_page.get("/config").status_code == 200
    assert bob_api.predict(api_name="/whoami")["name"] == "bob"

    accounts.remove("bob")
    assert bob_page.get("/config").status_code == 401
    assert bob_page.get("/gradio_api/info").status_code == 401
    with pytest.raises(httpx.HTTPStatusError, match="401"):
        bob_api.predict(api_name="/whoami")
    page = bob_page.get("/")
    assert page.status_code == 200 and '"auth_required":true' in page.text.replace(" ", ""), "the login form"
    assert carol_page.get("/config").status_code == 200, "other accounts keep their sessions"
    assert login(server, "bob", PASSWORDS["bob"])[0] == 400, "and bob cannot log in again"

    # A new password ends the sessions opened with the old one; a login with the new one works.
    carol_api = client(server, "carol")
    accounts.add("carol", "a brand new password")
    assert carol_page.get("/config").status_code == 401
    with pytest.raises(httpx.HTTPStatusError, match="401"):
        carol_api.predict(api_name="/whoami")
    fresh = session(server, "carol", "a brand new password")
    assert fresh.get("/config").status_code == 200
    assert accounts.role("carol") == "reviewer", "a new password keeps the role"


@pytest.mark.slow
def test_a_guessers_wrong_passwords_never_delay_the_owner(server: Served) -> None:
    def guess(_: int) -> tuple[int, float, httpx.Response]:
        return login(server, "alice", "wrong guess", source="127.0.0.2")

    with ThreadPoolExecutor(max_workers=30) as pool:
        guesses = list(pool.map(guess, range(30)))
    codes = sorted(code for code, _, _ in guesses)
    assert set(codes) <= {400, 429} and codes.count(429) >= 25, codes
    for code, seconds, reply in guesses:
        if code == 429:
            assert int(reply.headers["Retry-After"]) >= 1 and "try again in" in reply.text
            assert seconds < 5, "a throttled attempt is answered at once, never queued"
    started = time.monotonic()
    code, _, _ = login(server, "alice", PASSWORDS["alice"])  # alice, from her own machine
    assert code == 200 and time.monotonic() - started < 5

    # Guesses for "ALICE" are guesses for a name nobody has: alice (and the guesser's own "alice") are untouched.
    for _ in range(8):
        login(server, "ALICE", "wrong guess", source="127.0.0.3")
    assert login(server, "alice", PASSWORDS["alice"], source="127.0.0.3")[0] == 200
    assert login(server, "ALICE", PASSWORDS["alice"], source="127.0.0.4")[0] == 400, "names are exact"


@pytest.mark.slow
def test_the_guessers_own_attempts_close_and_a_right_password_honours_retry_after(server: Served) -> None:
    with ThreadPoolExecutor(max_workers=30) as pool:
        list(pool.map(lambda _: login(server, "bob", "wrong guess"), range(30)))
    started = time.monotonic()
    while True:  # the same client as the guesser: it waits as told, and gets in within seconds
        code, _, reply = login(server, "bob", PASSWORDS["bob"])
        if code != 429:
            break
        time.sleep(int(reply.headers["Retry-After"]))
    assert code == 200 and time.monotonic() - started < 5
    # Wrong guesses in a row from one client: three free, then the pair closes for 1, 2, 4 … seconds.
    told = []
    for _ in range(6):
        code, _, reply = login(server, "carol", "wrong guess")
        if code == 429:
            told.append(int(reply.headers["Retry-After"]))
        while code == 429:
            time.sleep(int(reply.headers["Retry-After"]))
            code, _, reply = login(server, "carol", "wrong guess")
        assert code == 400
    assert told == [1, 2, 4], told


@pytest.mark.slow
def test_an_annotator_cannot_fetch_an_admins_export_by_guessing_its_folder(server: Served) -> None:
    """Exports sit on the served paths (for the admin's download); their folder's name must not be guessable."""
    before = time.time()
    client(server, "alice").predict(["sft"], "", "", "(any)", "(any)", "(any)", "(any)", api_name="/export")
    root = Path(server.maestro.store.data_dir) / "exports"
    (folder,) = [p for p in root.iterdir() if p.is_dir()]
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{16}", folder.name), folder.name
    bob = session(server, "bob")
    for second in range(int(before) - 2, int(time.time()) + 2):  # every name the old scheme could have given
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(second))
        for guess in (f"{stamp}.zip", f"{stamp}/manifest.json", f"{stamp}/sft.jsonl"):
            assert bob.get(f"/gradio_api/file={root / guess}").status_code != 200, guess


@pytest.mark.slow
def test_names_of_a_megabyte_do_not_fill_the_throttle(server: Served) -> None:
    throttle_names = {"a" * 200_000 + str(n) for n in range(20)}
    for name in throttle_names:
        assert login(server, name, "wrong guess", source="127.0.0.5")[0] in (400, 429)
    assert login(server, "alice", PASSWORDS["alice"], source="127.0.0.5")[0] == 200
    from ui.login_guard import LoginThrottle

    pairs = [cell.cell_contents for cell in server.app.auth.__closure__ or () if isinstance(cell.cell_contents,
             LoginThrottle)]
    assert pairs, "the login check keeps its throttle"
    assert max(len(name) for _, name in pairs[0]._pairs) <= 65, "long names share one short key"


@pytest.mark.slow
def test_without_a_trusted_proxy_a_forged_forwarded_for_buys_no_guesses(data_dir: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """README Security: with ``FORWARDED_ALLOW_IPS=""`` a local guesser cannot name a new address per guess."""
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "")
    served = serve_with_accounts(data_dir, {"carol": PASSWORDS["carol"]})
    try:
        codes = [httpx.post(f"{served.url}login", data={"username": "carol", "password": "wrong guess"},
                            headers={"X-Forwarded-For": f"10.0.0.{n}"}).status_code for n in range(6)]
    finally:
        served.close()
    assert codes == [400, 400, 400, 429, 429, 429], codes


def test_old_users_files_load_as_annotators(tmp_path: Path) -> None:
    digest = HASHER.hash("old-password")
    (tmp_path / "users.txt").write_text(f"# written before roles\nolduser:{digest}\n", encoding="utf-8")
    accounts = Accounts.of(tmp_path)
    assert accounts.roles() == {"olduser": "annotator"} and accounts.verify("olduser", "old-password")
    accounts.set_role("olduser", "admin")
    assert f"olduser:admin:{digest}" in (tmp_path / "users.txt").read_text(encoding="utf-8")
    assert Accounts.of(tmp_path, single=("ops", "ops-password")).roles() == {"olduser": "admin", "ops": "admin"}


@pytest.mark.browser
def test_a_removed_users_page_asks_for_a_login_again(server: Served) -> None:
    from tests.test_web_browser import ARGS, CHROMIUM, sync_api

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server.url)
            page.get_by_label("username").fill("bob")
            page.get_by_label("password").fill(PASSWORDS["bob"])
            page.keyboard.press("Enter")
            page.wait_for_selector("#ask-question", timeout=20_000)
            Accounts.of(server.maestro.store.data_dir).remove("bob")
            page.reload()
            sync_api.expect(page.get_by_label("username")).to_be_visible(timeout=20_000)
            assert page.locator("#ask-question").count() == 0
        finally:
            browser.close()
