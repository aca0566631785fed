"""Writing a drill's results: one session, one committed trial per result, FSRS reviews.

The UI makes one ``SessionRecorder`` per drill run and hands it every
``TrialResult`` the drill returns. Each is committed before ``add`` returns,
so a crash loses at most the trial in flight; a trial and its FSRS review
are one transaction. Results of the memorisation
drills (``SRS_KINDS``) are also FSRS reviews of their card (see
``trainer.stats.srs`` for the rating).
"""
from __future__ import annotations

import json
from typing import Any

from trainer.stats.srs import Memorisation, Review
from trainer.stats.store import StatsStore

# Drills whose answers say whether the player knows a card (its kimariji, its
# torifuda). Reflex, positional and match results measure other things.
SRS_KINDS = frozenset({"fuda_nagashi", "kami_to_torifuda"})


class SessionRecorder:
    def __init__(self, store: StatsStore, kind: str, *, voice: str | None = None,
                 settings: dict[str, Any] | None = None,
                 memorisation: Memorisation | None = None):
        self.store = store
        self.kind = kind
        self.voice = voice
        self.memorisation = memorisation if kind in SRS_KINDS else None
        self.session = store.begin_session(
            kind, json.dumps(settings, ensure_ascii=False) if settings else None)
        self.trial_ids: list[int] = []

    def add(self, result) -> Review | None:
        """Commit one result (a ``trainer.drills.common.TrialResult``); returns the
        FSRS review if this drill feeds the memorisation schedule."""
        if result.kind != self.kind:
            raise ValueError(f"a {result.kind} result does not belong to a {self.kind} session")
        # The trial and its review in one transaction: both are kept, or neither
        # (a review without its trial would skew the schedule, and the reverse).
        with self.store.transaction():
            trial_id = self.store.record(result.to_trial(self.session, self.voice))
            review = None
            # A race in which the sound stuttered says nothing of what the player knows.
            if self.memorisation is not None and 1 <= result.card <= 100 \
                    and getattr(result, "disturbed", None) is None:
                review = self.memorisation.review(result.card, result.kind, result.correct,
                                                  result.reaction_ms)
        self.trial_ids.append(trial_id)
        return review
