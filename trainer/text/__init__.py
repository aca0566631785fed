"""Every text the program shows, worded without Qt: the message table, event and
refusal texts for each game, drills, statistics and help. Pure Python; the Qt
layer only re-runs `tr` when the language changes."""
