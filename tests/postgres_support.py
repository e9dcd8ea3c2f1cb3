"""A real PostgreSQL server for tests: a fresh data folder (initdb), `postgres` on a free port of 127.0.0.1 with its
socket in that folder, stopped and removed afterwards. PostgreSQL will not run as root, so as root the server runs
as the unprivileged user `nobody`. Where no PostgreSQL binaries are installed, `find_bindir` says so and the tests
that need one skip."""
from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from tests.service_support import free_port


def find_bindir() -> Path | None:
    """The folder of initdb and postgres: Debian's versioned folder (the newest), else the PATH."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True):
        if os.access(Path(folder) / "initdb", os.X_OK) and os.access(Path(folder) / "postgres", os.X_OK):
            return Path(folder)
    initdb = shutil.which("initdb")
    if initdb and shutil.which("postgres"):
        return Path(initdb).parent
    return None


class TempPostgres:
    def __init__(self, bindir: Path):
        self.bindir = bindir
        # Not under pytest's tmp folder: that one is readable by its owner only, and the server's user must reach it.
        self.root = Path(tempfile.mkdtemp(prefix="triage-pg-"))
        self.data = self.root / "data"
        self.user = "nobody" if os.geteuid() == 0 else None
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.log_path = self.root / "postgres.log"

    def _run_as(self) -> dict:
        return {"user": self.user, "group": "nogroup"} if self.user else {}

    def start(self) -> TempPostgres:
        if self.user:
            shutil.chown(self.root, self.user)
        os.chmod(self.root, 0o700)
        subprocess.run([str(self.bindir / "initdb"), "-D", str(self.data), "-U", "triage", "-A", "trust",
                        "-E", "UTF8", "--no-sync", "--no-instructions"], check=True, capture_output=True,
                       timeout=60, **self._run_as())
        self._launch()
        return self

    def _launch(self, port: int | None = None) -> None:
        for _ in range(3):   # a free port can be taken by someone else before the server binds it
            self.port = port or free_port()
            log = open(self.log_path, "ab")
            self.proc = subprocess.Popen(
                [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port),
                 "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.root}",
                 "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                 "-c", "max_connections=60"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True, **self._run_as())
            log.close()
            if self._wait_ready():
                return
            self.stop()
            if port:
                break
        raise RuntimeError(f"postgres did not start:\n{self.log()}")

    def _wait_ready(self, timeout: float = 30.0) -> bool:
        import psycopg

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return True
            except psycopg.OperationalError:
                time.sleep(0.1)
        return False

    def url(self, db: str) -> str:
        return f"postgresql://triage@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        """A database of its own for one test: its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        """Fast shutdown (SIGINT), then SIGKILL if it hangs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.proc = None

    def restart(self) -> None:
        """Stop and start again on the same port and data (clients' connections break)."""
        self.stop()
        self._launch(self.port)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
