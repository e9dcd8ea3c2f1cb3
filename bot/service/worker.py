"""A background worker: one thread that runs submitted jobs in order, off the event loop.

One thread on purpose: jobs for the same issue (or channel) must not race, and diagnosis is CPU-bound on a small
machine anyway. Each job runs in the context it was submitted from, so its log lines carry the request id.
`submit_later` queues a job once its delay has passed (retries with backoff), in the same order as the rest.
"""
from __future__ import annotations

import contextvars
import heapq
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

_STOP = object()


class Worker:
    def __init__(self, name: str):
        self.name = name
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._later: list = []            # heap of (due, seq, job)
        self._later_lock = threading.Lock()
        self._seq = itertools.count()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()

    def submit(self, fn: Callable[..., object], *args, **kwargs) -> None:
        self._jobs.put((contextvars.copy_context(), fn, args, kwargs))

    def submit_later(self, delay: float, fn: Callable[..., object], *args, **kwargs) -> None:
        if delay <= 0:
            return self.submit(fn, *args, **kwargs)
        with self._later_lock:
            heapq.heappush(self._later, (time.monotonic() + delay, next(self._seq),
                                         (contextvars.copy_context(), fn, args, kwargs)))
        self._jobs.put(None)  # wake the thread so it waits for the new deadline

    def pending_later(self) -> int:
        with self._later_lock:
            return len(self._later)

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the job at hand and stop; jobs still queued are dropped (their owners persist what matters)."""
        if self._thread is None:
            return
        while True:
            try:
                self._jobs.get_nowait()
            except queue.Empty:
                break
        with self._later_lock:
            self._later.clear()
        self._jobs.put(_STOP)
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning("worker %s still busy after %.0f s; leaving it", self.name, timeout)
        self._thread = None

    def _next_timeout(self) -> float | None:
        """Move the delayed jobs that are due onto the queue; how long until the next one is."""
        with self._later_lock:
            now = time.monotonic()
            while self._later and self._later[0][0] <= now:
                self._jobs.put(heapq.heappop(self._later)[2])
            return max(0.0, self._later[0][0] - now) if self._later else None

    def _run(self) -> None:
        while True:
            try:
                item = self._jobs.get(timeout=self._next_timeout())
            except queue.Empty:
                continue
            if item is _STOP:
                return
            if item is None:  # a wake-up from submit_later
                continue
            ctx, fn, args, kwargs = item
            try:
                ctx.run(fn, *args, **kwargs)
            except Exception:  # noqa: BLE001 - a failed job must not stop the worker
                log.exception("background job %s failed", getattr(fn, "__name__", fn))
