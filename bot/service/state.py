"""What the running service holds: settings, the loaded KB, its diagnoser and feedback store, and hooks to run
once the KB is ready. Routes get it with `service_state(request)`; surfaces (GitHub, Slack) keep theirs beside it.

A KB folder gets a new generation when `triage ingest` or `triage import` runs again (kb.index.store: CURRENT is
replaced atomically). Every TRIAGE_KB_RELOAD_S seconds a thread looks at CURRENT; when it names another generation,
that one is opened, checked and warmed up beside the one in use (which answers meanwhile), then swapped in between
two diagnoses. The old one is closed a while later, so that a request that read it just before the swap finishes
on it. A new generation that fails to load is logged and tried again at the next look; the old one stays.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fastapi import Request

from bot.service.errors import NotReady
from kb.config import Settings

if TYPE_CHECKING:
    from bot.service.pool import DiagnosisPool
    from kb.diagnose import Diagnoser, NotBy
    from kb.feedback import Feedback, FeedbackStore
    from kb.index.hybrid import KnowledgeBase
    from kb.models import Diagnosis
    from kb.repro.results import ResultStore

log = logging.getLogger(__name__)


@dataclass
class ServiceState:
    settings: Settings
    kb: KnowledgeBase | None = None
    diagnoser: Diagnoser | None = None
    feedback: FeedbackStore | None = None
    repro: ResultStore | None = None
    load_error: str | None = None
    kb_identity: dict | None = None      # kb.stats.kb_identity of the loaded KB: every answer names it
    # Called (in the loading thread) once the KB is open and before the service reports ready, so that a request
    # let in by /healthz never finds a surface half set up. Work a hook starts in the background calls wait_ready.
    ready_hooks: list[Callable[[ServiceState], None]] = field(default_factory=list)
    # Diagnosis worker processes (bot.service.pool): 0 diagnoses in this process, one at a time (below); N > 0 runs
    # up to N at once in N processes, with no lock here.
    workers: int = 0
    pool: DiagnosisPool | None = None
    # In-process mode: the matcher keeps per-call state, the embedder is not re-entrant, and the matcher reads the
    # feedback table that surfaces write: one diagnosis (or feedback write) at a time.
    _diagnose_lock: threading.Lock = field(default_factory=threading.Lock)
    _ready: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _reloader: threading.Thread | None = None
    _retired: list = field(default_factory=list)       # (KnowledgeBase, monotonic time it was swapped out)
    _failed_generation: str | None = None               # a generation that did not load (said once in the log)
    reloads: int = 0                                     # how many times a new generation was swapped in

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def load(self, kb: KnowledgeBase | None = None) -> None:
        """Open the KB (unless given), build the diagnoser, warm it up (`Diagnoser.warm_up`), then run the ready hooks."""
        from kb.diagnose import Diagnoser
        from kb.feedback import FeedbackStore
        from kb.repro.results import ResultStore
        from kb.state import state_for
        from kb.stats import kb_identity

        started = time.monotonic()
        try:
            if kb is None:
                from bot.compose import open_kb

                kb = open_kb(self.settings, self.settings.kb)
            # Both in the state store: the KB folder's SQLite file, or the database the replicas share.
            feedback = FeedbackStore(state_for(self.settings, kb.path),
                                     scoped=self.settings.feedback_veto_scope != "global")
            repro = ResultStore(state_for(self.settings, kb.path))
            # Feedback makes the matcher skip entries marked wrong for a report's signature; repro results decide
            # whether a fix marked "repro" counts as verified (as in `diagnose`).
            diagnoser = Diagnoser(kb, feedback=feedback, repro=repro)
            if self.workers > 0:
                from bot.service.pool import DiagnosisPool

                self.pool = DiagnosisPool(self.settings, kb.path, self.workers)
            else:
                diagnoser.warm_up()
            identity = kb_identity(kb)
        except Exception as exc:  # noqa: BLE001 - reported by /healthz and the log, not raised into the loop
            self.load_error = getattr(exc, "user_message", None) or f"{type(exc).__name__}: {exc}"
            log.error("knowledge base failed to load: %s", self.load_error)
            return
        self.kb, self.feedback, self.repro, self.diagnoser = kb, feedback, repro, diagnoser
        self.kb_identity = identity
        for hook in self.ready_hooks:
            try:
                hook(self)
            except Exception:  # noqa: BLE001 - one surface's hook must not keep the others from starting
                log.exception("ready hook %s failed", getattr(hook, "__name__", hook))
        self._ready.set()
        log.info("knowledge base %s loaded (%d entries) in %.1f s", kb.path, len(kb.documents()),
                 time.monotonic() - started)
        self.start_reloading()

    # --- new generations of the KB folder ----------------------------------------------------------------------
    def start_reloading(self) -> None:
        """Look for new generations of the loaded KB's folder every TRIAGE_KB_RELOAD_S seconds (0: never)."""
        interval = self.settings.kb_reload_s
        if interval <= 0 or self.kb is None or self._reloader is not None:
            return
        self._reloader = threading.Thread(target=self._reload_loop, args=(interval,), name="kb-reload",
                                          daemon=True)
        self._reloader.start()

    def stop(self) -> None:
        """Stop looking for new generations (the service is shutting down)."""
        self._stop.set()
        if self._reloader is not None:
            self._reloader.join(timeout=30)

    def _reload_loop(self, interval: float) -> None:
        said = ""
        while not self._stop.wait(interval):
            try:
                self.reload_if_changed()
                said = ""
            except Exception as exc:  # noqa: BLE001 - the next look tries again; the KB in use keeps answering
                why = getattr(exc, "user_message", None) or f"{type(exc).__name__}: {exc}"
                if why != said:        # once per problem, not at every look
                    log.error("looking for a new generation of the knowledge base failed (%s); still answering "
                              "from the one in use", why)
                said = why

    def reload_if_changed(self) -> bool:
        """Switch to the KB folder's live generation when it is not the one in use; True when it switched."""
        from kb.diagnose import Diagnoser
        from kb.index import store
        from kb.stats import kb_identity

        self._close_retired(grace_s=max(60.0, 2 * self.settings.kb_reload_s))
        old = self.kb
        if old is None:
            return False
        gen = store.current_generation(old.path)
        if gen is None or gen.name == old.store.gen.name or gen.name == self._failed_generation:
            return False
        started = time.monotonic()
        try:
            kb = old.reopen()
            diagnoser = Diagnoser(kb, feedback=self.feedback, repro=self.repro)
            if self.pool is None:
                diagnoser.warm_up()          # (workers open the new generation themselves, at their next diagnosis)
            identity = kb_identity(kb)
        except Exception as exc:  # noqa: BLE001 - a half-written or incompatible generation: keep the old one
            why = getattr(exc, "user_message", None) or f"{type(exc).__name__}: {exc}"
            if self._failed_generation != gen.name:
                log.error("knowledge base %s: the new generation %s did not load (%s); still answering from %s",
                          old.path, gen.name, why, old.store.gen.name)
            self._failed_generation = gen.name
            return False
        with self._diagnose_lock:
            self.kb, self.diagnoser, self.kb_identity = kb, diagnoser, identity
            self.reloads += 1
        self._retired.append((old, time.monotonic()))
        log.info("knowledge base %s: switched from %s to %s (%d entries), loaded in %.1f s", kb.path,
                 old.store.gen.name, gen.name, identity.get("documents") or 0, time.monotonic() - started)
        return True

    def _close_retired(self, grace_s: float) -> None:
        now = time.monotonic()
        keep = []
        for kb, since in self._retired:
            if now - since >= grace_s:
                try:
                    kb.close()
                except Exception:  # noqa: BLE001 - closing what nobody uses any more
                    log.debug("closing a retired knowledge base failed", exc_info=True)
            else:
                keep.append((kb, since))
        self._retired = keep

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the KB is loaded: True once it is; False when loading failed (or `timeout` passed)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._ready.wait(0.5):
            if self.load_error is not None or (deadline is not None and time.monotonic() > deadline):
                return False
        return True

    def require_ready(self) -> None:
        if not self.ready:
            message = (f"The knowledge base failed to load: {self.load_error}" if self.load_error
                       else "The knowledge base is still loading; retry in a few seconds.")
            raise NotReady(message)

    def diagnose(self, text: str, name: str = "<request>", top: int = 3, scope: str | None = None,
                 exclude: tuple[str, ...] = (), not_by: NotBy | None = None, lang: str | None = None) -> Diagnosis:
        """`scope`: where the answer is given (kb.feedback.github_scope / slack_scope), so that vetoes said
        elsewhere do not apply (unless TRIAGE_FEEDBACK_VETO_SCOPE=global); None: every veto applies. `exclude`:
        sources never proposed (the issue being answered, github:OWNER/REPO#N). `not_by`: the report's author and
        time (kb.diagnose.NotBy): threads they opened within the hour are not the answer. `lang`: en, zh or auto
        (the report's language); None: TRIAGE_LANG."""
        self.require_ready()
        if self.pool is not None:
            return self.pool.diagnose(text, name, top, scope, tuple(exclude), not_by, lang or self.settings.lang,
                                      self.kb.store.gen.name)
        with self._diagnose_lock, self.feedback.answering_in(scope):
            return self.diagnoser.diagnose(text, name=name, top=top, exclude=exclude, not_by=not_by,
                                           lang=lang or self.settings.lang)

    def record_feedback(self, fb: Feedback) -> Feedback:
        self.require_ready()
        if self.pool is not None:   # a transaction of the state store; the workers read it on their next answer
            return self.feedback.record(fb)
        with self._diagnose_lock:
            return self.feedback.record(fb)

    def search(self, text: str, top: int = 5):
        self.require_ready()
        if self.pool is not None:
            return self.pool.search(text, top, self.kb.store.gen.name)
        with self._diagnose_lock:
            return self.kb.search(text, top=top)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def service_state(request: Request) -> ServiceState:
    return request.app.state.triage
