"""Drills: pure models of the training exercises the UI shows.

No Qt, no audio. Each drill takes a ``clock`` callable (seconds, the
``time.perf_counter`` base that the audio clock maps onto) and a seed, and
produces ``TrialResult`` values the UI writes to the statistics store.
"""
