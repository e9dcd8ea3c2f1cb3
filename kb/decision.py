"""The learned decision: the probability that a candidate entry is the report's root cause.

The matcher measures signals per candidate (signature similarity, fact agreements, BM25, dense, frames,
corroboration by the prose, margins to the runner-up, what the report shows, and the report's encoding against the
entry's dimension by dimension); `complete` turns them into one vector per candidate, and a logistic regression trained
on labelled sets (`triage train-decision`) turns that vector into a probability. The rules that used to decide (a
symptom with many causes needs corroboration, a secondary line does not carry a match, ...) are features here, not
vetoes; only a hard fact conflict and a feedback veto rule a candidate out.

The weights are data (`kb/data/decision/weights.json`) stamped with `FEATURE_VERSION`: a matcher whose features
differ refuses them rather than reading one signal with another's weight.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from kb.errors import KBError
from kb.policy import POLICY

# Name and meaning of every feature, in vector order. Changing the list (or what a feature means: bump the suffix)
# changes FEATURE_VERSION, and weights trained on another version are refused.
FEATURES: Final[list[tuple[str, str]]] = [
    ("sig", "best similarity of a report event with an entry line (0..1)"),
    ("sig_weighted", "the same, weighted by the event's role (primary error most, wrappers least)"),
    ("sig_accept", "1 when that similarity reaches the line-explains-the-error bar"),
    ("sig_quote", "1 when it is close enough to be a verbatim quote of the entry's line"),
    ("sig_margin", "similarity minus the best other candidate's"),
    ("role_primary", "the best pair is the report's primary printed error"),
    ("role_side", "the best pair is a cause or secondary line"),
    ("role_wrapper", "the best pair is a wrapper or cleanup line"),
    ("role_inferred", "the best pair is an event inferred from frames or prose (no printed line)"),
    ("secondary_only", "matches a secondary line while the primary error has a counterpart elsewhere"),
    ("printed", "the report prints an error line"),
    ("symptom", "the report's error is a symptom with many known causes"),
    ("diverges", "the report's message parts ways with the entry's (other names or words)"),
    ("kin", "another message that agrees with the entry on a hard fact"),
    ("needs_rest", "one of the three above: the error alone does not pick the entry"),
    ("corroboration", "how strongly the report's prose and frames point to the entry (0..1)"),
    ("needs_rest_x_corr", "needs_rest times corroboration"),
    ("alone_symptom", "a symptom with many causes, and the rest of the report does not point here (corroboration "
                      "< 0.6)"),
    ("alone_diverges", "another name or other words in the entry's message, and nothing else points here"),
    ("alone_kin", "another message agreeing on a hard fact, and nothing else points here"),
    ("bm25", "BM25 of the entry's best chunk, relative to the best entry"),
    ("dense", "dense cosine of the entry's best chunk, mapped onto 0..1"),
    ("fused", "mean of bm25 and dense"),
    ("fused_margin", "fused minus the best other candidate's"),
    ("bm25_first", "first on BM25"),
    ("dense_first", "first on dense"),
    ("score_margin", "the fused score of all signals minus the best other candidate's"),
    ("frames", "share of the report's library frames the entry's tracebacks show"),
    ("coverage", "IDF share of the traceback's library functions the entry talks about"),
    ("tied", "other candidates explain the error equally well (log count)"),
    ("telling", "report lines only this one of the tied candidates lists (log count)"),
    ("tied_alone", "tied, and neither the report's other lines, its prose nor (when the reporter wrote words of their "
                   "own) retrieval over the whole report favour this one (by 0.1 corroboration or fused score)"),
    ("agree_specific", "specific facts the report's error and the entry's line agree on (log count)"),
    ("says_what", "the report says what failed in terms this entry can be held to"),
    ("of_class", "the entry is of the error class the report names (out of memory, a device assert)"),
    ("other_class", "the report names an error class (out of memory, a device assert) the entry is not of"),
    ("unprinted_x_fused_margin", "no printed error line, times fused_margin"),
    ("unprinted_x_says_what", "no printed error line, times says_what"),
    ("blocked", "a look-alike that conflicts on a hard fact explains the error better"),
    ("entry_curated", "the entry's error lines are curated front-matter signatures, not extracted from prose"),
    ("curated_quote", "the report's primary error quotes one of a curated entry's signatures (similarity >= 0.85)"),
    ("entry_lines", "how many error lines the entry has (log count)"),
    ("events", "how many error events the report has (log count)"),
    ("prose", "how much the reporter wrote (log characters)"),
    ("cause_lead", "IDF weight of the terms of the entry's cause and fixes the report uses outside any candidate's "
                   "error lines, less the best other candidate's (signed log); 0 where the reporter wrote no words of "
                   "their own"),
]
SIGNALS: Final[int] = len(FEATURES)     # the matcher measures these; the model derives the next one (DERIVED)

# The meaning of the report against the entry: the elementwise product of the report's query encoding and the
# entry's nearest chunk vector (their cosine, dimension by dimension). Cosine weighs every dimension alike, so it
# says "same topic"; a weighting learned on labelled sets (`Meaning`) says "same root cause" better. The matcher
# appends the MEANING_DIMS products to the signals; the model turns them into one feature.
MEANING_DIMS: Final = 384               # the bundled encoder's (multilingual-e5-small); another size gives none
DERIVED: Final[list[tuple[str, str]]] = [
    ("meaning", "the learned weighting of the report's and the entry's encodings, dimension by dimension (logit)"),
]
FEATURE_NAMES: Final[list[str]] = [name for name, _ in FEATURES + DERIVED]
FEATURE_VERSION: Final[str] = "feat:" + hashlib.sha256(
    (f"v4|meaning:{MEANING_DIMS}:prose>={POLICY.prose_min}|" + "|".join(FEATURE_NAMES)).encode()).hexdigest()[:12]

WEIGHTS_PATH: Final = Path(__file__).resolve().parent / "data" / "decision" / "weights.json"


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(-40.0, min(40.0, z))))


def _logit(p: float) -> float:
    p = min(1 - 1e-6, max(1e-6, p))
    return math.log(p / (1 - p))


def exclusive(scores: list[float]) -> list[float]:
    """Independent per-candidate probabilities made exclusive, with "none of them" as one more outcome: each
    candidate's odds over one plus the sum of all odds (one strong candidate keeps its probability)."""
    odds = [p / (1 - p) if p < 1 else 1e6 for p in scores]
    total = 1 + sum(odds)
    return [o / total for o in odds]


def log_count(n: float) -> float:
    return math.log1p(max(0.0, n)) / math.log(8)


def _logit_of(x: list[float], mean, scale, coef, intercept: float) -> float:
    """A logistic regression's logit over standardised features (the decision's and each meaning's)."""
    return intercept + sum(c * (v - m) / s for c, v, m, s in zip(coef, x, mean, scale))


@dataclass(frozen=True)
class Meaning:
    """A logistic regression over the MEANING_DIMS products, trained on its own before the decision's (its score,
    a logit, is one feature of the decision)."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def score(self, products: list[float]) -> float:
        return _logit_of(products, self.mean, self.scale, self.coef, self.intercept)

    def to_json(self) -> dict:
        return {"mean": list(self.mean), "scale": list(self.scale), "coef": list(self.coef),
                "intercept": self.intercept}

    @classmethod
    def from_json(cls, data: dict) -> "Meaning":
        m = cls(tuple(map(float, data["mean"])), tuple(map(float, data["scale"])), tuple(map(float, data["coef"])),
                float(data["intercept"]))
        if not (len(m.mean) == len(m.scale) == len(m.coef) == MEANING_DIMS):
            raise ValueError(f"the meaning weights need {MEANING_DIMS} of each")
        return m


# The meaning counts only where the reporter wrote words of their own (the policy's prose_min, the bar below which
# the rest of a report says nothing): on a bare pasted line the encoding says which entry's text the line resembles,
# not which cause it has, and look-alikes that share the line must stay tied.
MEANING_PROSE: Final = math.log1p(POLICY.prose_min) / 8     # on the scale of the "prose" feature


def complete(xs: list[list[float]], meaning: "Meaning | None") -> list[list[float]]:
    """The decision's feature vectors (FEATURE_NAMES) of one report's candidates from what the matcher measured:
    the signals, then the meaning score when it had encodings and the reporter's words (0 otherwise, or without
    meaning weights). A margin to the runner-up's meaning was tried as well: it let the meaning overrule the prose in
    near-ties."""
    prose = FEATURE_NAMES.index("prose")
    out = []
    for x in xs:
        known = meaning is not None and len(x) == SIGNALS + MEANING_DIMS and x[prose] >= MEANING_PROSE
        out.append(list(x[:SIGNALS]) + [meaning.score(x[SIGNALS:]) if known else 0.0])
    return out


@dataclass(frozen=True)
class DecisionModel:
    """A logistic regression over standardised features, with the match threshold chosen at training."""

    feature_version: str
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    meta: dict
    calibration: tuple[float, float] = (1.0, 0.0)    # Platt scaling of the top candidate's score: (slope, offset)
    # Platt scaling of the same probability into "no entry is the cause", for answers that abstain: one minus the
    # top candidate's probability overstates it (the cause may be another candidate, or one retrieval missed).
    abstain_calibration: tuple[float, float] = (-1.0, 0.0)
    caps: tuple[tuple[str, float], ...] = ()          # (rule feature, how often a candidate it fires on was right)
    meaning: Meaning | None = None                    # None: the meaning feature is 0

    def score(self, x: list[float]) -> float:
        """The candidate model's probability that this candidate is the root cause (ranks candidates). A rule
        that fires on the candidate bounds it by the rule's record in training: a linear model would otherwise let
        strong retrieval over the very same words outweigh "another name in the same words"."""
        z = _logit_of(x, self.mean, self.scale, self.coef, self.intercept)
        p = _sigmoid(z)
        for name, cap in self.caps:
            if x[FEATURE_NAMES.index(name)] > 0:
                p = min(p, cap)
        return p

    def confidence(self, score: float) -> float:
        """The probability that the top candidate, with this score, is right: the score recalibrated on answers to
        sets the candidate model was not trained on (the best of several candidates is flattered by its score)."""
        a, b = self.calibration
        return _sigmoid(a * _logit(score) + b)

    def answer_confidence(self, top: float) -> tuple[bool, float]:
        """(matched, confidence) of the answer whose most probable candidate has calibrated probability `top`: a
        match is as likely right as its candidate; a no-match as likely as the report having no entry here, learned
        from abstentions on sets the model was not trained on."""
        if top >= self.threshold:
            return True, top
        a, b = self.abstain_calibration
        return False, _sigmoid(a * _logit(top) + b)

    def probabilities(self, xs: list[list[float]], ruled_out: list[bool]) -> list[float]:
        """For each candidate of one report, the calibrated probability that it is the root cause (0 when a hard
        rule ruled it out). At most one candidate is the cause, so their scores are shared out (`exclusive`): two
        entries that explain the report equally well are each less likely than either would be alone."""
        return self.probabilities_with_unvetoed(xs, ruled_out)[0]

    def probabilities_with_unvetoed(self, xs: list[list[float]],
                                    ruled_out: list[bool]) -> tuple[list[float], list[float]]:
        """`probabilities`, and the same as if no hard rule had ruled any candidate out (how likely the model finds
        a look-alike before its conflicting fact is read: the order answers show candidates in)."""
        scores = [self.score(x) for x in complete(xs, self.meaning)]

        def share(raw: list[float]) -> list[float]:
            return [self.confidence(p) if p > 0 else 0.0 for p in exclusive(raw)]

        return share([0.0 if r else p for p, r in zip(scores, ruled_out)]), share(scores)

    def to_json(self) -> dict:
        return {"feature_version": self.feature_version, "features": FEATURE_NAMES, "mean": list(self.mean),
                "scale": list(self.scale), "coef": list(self.coef), "intercept": self.intercept,
                "calibration": list(self.calibration), "abstain_calibration": list(self.abstain_calibration),
                "caps": dict(self.caps), "threshold": self.threshold,
                "meaning": self.meaning.to_json() if self.meaning is not None else None, "meta": self.meta}

    @classmethod
    def from_json(cls, data: dict, origin: str = "decision weights") -> "DecisionModel":
        version = data.get("feature_version")
        if version != FEATURE_VERSION:
            raise KBError(f"{origin} were trained for feature set {version}, but this matcher computes "
                          f"{FEATURE_VERSION}: retrain them with `triage train-decision SETDIR...`")
        n = len(FEATURE_NAMES)
        try:
            model = cls(version, tuple(map(float, data["mean"])), tuple(map(float, data["scale"])),
                        tuple(map(float, data["coef"])), float(data["intercept"]), float(data["threshold"]),
                        dict(data.get("meta") or {}), tuple(map(float, data["calibration"])),
                        tuple(map(float, data["abstain_calibration"])),
                        tuple((str(k), float(v)) for k, v in dict(data.get("caps") or {}).items()),
                        Meaning.from_json(data["meaning"]) if data.get("meaning") else None)
        except (KeyError, TypeError, ValueError) as exc:
            raise KBError(f"{origin} are not readable ({exc})") from None
        if not (len(model.mean) == len(model.scale) == len(model.coef) == n):
            raise KBError(f"{origin} have the wrong number of weights for {n} features")
        if any(name not in FEATURE_NAMES for name, _ in model.caps):
            raise KBError(f"{origin} bound a rule this matcher does not compute")
        return model

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)


def load_model(path: Path | None = None) -> DecisionModel:
    path = path or WEIGHTS_PATH
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KBError(f"no decision weights at {path}: train them with `triage train-decision SETDIR...`") from None
    except ValueError as exc:
        raise KBError(f"decision weights at {path} are not JSON ({exc})") from None
    return DecisionModel.from_json(data, origin=f"the decision weights at {path}")


def neutral_model() -> DecisionModel:
    """All weights zero (every candidate at 0.5, nothing accepted): what features are measured with before training."""
    n = len(FEATURE_NAMES)
    return DecisionModel(FEATURE_VERSION, (0.0,) * n, (1.0,) * n, (0.0,) * n, 0.0, 1.01, {"neutral": True}, (1.0, 0.0))


# -- training ---------------------------------------------------------------------------------------------------
MAX_WRONG_ON_POSITIVES: Final = 0.02   # the match threshold keeps wrong answers on positives at or under this share


@dataclass
class QueryRows:
    """One labelled query as the matcher saw it: per considered candidate its source, features and whether a hard
    rule (fact conflict, feedback) ruled it out."""

    query: str
    kind: str
    expected: str | None
    candidates: list[tuple[str, list[float], bool]]


def shown_order(probs: list[float], unvetoed: list[float], matched: bool) -> list[int]:
    """The order an answer shows candidates in: the answer first when there is one, then the others by how likely
    the model finds them before hard rules rule any out (a look-alike ruled out by a fact is shown where it would
    stand, with what tells it apart)."""
    order = sorted(range(len(probs)), key=lambda i: -unvetoed[i])
    if matched and probs:
        best = max(range(len(probs)), key=lambda i: probs[i])
        order.remove(best)
        order.insert(0, best)
    return order


def pick(rows: QueryRows, probs: list[float]) -> tuple[str | None, float]:
    """The candidate the decision would put first, and its probability (ruled-out candidates have 0)."""
    best, best_p = None, 0.0
    for (source, _, ruled_out), p in zip(rows.candidates, probs):
        p = 0.0 if ruled_out else p
        if best is None or p > best_p:
            best, best_p = source, p
    return best, best_p


def outcome(rows: QueryRows, probs: list[float], model: "DecisionModel") -> tuple[bool, bool, float]:
    """(matched, right, confidence) of the decision on one query."""
    best, p = pick(rows, probs)
    matched, confidence = model.answer_confidence(p)
    matched = matched and best is not None
    right = (matched and best == rows.expected) or (not matched and rows.expected is None)
    return matched, right, confidence


THRESHOLDS: Final = tuple(x / 20 for x in range(6, 19))    # 0.30, 0.35, ... 0.90: a coarse grid, stable on few sets


def _judged(q: QueryRows, top: tuple[str | None, float], threshold: float) -> tuple[bool, bool]:
    """(right, wrong answer on a positive) of answering with `top` (pick's candidate and probability) at a threshold."""
    src, p = top
    matched = src is not None and p >= threshold
    right = (matched and src == q.expected) or (not matched and q.expected is None)
    return right, matched and q.expected is not None and src != q.expected


def choose_threshold(queries: list[QueryRows], probs: list[list[float]]) -> float:
    """The threshold with the best accuracy among those that keep wrong answers on positives at or under
    MAX_WRONG_ON_POSITIVES; when none does, the one with the fewest wrong answers (then the best accuracy)."""
    tops = [pick(q, p) for q, p in zip(queries, probs)]
    positives = max(1, sum(q.expected is not None for q in queries))
    scored = []
    for t in THRESHOLDS:
        judged = [_judged(q, top, t) for q, top in zip(queries, tops)]
        right, wrong = sum(r for r, _ in judged), sum(w for _, w in judged)
        scored.append((wrong / positives <= MAX_WRONG_ON_POSITIVES, -wrong, right, -t, t))
    within = [s for s in scored if s[0]]
    if within:
        return max(within, key=lambda s: (s[2], s[3]))[-1]
    return max(scored, key=lambda s: (s[1], s[2], s[3]))[-1]


MEANING_C: Final = 0.03   # inverse L2 strength of the meaning weights (best of 0.003, 0.03, 0.1 left one set out, 91 sets)
REGULARISATIONS: Final = (0.01, 0.03, 0.1, 0.5)   # inverse L2 strengths tried; fit keeps the best on unseen sets
SEED: Final = 0


def _standardised_lr(X: list[list[float]], y: list[int], C: float):
    """(mean, scale, coef, intercept) of a logistic regression over standardised features (a constant feature keeps
    scale 1)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    lr = LogisticRegression(C=C, max_iter=5000, random_state=SEED).fit((X - mean) / scale, np.asarray(y))
    return mean, scale, lr.coef_[0], float(lr.intercept_[0])


def _fit_lr(queries: list[QueryRows], C: float):
    X, y = [], []
    for q in queries:
        for source, x, ruled_out in q.candidates:
            if not ruled_out:
                X.append(x)
                y.append(int(source == q.expected))
    if len(set(y)) < 2:
        raise KBError("the training sets need both right and wrong candidates to learn from")
    return *_standardised_lr(X, y, C), _caps(queries)


# Rules whose record in training bounds the probability of a candidate they fire on (see DecisionModel.score).
CAPPED_RULES: Final = ("alone_symptom", "alone_diverges", "alone_kin", "secondary_only", "role_wrapper", "tied_alone")


def _caps(queries: list[QueryRows]) -> tuple[tuple[str, float], ...]:
    """Per rule, the share of candidates it fired on that were the expected entry (Laplace-smoothed)."""
    out = []
    for name in CAPPED_RULES:
        i = FEATURE_NAMES.index(name)
        fired = [src == q.expected for q in queries for src, x, r in q.candidates if not r and x[i] > 0]
        out.append((name, round((sum(fired) + 1) / (len(fired) + 2), 4)))
    return tuple(out)


def _scores(model_parts, queries: list[QueryRows]) -> list[list[float]]:
    """Per query, its candidates' exclusive scores under an uncalibrated model."""
    mean, scale, coef, intercept, caps = model_parts
    m = DecisionModel(FEATURE_VERSION, tuple(mean), tuple(scale), tuple(coef), intercept, 1.01, {}, caps=caps)
    return [exclusive([0.0 if r else m.score(x) for _, x, r in q.candidates]) for q in queries]


def _platt(points: list[tuple[float, bool]], default: tuple[float, float]) -> tuple[float, float]:
    """Platt scaling: (slope, offset) of the logistic curve through (logit of a probability, outcome) points."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    if len({y for _, y in points}) < 2:
        return default
    xs = np.asarray([[_logit(p)] for p, _ in points])
    lr = LogisticRegression(C=10.0, max_iter=1000, random_state=SEED).fit(xs, np.asarray([int(y) for _, y in points]))
    return float(lr.coef_[0][0]), float(lr.intercept_[0])


def _calibrate(queries: list[QueryRows], scores: list[list[float]]) -> tuple[float, float]:
    """Platt scaling of the top candidate's score against whether it is the expected entry."""
    tops = [(pick(q, sc), q.expected) for q, sc in zip(queries, scores)]
    return _platt([(p, src == expected) for (src, p), expected in tops if src is not None], (1.0, 0.0))


def _held_out(sets: dict[str, list[QueryRows]], C: float) -> tuple[list[QueryRows], list[list[float]]]:
    """Each set's queries scored by a model trained on the other sets (or on itself when there is one set)."""
    names = sorted(sets)
    if len(names) == 1:
        return sets[names[0]], _scores(_fit_lr(sets[names[0]], C), sets[names[0]])
    qs, scores = [], []
    for held in names:
        inner = _fit_lr([q for n in names if n != held for q in sets[n]], C)
        qs += sets[held]
        scores += _scores(inner, sets[held])
    return qs, scores


def _settle(queries: list[QueryRows], scores: list[list[float]]) -> tuple[tuple[float, float], tuple[float, float],
                                                                         float, float]:
    """Calibration of matches and of abstentions, threshold, and the accuracy they give on these held-out answers."""
    calibration = _calibrate(queries, scores)
    a, b = calibration
    probs = [[_sigmoid(a * _logit(x) + b) if x > 0 else 0.0 for x in sc] for sc in scores]
    threshold = choose_threshold(queries, probs)
    tops = [pick(q, p) for q, p in zip(queries, probs)]
    abstain = _platt([(p, q.expected is None) for q, (_, p) in zip(queries, tops) if p < threshold], (-1.0, 0.0))
    right = sum(_judged(q, top, threshold)[0] for q, top in zip(queries, tops))
    return calibration, abstain, threshold, right / max(1, len(queries))


def fit_meaning(queries: list[QueryRows]) -> Meaning | None:
    """The meaning weights: which dimensions of the two encodings agree when the entry is the report's root cause
    (None when no candidate carries encodings). Trained on every candidate with encodings, bare pasted lines too
    (`complete` gates the score, not the training: trained on worded reports alone it did worse on unseen sets)."""
    X, y = [], []
    for q in queries:
        for source, x, ruled_out in q.candidates:
            if not ruled_out and len(x) == SIGNALS + MEANING_DIMS:
                X.append(x[SIGNALS:])
                y.append(int(source == q.expected))
    if len(set(y)) < 2:
        return None
    mean, scale, coef, intercept = _standardised_lr(X, y, MEANING_C)
    return Meaning(tuple(map(float, mean)), tuple(map(float, scale)), tuple(map(float, coef)), intercept)


def _completed(queries: list[QueryRows], meaning: Meaning | None) -> list[QueryRows]:
    out = []
    for q in queries:
        xs = complete([x for _, x, _ in q.candidates], meaning)
        out.append(QueryRows(q.query, q.kind, q.expected,
                             [(s, x, r) for (s, _, r), x in zip(q.candidates, xs)]))
    return out


def fit(sets: dict[str, list[QueryRows]], meta: dict | None = None) -> DecisionModel:
    """Train on every query of `sets`: the meaning weights first, then the decision over all features. The
    regularisation, the calibration of the answer's confidence and the threshold are chosen on leave-one-set-out
    answers within them, so they reflect how the model does on a set it was not trained on (the meaning weights
    are trained once, on all of them: a little flattering to those answers)."""
    names = sorted(sets)
    meaning = fit_meaning([q for n in names for q in sets[n]])
    sets = {n: _completed(sets[n], meaning) for n in names}
    everything = [q for n in names for q in sets[n]]
    best = None
    for C in REGULARISATIONS:
        calibration, abstain, threshold, accuracy = _settle(*_held_out(sets, C))
        if best is None or accuracy > best[0]:
            best = (accuracy, C, calibration, abstain, threshold)
    _, C, calibration, abstain, threshold = best
    mean, scale, coef, intercept, caps = _fit_lr(everything, C)
    info = {"sets": names, "queries": len(everything), "seed": SEED, "C": C,
            "max_wrong_on_positives": MAX_WRONG_ON_POSITIVES, **(meta or {})}
    return DecisionModel(FEATURE_VERSION, tuple(map(float, mean)), tuple(map(float, scale)),
                         tuple(map(float, coef)), intercept, float(threshold), info, calibration, abstain, caps,
                         meaning)
