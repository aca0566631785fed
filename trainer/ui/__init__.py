"""The Qt application: the only package that imports PySide6.

Widgets show models and pass touches on; the rules live in ``trainer.rules``,
the sound in ``audio``.
"""
