"""Rules engines and CPU players, statistics and the Qt application (the only package that imports PySide6, in trainer.ui)."""

# The one place the version is written: pyproject.toml reads it from here
# (`dynamic = ["version"]`), `karuta --version` and Help → About print it.
__version__ = "0.1.0"
