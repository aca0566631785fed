"""Refusals of every turn-based card table (`trainer.games.turn_session`), Japanese and English.

The turn games' text modules (`trainer.text.unsun`, `.yomi`, `.umebotan`) import
this one, so their ``turn.*`` reason ids are worded wherever the game's are.
"""
from __future__ import annotations

from trainer.text.refusals import add_refusal_messages

add_refusal_messages({
    "turn.not_your_turn": ("まだあなたの番ではありません", "It is not your turn yet"),
    "turn.game_over": ("このゲームは終わりました", "The game is over"),
    "turn.not_allowed": ("いまその手はできません", "That move is not allowed now"),   # an engine without why_illegal
})
