"""Statistics: the SQLite store of every trial (``store``), the dashboard
aggregates (``aggregates``), FSRS spaced repetition (``srs``) and the
per-session writer the UI uses (``recorder``). No Qt."""
