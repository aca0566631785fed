"""Rules engines and CPU players, statistics and the Qt application (the only package that imports PySide6, in trainer.ui)."""
