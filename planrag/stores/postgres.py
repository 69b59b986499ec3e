"""PostgreSQL for planrag: any server by URL, or an embedded one started from the pgserver wheel.

The embedded server is PostgreSQL 16 with pgvector 0.6.2 from the `pgserver` wheel. Only its
binaries are used (`initdb`, `pg_ctl`): pgserver's own start-up, when run as root, creates a
system user and loosens directory permissions, so instead planrag runs the binaries itself — as
the `os_user` setting (`postgres`) when planrag runs as root, since PostgreSQL refuses root. The
server listens on a unix socket only (no TCP), its data directory lives under the planrag data
dir, it is started lazily (`PostgresProvider.conninfo()`: only when a KB uses pgvector or the
metadata DB lives there) and stopped on close — unless it was already running when planrag came
(another planrag process on the same data dir uses it), in which case it is left running.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import logging
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import threading
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from sqlalchemy.engine import URL

from planrag.core.errors import StoreUnavailable
from planrag.core.settings import PgSettings, Settings

log = logging.getLogger(__name__)

DATABASE = "planrag"
SUPERUSER = "postgres"
PORT = 5432
SOCKET_PATH_MAX = 100  # sun_path is 108 bytes with the terminating NUL
SERVER_OPTIONS = {
    "listen_addresses": "",
    "port": str(PORT),
    # An HNSW build that fits in memory is far quicker (pgvector's advice).
    "maintenance_work_mem": "512MB",
    "max_connections": "100",
}


def pgserver_bin_dir() -> Path:
    """The PostgreSQL binaries shipped in the pgserver wheel (found without importing it)."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise StoreUnavailable(
            "the embedded PostgreSQL needs the pgserver wheel (pip install pgserver), "
            "or set PLANRAG_PG__URL to a PostgreSQL with pgvector",
            setting="PLANRAG_PG__URL",
        )
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def sqlalchemy_url(conninfo: str) -> str:
    """The SQLAlchemy (psycopg 3) URL of a libpq URL or `key=value` connection string."""
    for prefix in ("postgresql://", "postgres://"):
        if conninfo.startswith(prefix):
            return "postgresql+psycopg://" + conninfo[len(prefix) :]
    if "://" in conninfo:
        return conninfo
    parts = {k: str(v) for k, v in conninfo_to_dict(conninfo).items() if v is not None}
    url = URL.create(
        "postgresql+psycopg",
        username=parts.pop("user", None),
        password=parts.pop("password", None),
        database=parts.pop("dbname", None),
        query=parts,  # host (a socket directory too), port, sslmode, … as connect arguments
    )
    return url.render_as_string(hide_password=False)


def _reachable(path: Path, account: pwd.struct_passwd) -> bool:
    """Whether `account` can walk down to `path` (every directory on the way searchable)."""
    for directory in [path, *path.parents]:
        st = directory.stat()
        if st.st_uid == account.pw_uid:
            if not st.st_mode & stat.S_IXUSR:
                return False
        elif st.st_gid == account.pw_gid:
            if not st.st_mode & stat.S_IXGRP:
                return False
        elif not st.st_mode & stat.S_IXOTH:
            return False
    return True


def reachable_bin_dir(bin_dir: Path, account: pwd.struct_passwd | None) -> Path:
    """pgserver's binaries where the OS user running them can reach them: in place, or (a venv
    under a private directory such as /root) a copy under the temp dir, made once, that keeps
    the wheel's relative layout (`bin/../../../pgserver.libs` holds its shared libraries)."""
    if account is None or _reachable(bin_dir, account):
        return bin_dir
    site = bin_dir.parents[2]  # bin → pginstall → pgserver → site-packages
    digest = hashlib.sha1(str(site).encode()).hexdigest()[:12]
    target = Path(tempfile.gettempdir()) / f"planrag-pgserver-{digest}"
    copied = target / bin_dir.relative_to(site)
    if (copied / "postgres").exists() and target.stat().st_uid == os.geteuid():
        return copied
    staging = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    parts = ["pgserver/pginstall/bin", "pgserver/pginstall/lib", "pgserver/pginstall/share"]
    for part in [*parts, "pgserver.libs"]:
        if (site / part).exists():
            shutil.copytree(site / part, staging / part, symlinks=True)
    for directory in [staging, *(d for d in staging.rglob("*") if d.is_dir())]:
        directory.chmod(0o755)
    try:
        staging.rename(target)
    except OSError:  # another process made it first
        shutil.rmtree(staging, ignore_errors=True)
    log.info("pgserver's binaries copied to %s for OS user %s", target, account.pw_name)
    return copied


def _quote_conf(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


class EmbeddedPostgres:
    """One PostgreSQL data directory, started and stopped by this process."""

    def __init__(self, pgdata: Path, os_user: str = SUPERUSER, bin_dir: Path | None = None) -> None:
        self.pgdata = pgdata.expanduser().resolve()
        self._account = self._run_as(os_user)
        self._bin = reachable_bin_dir(bin_dir or pgserver_bin_dir(), self._account)
        self._owned = False  # whether this process started the server (and so stops it)
        self._lock = threading.Lock()

    @staticmethod
    def _run_as(os_user: str) -> pwd.struct_passwd | None:
        if os.geteuid() != 0:
            return None
        for name in (os_user, "nobody"):
            try:
                account = pwd.getpwnam(name)
            except KeyError:
                log.warning("OS user %r does not exist; trying the next one", name)
                continue
            if account.pw_uid != 0:
                return account
        raise StoreUnavailable(
            f"planrag runs as root and PostgreSQL refuses root, but neither OS user "
            f"{os_user!r} nor 'nobody' exists: set PLANRAG_PG__OS_USER or PLANRAG_PG__URL",
            setting="PLANRAG_PG__OS_USER",
        )

    @property
    def socket_dir(self) -> Path:
        """The data directory itself when short enough for a socket path, else a private
        directory under the temp dir named after it."""
        if len(str(self.pgdata / f".s.PGSQL.{PORT}")) <= SOCKET_PATH_MAX:
            return self.pgdata
        digest = hashlib.sha1(str(self.pgdata).encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"planrag-pg-{digest}"

    def conninfo(self, dbname: str = DATABASE) -> str:
        return make_conninfo(host=str(self.socket_dir), port=PORT, user=SUPERUSER, dbname=dbname)

    # ── lifecycle ──────────────────────────────────────────────────────────────────────
    def start(self) -> None:
        with self._lock:
            if self._owned:
                return
            self._prepare_dirs()
            if not (self.pgdata / "PG_VERSION").exists():
                self._run(
                    "initdb",
                    "-D",
                    str(self.pgdata),
                    f"--username={SUPERUSER}",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-instructions",
                )
            if self._running():
                log.info("PostgreSQL at %s is already running: using it", self.pgdata)
            else:
                self._write_config()
                log.info("starting the embedded PostgreSQL at %s", self.pgdata)
                log_file = str(self.pgdata / "server.log")
                self._run("pg_ctl", "-D", str(self.pgdata), "-l", log_file, "-w", "start")
                self._owned = True
                atexit.register(self.stop)
        self._create_database()

    def stop(self) -> None:
        with self._lock:
            if not self._owned:
                return
            self._owned = False
            try:
                self._run("pg_ctl", "-D", str(self.pgdata), "-m", "fast", "-w", "-t", "60", "stop")
            except StoreUnavailable as exc:
                log.warning("stopping the embedded PostgreSQL failed: %s", exc.message)
        atexit.unregister(self.stop)

    def _running(self) -> bool:
        if not (self.pgdata / "postmaster.pid").exists():
            return False
        try:
            self._run("pg_ctl", "-D", str(self.pgdata), "status", quiet=True)
        except StoreUnavailable:
            return False
        return True

    def _prepare_dirs(self) -> None:
        self.pgdata.mkdir(mode=0o700, parents=True, exist_ok=True)
        dirs = [self.pgdata]
        if self.socket_dir != self.pgdata:
            self.socket_dir.mkdir(mode=0o700, exist_ok=True)
            dirs.append(self.socket_dir)
        if self._account is None:
            return
        for path in dirs:
            os.chown(path, self._account.pw_uid, self._account.pw_gid)
        if not _reachable(self.pgdata.parent, self._account):
            raise StoreUnavailable(
                f"the embedded PostgreSQL runs as OS user {self._account.pw_name!r}, who cannot "
                f"reach {self.pgdata}: make its parent directories traversable (chmod o+x), or "
                "set PLANRAG_PG__DATA_DIR elsewhere, or PLANRAG_PG__URL",
                setting="PLANRAG_PG__DATA_DIR",
            )

    def _write_config(self) -> None:
        """Our settings in an included file, rewritten at every start (the socket dir may move)."""
        options = {**SERVER_OPTIONS, "unix_socket_directories": str(self.socket_dir)}
        included = self.pgdata / "planrag.conf"
        included.write_text("".join(f"{k} = {_quote_conf(v)}\n" for k, v in options.items()))
        main = self.pgdata / "postgresql.conf"
        line = "include_if_exists = 'planrag.conf'\n"
        if line not in main.read_text():
            with main.open("a") as conf:
                conf.write("\n" + line)
        if self._account is not None:
            os.chown(included, self._account.pw_uid, self._account.pw_gid)

    def _run(self, program: str, *args: str, quiet: bool = False) -> None:
        command = [str(self._bin / program), *args]
        kwargs: dict[str, object] = {}
        if self._account is not None:
            kwargs = {
                "user": self._account.pw_uid,
                "group": self._account.pw_gid,
                "extra_groups": [],
            }
        # Output goes to files, not pipes: a pipe inherited by the server would never close.
        with tempfile.TemporaryFile("w+") as out:
            done = subprocess.run(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=str(self.pgdata),
                start_new_session=True,  # Ctrl-C in a terminal reaches planrag, not the server
                check=False,
                timeout=120,
                **kwargs,  # type: ignore[call-overload]
            )
            out.seek(0)
            output = out.read()
        if done.returncode != 0:
            if not quiet:
                log.error("%s failed:\n%s", " ".join(command), output)
            raise StoreUnavailable(
                f"embedded PostgreSQL: {program} failed ({done.returncode}): "
                f"{output.strip()[-500:]}"
            )

    def _create_database(self) -> None:
        with psycopg.connect(self.conninfo("postgres"), autocommit=True) as conn:
            found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE])
            if found.fetchone() is None:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))


class PostgresProvider:
    """The PostgreSQL planrag uses: `settings.url`, or the embedded server started on first use."""

    def __init__(self, settings: PgSettings, pgdata: Path) -> None:
        self.settings = settings
        self._pgdata = pgdata
        self._embedded: EmbeddedPostgres | None = None
        self._lock = threading.Lock()

    @property
    def embedded(self) -> bool:
        return not self.settings.url

    def _server(self) -> EmbeddedPostgres:
        with self._lock:
            if self._embedded is None:
                server = EmbeddedPostgres(self._pgdata, self.settings.os_user)
                server.start()
                self._embedded = server
            return self._embedded

    def conninfo(self) -> str:
        """A libpq connection string (starts the embedded server when needed)."""
        url = self.settings.url
        if url:
            return url.replace("postgresql+psycopg://", "postgresql://", 1)
        return self._server().conninfo()

    def sqlalchemy_url(self) -> str:
        return sqlalchemy_url(self.settings.url or self._server().conninfo())

    def close(self) -> None:
        with self._lock:
            server, self._embedded = self._embedded, None
        if server is not None:
            server.stop()


def metadata_url(settings: Settings, postgres: PostgresProvider) -> str:
    """PLANRAG_DB__URL; else PostgreSQL when PLANRAG_PG__METADATA is true; else SQLite."""
    if not settings.db.url and settings.pg.metadata:
        return postgres.sqlalchemy_url()
    return settings.database_url
