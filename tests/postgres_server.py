"""A real, throwaway PostgreSQL server for the tests: ``initdb`` into a temporary folder, ``pg_ctl start``
listening only on a Unix socket in that folder, a fresh database per test, everything removed at the end.

PostgreSQL refuses to run as root, so when the tests run as root (CI) the server's own commands run as an
unprivileged account (``postgres`` where Debian's package created it, else ``nobody``), which owns the folder.
Nothing here is mocked: the server is Debian's ``postgresql`` (or any install whose binaries can be found), and
the tests talk to it through psycopg 3, exactly as ``--db postgresql+psycopg://...`` does in production.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

#: Bootstrap superuser of the throwaway cluster (trust authentication on its private socket only).
SUPERUSER = "maestro"
#: Settings for a disposable server: durability off (nothing here must survive a crash), no TCP at all.
SERVER_SETTINGS = {
    "listen_addresses": "''",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "300",
    "max_parallel_workers_per_gather": "0",
}


class PostgresUnavailable(RuntimeError):
    """PostgreSQL cannot be had here; the message says why and what to install."""


def _has_initdb(folder: str | Path) -> bool:
    return (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file()


def find_bindir() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``: ``$MAESTRO_PG_BINDIR``, ``pg_config --bindir``, Debian's
    ``/usr/lib/postgresql/<version>/bin`` (newest first), then ``PATH``."""
    candidates: list[str] = []
    if os.environ.get("MAESTRO_PG_BINDIR"):
        candidates.append(os.environ["MAESTRO_PG_BINDIR"])
    if pg_config := shutil.which("pg_config"):
        # libpq-dev's pg_config may name a server folder that is not installed: then the others are tried.
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            candidates.append(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=30,
                                             check=True).stdout.strip())
    debian = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += sorted(debian, key=lambda p: _version_key(Path(p).parent.name), reverse=True)
    if initdb := shutil.which("initdb"):
        candidates.append(str(Path(initdb).resolve().parent))
    for folder in candidates:
        if folder and _has_initdb(folder):
            return Path(folder)
    raise PostgresUnavailable("no PostgreSQL server binaries (initdb, pg_ctl) found via pg_config, "
                              "/usr/lib/postgresql/*/bin or PATH; install Debian's `postgresql` package")


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def _server_account() -> pwd.struct_passwd | None:
    """The unprivileged account the server runs as when we are root; None when we are not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise PostgresUnavailable("running as root, and neither a `postgres` nor a `nobody` account exists to run "
                              "PostgreSQL as (it refuses to run as root)")


def require_driver() -> None:
    """Raise :class:`PostgresUnavailable` unless psycopg 3 can be imported."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise PostgresUnavailable(f"the PostgreSQL driver is not installed ({exc}); "
                                  "pip install -c constraints.txt -e '.[postgres]'") from exc


@dataclass
class PostgresServer:
    """One running throwaway cluster; ``url(name)`` is the SQLAlchemy URL of database ``name`` in it."""

    bindir: Path
    root: Path
    account: pwd.struct_passwd | None

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root

    @classmethod
    def start(cls) -> PostgresServer:
        """initdb + pg_ctl start; raises :class:`PostgresUnavailable` with the server's own words on failure."""
        require_driver()
        bindir = find_bindir()
        account = _server_account()
        # Not under pytest's tmp folder: that one is private to root and the server account could not enter it.
        root = Path(tempfile.mkdtemp(prefix="maestro-pg-", dir="/tmp" if Path("/tmp").is_dir() else None))
        if account is not None:
            os.chown(root, account.pw_uid, account.pw_gid)
        server = cls(bindir, root, account)
        try:
            server._run("initdb", "-D", str(server.data), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8",
                        "--locale=C", "--no-sync")
            with (server.data / "postgresql.conf").open("a") as conf:
                conf.write("\n# throwaway test server\n")
                conf.write(f"unix_socket_directories = '{server.socket_dir}'\n")
                conf.writelines(f"{key} = {value}\n" for key, value in SERVER_SETTINGS.items())
            server._run("pg_ctl", "-D", str(server.data), "-l", str(server.root / "server.log"), "-w", "-t", "60",
                        "start")
            server.execute("select 1")
        except BaseException as exc:
            log = server.log_tail()
            server.stop()
            if isinstance(exc, PostgresUnavailable):
                raise
            raise PostgresUnavailable(f"could not start PostgreSQL from {bindir}: {exc}\n{log}") from exc
        return server

    def _run(self, program: str, *args: str) -> None:
        kwargs: dict[str, object] = {}
        if self.account is not None:
            kwargs = dict(user=self.account.pw_uid, group=self.account.pw_gid, extra_groups=[])
        env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
        if self.account is not None:
            env["HOME"] = str(self.root)
        result = subprocess.run([str(self.bindir / program), *args], cwd=self.root, env=env, capture_output=True,
                                text=True, timeout=120, **kwargs)
        if result.returncode != 0:
            raise PostgresUnavailable(f"{program} failed (exit {result.returncode}): "
                                      f"{(result.stderr or result.stdout).strip()[-1500:]}")

    def log_tail(self) -> str:
        try:
            return (self.root / "server.log").read_text(errors="replace")[-1500:]
        except OSError:
            return ""

    def url(self, database: str = "postgres") -> str:
        """SQLAlchemy URL of ``database`` over the private Unix socket."""
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={quote(str(self.socket_dir), safe='/')}"

    def execute(self, sql: str) -> None:
        """Run one statement on the maintenance database outside a transaction (CREATE/DROP DATABASE)."""
        import psycopg

        with psycopg.connect(host=str(self.socket_dir), user=SUPERUSER, dbname="postgres", autocommit=True,
                             connect_timeout=30) as conn:
            conn.execute(sql)

    def create_database(self) -> str:
        name = f"t_{uuid.uuid4().hex[:16]}"
        self.execute(f'create database "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        # FORCE ends connections a test left open (a child process killed mid-run, a store not closed).
        self.execute(f'drop database if exists "{name}" with (force)')

    def stop(self) -> None:
        """Stop the server at once and delete its folder (data, socket, log)."""
        if (self.data / "postmaster.pid").exists():
            # The folder goes anyway; a server whose folder is gone exits on its own.
            with contextlib.suppress(PostgresUnavailable, OSError, subprocess.SubprocessError):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
