"""Rules engines and CPU players, statistics and the Qt application.

Only trainer.ui imports PySide6.
"""

# The one place the version is written: pyproject.toml reads it from here
# (`dynamic = ["version"]`), `karuta --version` and Help → About print it.
__version__ = "0.1.0"
