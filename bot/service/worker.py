"""A background worker: one thread that runs submitted jobs in order, off the event loop.

One thread on purpose: jobs for the same issue (or channel) must not race, and diagnosis is CPU-bound on a small
machine anyway. Each job runs in the context it was submitted from, so its log lines carry the request id.
"""
from __future__ import annotations

import contextvars
import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

_STOP = object()


class Worker:
    def __init__(self, name: str):
        self.name = name
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()

    def submit(self, fn: Callable[..., object], *args, **kwargs) -> None:
        self._jobs.put((contextvars.copy_context(), fn, args, kwargs))

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the job at hand and stop; jobs still queued are dropped (their owners persist what matters)."""
        if self._thread is None:
            return
        while True:
            try:
                self._jobs.get_nowait()
            except queue.Empty:
                break
        self._jobs.put(_STOP)
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning("worker %s still busy after %.0f s; leaving it", self.name, timeout)
        self._thread = None

    def _run(self) -> None:
        while True:
            item = self._jobs.get()
            if item is _STOP:
                return
            ctx, fn, args, kwargs = item
            try:
                ctx.run(fn, *args, **kwargs)
            except Exception:  # noqa: BLE001 - a failed job must not stop the worker
                log.exception("background job %s failed", getattr(fn, "__name__", fn))
