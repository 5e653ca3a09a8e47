"""Shared fixtures: paths to the real benchmark items, a throwaway data directory per test, and the database
back ends (SQLite file, and a real throwaway PostgreSQL server) that storage tests run against."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.postgres_server import PostgresServer, PostgresUnavailable

REPO = Path(__file__).resolve().parent.parent
BLINDTEST = REPO.parent / "shared" / "datasets" / "blindtest-dev"
SROIE = REPO.parent / "shared" / "datasets" / "sroie-dev"
#: Set (scripts/test.sh does, once it has installed PostgreSQL) to make "cannot start PostgreSQL" a failure.
REQUIRE_POSTGRES = "MAESTRO_REQUIRE_POSTGRES"

#: Every back end a storage test runs on; the PostgreSQL half carries the ``postgres`` mark (``pytest -m postgres``).
BACKENDS = [pytest.param("sqlite", id="sqlite"),
            pytest.param("postgres", id="postgres", marks=pytest.mark.postgres)]

_postgres_skipped: list[str] = []


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh Maestro data directory (``MAESTRO_HOME``) for one test."""
    home = tmp_path / "maestro-home"
    monkeypatch.setenv("MAESTRO_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def blindtest_dir() -> Path:
    if not (BLINDTEST / "items.jsonl").exists():
        pytest.skip(f"BlindTest dev set not found at {BLINDTEST}")
    return BLINDTEST


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL server for the whole session (started on first use, stopped at the end)."""
    try:
        server = PostgresServer.start()
    except PostgresUnavailable as exc:
        if os.environ.get(REQUIRE_POSTGRES):
            pytest.fail(f"PostgreSQL is required here ({REQUIRE_POSTGRES} is set) but: {exc}", pytrace=False)
        reason = f"PostgreSQL tests skipped: {exc}".splitlines()[0]
        _postgres_skipped.append(reason)
        warnings.warn(reason, pytest.PytestWarning, stacklevel=1)
        pytest.skip(reason)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of a fresh, empty database on the test server, dropped after the test."""
    name = postgres_server.create_database()
    try:
        yield postgres_server.url(name)
    finally:
        postgres_server.drop_database(name)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest) -> str | None:
    """The database a test's store opens: None for the default SQLite file in the data directory, or the URL of a
    fresh PostgreSQL database. Tests that take it run once per back end (ids ``[sqlite]`` and ``[postgres]``)."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres_url")


@pytest.fixture(params=BACKENDS)
def new_database(request: pytest.FixtureRequest) -> Iterator[Callable[[], str | None]]:
    """A maker of empty databases on one back end, for tests that need several: each call gives None (SQLite: the
    caller's new data directory holds its own file) or the URL of a new PostgreSQL database (dropped afterwards)."""
    if request.param == "sqlite":
        yield lambda: None
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    made: list[str] = []

    def make() -> str:
        made.append(server.create_database())
        return server.url(made[-1])

    try:
        yield make
    finally:
        for name in made:
            server.drop_database(name)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _postgres_skipped:
        terminalreporter.write_sep("!", "PostgreSQL NOT TESTED", red=True, bold=True)
        terminalreporter.write_line(_postgres_skipped[0], red=True)
        terminalreporter.write_line("Install Debian's `postgresql` and the `postgres` extra; "
                                    "`bash scripts/test.sh` as root does both.", red=True)


@pytest.fixture(scope="session")
def sroie_dir() -> Path:
    if not (SROIE / "items.jsonl").exists():
        pytest.skip(f"SROIE receipts dev set not found at {SROIE}")
    return SROIE


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A data directory holding two stored runs (a sign read, circles counted) to rate: (home, [sign, shapes])."""
    from agents.config import Settings
    from agents.runtime import Maestro

    examples = Path(__file__).resolve().parent.parent / "assets" / "examples"
    home = tmp_path_factory.mktemp("home")
    app = Maestro.open(Settings.resolve(data_dir=home))
    ids = [app.ask(examples / "sign.png", "What is written on the sign?").id,
           app.ask(examples / "shapes.png", "How many circles are there?").id]
    app.store.close()
    return home, ids
