"""Where user data lives (the folders themselves are found by `audio.data_dirs`, the lowest
package that stores files; the trainer's code reads them here)."""
from __future__ import annotations

from audio.data_dirs import APP_NAME, DataDirError, cache_dir, data_dir, sub_dir

__all__ = ["APP_NAME", "DataDirError", "cache_dir", "data_dir", "sub_dir"]
