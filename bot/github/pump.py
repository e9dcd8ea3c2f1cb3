"""The GitHub worker: one thread per replica that takes due deliveries from the store and processes them.

The store is the queue, so every replica sees the same work: what this replica accepted (it is woken at once),
what another replica accepted but never got to (it died), deliveries whose retry time has come, and deliveries
whose holder stopped renewing its lease. One delivery at a time per replica, on purpose: diagnosis is CPU-bound on
a small machine anyway. While a delivery is processed, a heartbeat renews its lease every third of it.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from bot.github.deliveries import Delivery, DeliveryStore
from bot.service.logs import request_id_var
from kb.errors import KBError

log = logging.getLogger(__name__)

# Longest sleep with nothing due: how soon work left by another replica (one that died right after accepting it)
# is noticed, at the latest.
POLL_S = 5.0


class DeliveryPump:
    def __init__(self, store: DeliveryStore, process: Callable[[Delivery], None], owner: str, lease_s: float,
                 wait_ready: Callable[[], bool], poll_s: float = POLL_S):
        self.store = store
        self.process = process
        self.owner = owner
        self.lease_s = lease_s
        self.wait_ready = wait_ready
        self.poll_s = min(poll_s, lease_s / 2)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._store_down = False

    def start(self) -> None:
        if self._thread is None:
            released = self.store.release(self.owner)
            if released:
                log.info("replica %s stopped while processing %d deliveries; they are due again: %s", self.owner,
                         len(released), ", ".join(released[:10]))
            self._thread = threading.Thread(target=self._run, name="github", daemon=True)
            self._thread.start()

    def wake(self) -> None:
        """Something was accepted here: look now rather than at the next poll."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the delivery at hand and stop (what is left stays in the store for whoever comes next)."""
        if self._thread is None:
            return
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning("the GitHub worker is still busy after %.0f s; leaving it", timeout)
        self._thread = None

    def _run(self) -> None:
        if not self.wait_ready():
            log.error("GitHub deliveries are left pending: the knowledge base did not load")
            return
        while not self._stop.is_set():
            try:
                delivery = self.store.claim(self.owner, self.lease_s)
                wait = None if delivery is not None else self.store.next_due_in()
            except KBError as exc:
                self._down(exc)
                self._stop.wait(self.poll_s)
                continue
            if self._store_down:
                log.info("the deliveries store answers again")
                self._store_down = False
            if delivery is None:
                self._wake.wait(self.poll_s if wait is None else min(self.poll_s, wait))
                self._wake.clear()
                continue
            self._process(delivery)

    def _process(self, delivery: Delivery) -> None:
        token = request_id_var.set(delivery.id)
        done = threading.Event()
        beat = threading.Thread(target=self._heartbeat, args=(delivery.id, done), name="github-lease", daemon=True)
        beat.start()
        try:
            if delivery.resumed_from:
                log.info("resuming delivery %s (left unfinished by %s; attempt %d)", delivery.id,
                         delivery.resumed_from, delivery.attempts)
            self.process(delivery)
        except Exception:  # noqa: BLE001 - one delivery must not stop the worker; the log has the traceback
            log.exception("delivery %s: processing failed", delivery.id)
        finally:
            done.set()
            beat.join()
            request_id_var.reset(token)

    def _heartbeat(self, delivery_id: str, done: threading.Event) -> None:
        while not done.wait(self.lease_s / 3):
            try:
                if not self.store.renew(delivery_id, self.owner, self.lease_s):
                    log.warning("delivery %s: our lease on it was lost (another replica may have taken it over)",
                                delivery_id)
                    return
            except KBError as exc:
                log.warning("delivery %s: the lease could not be renewed: %s", delivery_id, exc.user_message)

    def _down(self, exc: KBError) -> None:
        if not self._store_down:
            log.error("the deliveries store is unavailable; trying again every %.0f s: %s", self.poll_s,
                      exc.user_message)
            self._store_down = True
