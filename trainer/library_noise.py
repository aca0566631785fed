"""The C libraries' own diagnostics, kept off the terminal of a command.

libmpg123 (inside libsndfile) prints a line for every damaged frame of an MP3,
and ALSA, JACK and PortAudio a dozen lines for every device they probe. They
write to file descriptor 2 directly, past Python, so a damaged file in an import
or a missing sound card in `karuta read` filled the terminal with lines like
``[src/libmpg123/parse.c:decode_header():907] error: Frame smaller than
mandatory side info``.

`held()` points descriptor 2 at a temporary file for the length of a command
while Python's ``sys.stderr`` keeps writing to the terminal (a copy of the old
descriptor), so the program's own lines still appear as they happen. At the end
the libraries' lines are sorted: known noise is counted (the decoder's in one
line of our own), anything else is written out as it was, so nothing is lost.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

# What the decoder says about a damaged MP3 (the file is still read as far as it can be).
_DECODER = re.compile(r"^(\[src/libmpg123/|Warning: Xing stream|Note: (Illegal Audio-MPEG-Header|"
                      r"Trying to resync|Skipped|Giving up))")
# What the sound libraries say while looking for devices (the program says what it found).
_SOUND = re.compile(r"^(ALSA lib |Expression '.*' failed in '|Cannot connect to server|"
                    r"jack server is not running|JackShm|Jack: |connect\(2\) call to)")


@dataclass
class Held:
    """What the libraries wrote while the command ran."""
    decoder_lines: int = 0
    sound_lines: int = 0
    other: list[str] = field(default_factory=list)

    def sort(self, text: str) -> None:
        for line in text.splitlines():
            if _DECODER.match(line):
                self.decoder_lines += 1
            elif _SOUND.match(line):
                self.sound_lines += 1
            elif line.strip():
                self.other.append(line)


def _writes_to_descriptor_2(stream) -> bool:
    try:
        return stream.fileno() == 2
    except (AttributeError, OSError, ValueError):   # io.StringIO and pytest's capture have none
        return False


@contextlib.contextmanager
def held(decoder_summary: bool = True) -> Iterator[Held]:
    """Hold descriptor 2 for the block. With `decoder_summary`, one line of our own says how
    many problems the MP3 decoder reported (the files were read as far as they could be)."""
    found = Held()
    try:
        sys.stderr.flush()
        terminal = os.dup(2)
        sink = tempfile.TemporaryFile()
    except OSError:
        yield found   # no spare descriptor: the libraries write as before
        return
    python_stderr = sys.stderr
    if _writes_to_descriptor_2(python_stderr):   # not when a test or a caller replaced it
        sys.stderr = open(terminal, "w", encoding=getattr(python_stderr, "encoding", None) or "utf-8",
                          errors="backslashreplace", buffering=1, closefd=False)
    os.dup2(sink.fileno(), 2)
    try:
        yield found
    finally:
        sys.stderr.flush()
        os.dup2(terminal, 2)
        sys.stderr = python_stderr
        os.close(terminal)
        sink.seek(0)
        found.sort(sink.read(1 << 20).decode("utf-8", "replace"))
        sink.close()
        for line in found.other:
            print(line, file=sys.stderr)
        if decoder_summary and found.decoder_lines:
            print(f"karuta: the MP3 decoder reported {found.decoder_lines} problem"
                  f"{'s' if found.decoder_lines != 1 else ''} in damaged frames or tags; "
                  "the files were read as far as they could be", file=sys.stderr)
