"""What an import of recorded readings did, as lines of message ids and values (no prose).

`audio.importer.import_readings` returns an `ImportReport`; this module lays it
out line by line, each line a `Line(id, values)`: which poem came from which
file with its marks, what failed, what is missing and what to do next. The
words are the interface's (`trainer.text.import_report`, Japanese and English):
`karuta import-readings` prints them in English, the import dialog in the
interface language. A value may itself be a `Line` (a label worded inside a line).
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Line:
    id: str
    values: dict[str, Any] = field(default_factory=dict)


BLANK = Line("")
"""An empty line between the files and the summary (no message)."""


def report_lines(report: Any) -> list[Line]:
    """Every line of the report, in the order `karuta import-readings` prints them."""
    lines: list[Line] = []
    rows = [(p.files[0], p) for p in report.poems] + [(f.file, f) for f in report.failed]
    rows.sort(key=lambda r: r[0])
    for file, item in rows:
        if hasattr(item, "error"):
            lines.append(Line("import.report.failed", {"file": file, "error": item.error}))
        else:
            lines += _poem_lines(item)
    lines.append(BLANK)
    lines += _summary_lines(report)
    return lines


def _poem_lines(p: Any) -> list[Line]:
    label = Line("import.report.joka") if p.no == 0 else Line("import.report.poem_no", {"no": p.no})
    values = {"status": Line("import.report.check" if p.warnings else "import.report.ok"),
              "files": " + ".join(p.files), "label": label,
              "kami_start": p.kami_start_s, "kami_end": p.kami_end_s,
              "shimo_start": p.shimo_start_s, "shimo_end": p.shimo_end_s}
    kimariji = p.no != 0 and p.kimariji_mark_s is not None
    if kimariji:
        values["kimariji"] = p.kimariji_mark_s
    out = [Line("import.report.poem_kimariji" if kimariji else "import.report.poem", values)]
    out += [Line("import.report.warning", {"warning": w}) for w in p.warnings]
    out += [Line("import.report.uncertain", {"doubt": d}) for d in p.uncertain]
    if p.candidate:
        bare = Line("import.report.joka_bare") if p.no == 0 else label
        out.append(Line("import.report.candidate", {"label": bare}))
    return out


def _summary_lines(report: Any) -> list[Line]:
    n = len(report.poems)
    out = [Line("import.report.imported" if n != 1 else "import.report.imported_one",
                {"n": n, "name": repr(report.name), "dir": report.voice_dir, "stored": len(report.stored)})]
    if report.missing:
        out.append(Line("import.report.missing", {"n": len(report.missing), "which": ranges(report.missing)}))
    if not report.joka:
        out.append(Line("import.report.no_joka"))
    if report.skipped:
        shown = ", ".join(report.skipped[:5]) + (" ..." if len(report.skipped) > 5 else "")
        out.append(Line("import.report.skipped", {"n": len(report.skipped), "files": shown}))
    if report.failed:
        again = f"karuta import-readings {shlex.quote(report.folder)} --name {shlex.quote(report.name)}"
        out.append(Line("import.report.some_failed", {"n": len(report.failed), "command": again}))
    candidates = [p.no for p in report.poems if p.candidate]
    checks = [p for p in report.poems if p.warnings and not p.candidate]
    doubtful = sorted(p.no for p in report.poems if p.kimariji_uncertain)
    if doubtful:
        out.append(Line("import.report.doubtful", {"n": len(doubtful), "which": ranges(doubtful)}))
    noted = sorted(p.no for p in report.poems if p.uncertain and not p.kimariji_uncertain)
    if noted:
        out.append(Line("import.report.other_marks", {"n": len(noted), "which": ranges(noted)}))
    if checks:
        out.append(Line("import.report.checks", {"n": len(checks)}))
    if candidates:
        accept = (f"karuta import-readings --name {shlex.quote(report.name)} "
                  f"--accept {','.join(map(str, candidates))}")
        out.append(Line("import.report.candidates", {"n": len(candidates), "which": ranges(candidates),
                                                      "command": accept}))
    if n == 0:
        out.append(Line("import.report.nothing"))
    return out


def ranges(numbers: list[int]) -> str:
    """1, 2, 3, 7 → "1-3, 7"."""
    parts, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ", ".join(parts)
