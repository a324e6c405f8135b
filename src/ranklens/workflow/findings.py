"""What a check finds in a file: defects (the file breaks its format) and warnings (it is
legal but suspicious), each at a line of the file.

>>> found = Finding("run.txt", 3, "defect", "expected 6 columns, found 5")
>>> str(found)
'run.txt:3: expected 6 columns, found 5'
>>> str(Finding("run.txt", 7, "warning", "2 documents tie at score 1.5"))
'run.txt:7: warning: 2 documents tie at score 1.5'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["defect", "warning"]

WARNINGS_PER_KIND = 10
"""Warnings of one kind shown one line each before the rest are summed up in one line
(defects are always shown one line each)."""


@dataclass(frozen=True)
class Finding:
    """One thing a check found.

    Attributes
    ----------
    file : the file, as it was named.
    line : the line of the file (1-based, the file's own numbering).
    severity : ``"defect"`` (the file breaks its format) or ``"warning"``.
    message : what is wrong, in one line.
    """

    file: str
    line: int
    severity: Severity
    message: str

    def __str__(self) -> str:
        label = "warning: " if self.severity == "warning" else ""
        return f"{self.file}:{self.line}: {label}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        """``{"file", "line", "severity", "message"}``."""
        return {
            "file": self.file,
            "line": self.line,
            "severity": self.severity,
            "message": self.message,
        }


@dataclass(frozen=True)
class Findings:
    """Everything a check found in one file, in line order (defects before warnings on
    the same line).

    Attributes
    ----------
    file : the file checked.
    kind : what it was checked as (``"run"`` or ``"answers"``).
    items : the findings.
    """

    file: str
    kind: str
    items: tuple[Finding, ...]

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def defects(self) -> tuple[Finding, ...]:
        """The findings that break the file's format."""
        return tuple(f for f in self.items if f.severity == "defect")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """The findings that are legal but suspicious."""
        return tuple(f for f in self.items if f.severity == "warning")

    @property
    def ok(self) -> bool:
        """No defect (warnings allowed)."""
        return not self.defects

    def to_dict(self) -> dict[str, Any]:
        """``{"file", "kind", "defects", "warnings", "findings": [...]}``."""
        return {
            "file": self.file,
            "kind": self.kind,
            "defects": len(self.defects),
            "warnings": len(self.warnings),
            "findings": [f.to_dict() for f in self.items],
        }


class Collector:
    """Gathers findings while a file is scanned: every defect, and at most
    :data:`WARNINGS_PER_KIND` warnings of each kind, the others counted and summed up
    in one line by :meth:`findings`."""

    def __init__(self, file: str) -> None:
        self.file = file
        self._items: list[Finding] = []
        self._extra: dict[str, tuple[int, int, str]] = {}  # kind: (count, first line, what)
        self._shown: dict[str, int] = {}
        self.defect_count = 0

    def defect(self, line: int, message: str) -> None:
        """Record a defect at ``line``."""
        self._items.append(Finding(self.file, line, "defect", message))
        self.defect_count += 1

    def warning(self, kind: str, line: int, message: str, what: str) -> None:
        """Record a warning of ``kind`` at ``line``; past the limit it is only counted
        (``what`` names such warnings in the summary line, e.g. "queries with ties")."""
        shown = self._shown.get(kind, 0)
        if shown < WARNINGS_PER_KIND:
            self._shown[kind] = shown + 1
            self._items.append(Finding(self.file, line, "warning", message))
            return
        count, first, _ = self._extra.get(kind, (0, line, what))
        self._extra[kind] = (count + 1, first, what)

    def findings(self, kind: str) -> Findings:
        """The findings in line order, with one summary line per kind of warning that
        went past the limit (at the first line left out)."""
        items = list(self._items)
        for count, first, what in self._extra.values():
            items.append(
                Finding(
                    self.file, first, "warning", f"... and {count:,} more {what} (from here on)"
                )
            )
        items.sort(key=lambda f: (f.line, f.severity != "defect"))
        return Findings(self.file, kind, tuple(items))
