"""Files written whole, never through a planted link, and read without blocking (the code
lives in `audio.safe_files`, the lowest package that stores files; the trainer reads it here)."""
from __future__ import annotations

from audio.safe_files import (MAX_OWN_FILE_BYTES, open_no_follow, read_regular, read_text_regular,
                              umask, write_atomic)

__all__ = ["MAX_OWN_FILE_BYTES", "open_no_follow", "read_regular", "read_text_regular", "umask",
           "write_atomic"]
