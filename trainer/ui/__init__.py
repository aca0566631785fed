"""The Qt application: the only package that imports PySide6.

Widgets show models and pass touches on; the rules live in ``trainer.rules``,
the sound in ``audio``.
"""
from trainer.ui._none_refcount import make_none_immortal

make_none_immortal()   # before any PySide6 call: see the module's docstring
