"""The game layer: one protocol every game's rules engine follows, one registry of games.

- `protocol`: what a game state offers (who acts, legal actions, ``apply``
  returning structured events, outcome, per-seat views, clone), modelled on
  OpenSpiel's State and python-chess's Board.
- `registry`: every game and variant (name, seats, options, session, CPU,
  simulator, table view) in one list; the command line and the main window
  read it.

Pure Python: nothing here imports Qt, audio or numpy.
"""
