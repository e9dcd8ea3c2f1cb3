"""Diagnoses in worker processes, so that the service answers on every core at once.

Each worker opens the same KB folder read-only (its SQLite, vectors and BM25 arrays are memory-mapped files the
OS shares between the processes), its own connection to the state store (feedback vetoes and repro results are read
from there on every diagnosis, so a vote recorded by the service counts in every worker at once) and its own query
encoder. The service process keeps the HTTP surfaces: its event loop never computes a diagnosis, so a Slack or
GitHub acknowledgement never waits behind one.

Workers are started with `spawn` (a fresh interpreter: no threads or OpenMP state inherited from the service) and
each is warmed up before the service reports ready. A worker that dies is replaced by the executor's owner
(`DiagnosisPool.call` retries once on a broken pool).
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from kb.config import Settings

log = logging.getLogger(__name__)

_worker: dict = {}


def _init(settings: Settings, kb_path: str) -> None:
    # One core's worth of threads per worker: the workers are the parallelism.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from kb.index.encoder import onnx_e5
    from kb.index.tokenize import use_cache_dir

    use_cache_dir(settings.cache_dir)   # as the service process has it (bot.clikit.settings_from)

    onnx_e5.DEFAULT_THREADS = 1
    from kb.diagnose import Diagnoser
    from kb.feedback import FeedbackStore
    from kb.index.hybrid import KnowledgeBase
    from kb.repro.results import ResultStore
    from kb.state import state_for

    kb = KnowledgeBase.open(Path(kb_path), settings)
    feedback = FeedbackStore(state_for(settings, kb.path), scoped=settings.feedback_veto_scope != "global")
    repro = ResultStore(state_for(settings, kb.path))
    diagnoser = Diagnoser(kb, feedback=feedback, repro=repro)
    _worker.update(kb=kb, feedback=feedback, repro=repro, diagnoser=diagnoser)
    diagnoser.warm_up()
    _exit_with_parent(os.getppid())


def _exit_with_parent(parent: int, every_s: float = 2.0) -> None:
    """A worker whose service is gone (killed, crashed: no shutdown reached us) ends itself instead of holding its
    KB and encoder until someone notices."""
    def watch() -> None:
        while True:
            time.sleep(every_s)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _follow(generation: str | None) -> None:
    """Open the KB folder's live generation when the service has switched to another one than this worker holds
    (kb.index.store replaces CURRENT atomically; the service process decides when to switch, see
    bot.service.state)."""
    from kb.diagnose import Diagnoser

    kb = _worker["kb"]
    if not generation or kb.store.gen.name == generation:
        return
    new = kb.reopen()
    if new.store.gen.name == kb.store.gen.name:
        new.close()
        return
    _worker.update(kb=new, diagnoser=Diagnoser(new, feedback=_worker["feedback"], repro=_worker["repro"]))
    log.info("diagnosis worker %d: switched from %s to %s", os.getpid(), kb.store.gen.name, new.store.gen.name)
    kb.close()


def _ping() -> int:
    return os.getpid()


def _diagnose(text: str, name: str, top: int, scope: str | None, exclude: tuple[str, ...], not_by, lang: str,
              generation: str | None):
    _follow(generation)
    with _worker["feedback"].answering_in(scope):
        return _worker["diagnoser"].diagnose(text, name=name, top=top, exclude=exclude, not_by=not_by, lang=lang)


def _search(text: str, top: int, generation: str | None):
    _follow(generation)
    return _worker["kb"].search(text, top=top)


class DiagnosisPool:
    def __init__(self, settings: Settings, kb_path: Path, workers: int):
        self.workers = workers
        self._args = (settings, str(kb_path))   # pickled with its secrets: these are our own processes
        self._lock = threading.Lock()
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        ex = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_init, initargs=self._args)
        # Start and warm every worker now (each runs the initializer before its first task).
        pids = {f.result() for f in [ex.submit(_ping) for _ in range(self.workers * 2)]}
        log.info("%d diagnosis workers ready (pids %s)", self.workers, ", ".join(map(str, sorted(pids))))
        return ex

    def call(self, fn, *args):
        executor = self._executor
        try:
            return executor.submit(fn, *args).result()
        except BrokenProcessPool:
            with self._lock:
                if self._executor is executor:
                    log.error("a diagnosis worker died; starting the workers again")
                    self._executor = self._start()
            return self._executor.submit(fn, *args).result()

    def diagnose(self, text: str, name: str, top: int, scope: str | None, exclude: tuple[str, ...], not_by,
                 lang: str, generation: str | None):
        """`not_by` (kb.diagnose.NotBy) and `lang` as in Diagnoser.diagnose; `generation`: the KB generation the
        service answers from (a worker still on an older one opens it first)."""
        return self.call(_diagnose, text, name, top, scope, tuple(exclude), not_by, lang, generation)

    def search(self, text: str, top: int, generation: str | None = None):
        return self.call(_search, text, top, generation)

    def close(self) -> None:
        """Stop the workers: queued diagnoses are dropped, a running one is finished, and every worker process is
        joined (none is left behind holding its KB and encoder)."""
        self._executor.shutdown(wait=True, cancel_futures=True)


def default_workers() -> int:
    """One per core this process may use: the CPUs it is pinned to, and no more than a cgroup CPU quota allows (a
    container limited to 2 CPUs on a 64-core node gets 2 workers, not 64)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, int(int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cores)
