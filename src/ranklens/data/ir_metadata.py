"""ir_metadata: what a run (or a leaderboard) says about how it was made.

`ir_metadata <https://www.ir-metadata.org>`_ (Breuer et al., SIGIR 2022) describes an
experiment as a YAML document (its PRIMAD sections: ``platform``, ``research goal``,
``implementation``, ``method``, ``actor``, ``data``, and the run's ``tag``). It travels in
two places, both read here:

- at the top of a TREC run file, as comment lines between ``# ir_metadata.start`` and
  ``# ir_metadata.end``, each YAML line behind ``# `` (what ``repro_eval``'s
  ``MetadataHandler`` writes). A leading block of comment lines without the two markers
  counts too when one of its lines starts with a top-level ir_metadata key (``tag:``,
  ``actor:``, ``method:`` ...). Every TREC reader of ranklens skips comment lines, so a run
  with such a header evaluates exactly as without it;
- as a file ``ir-metadata.yml`` (or ``.yaml``) beside a leaderboard (TREC AutoJudge
  uploads), read by :func:`beside`.

The YAML text is kept exactly as it was found (:attr:`IrMetadata.text`) and written back
exactly (:meth:`IrMetadata.comment_lines`, :meth:`IrMetadata.write_yaml`); only reading it
as data (:attr:`IrMetadata.data`, :meth:`IrMetadata.flat`) needs PyYAML (``pip install
pyyaml``; MLflow installs it), with YAML's safe loader.

>>> meta = IrMetadata("tag: bm25\\nactor:\\n  team: webis\\n")
>>> meta.comment_lines()
['# ir_metadata.start', '# tag: bm25', '# actor:', '#   team: webis', '# ir_metadata.end']
>>> text = b"# ir_metadata.start\\n# tag: bm25\\n# ir_metadata.end\\nq1 Q0 d1 1 2.0 bm25\\n"
>>> header_of(text).text
'tag: bm25\\n'
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ranklens.base.errors import InputError, InputWarning, MissingDependencyError, ParseError

START = "# ir_metadata.start"
END = "# ir_metadata.end"
FILE_NAMES = ("ir-metadata.yml", "ir-metadata.yaml", "ir_metadata.yml", "ir_metadata.yaml")
"""The names of a metadata file beside a leaderboard, in the order they are looked for."""
TOP_LEVEL_KEYS = (
    "tag",
    "actor",
    "research goal",
    "platform",
    "implementation",
    "method",
    "data",
)
"""ir_metadata's top-level keys (PRIMAD and the run tag): a leading comment block without
the start and end markers is metadata when one of its lines starts with one of them."""
_KEY_LINE = re.compile("^(?:" + "|".join(re.escape(k) for k in TOP_LEVEL_KEYS) + r")\s*:")
MAX_HEADER_BYTES = 1 << 20
"""A header longer than this (1 MiB of leading comment lines) is not read as metadata."""


def _yaml() -> Any:
    import importlib

    try:
        return importlib.import_module("yaml")
    except ImportError as exc:
        raise MissingDependencyError(
            "reading ir_metadata as data needs PyYAML, which is not installed: pip install "
            "pyyaml (the metadata text itself is kept and written back without it)"
        ) from exc


@dataclass(frozen=True)
class IrMetadata:
    """An ir_metadata document: its YAML text, exactly as found.

    Attributes
    ----------
    text : the YAML document (without the ``# `` of a run header), ending in a newline.
    source : where it was read (a path, for messages), or ``None``.
    line : the line of ``source`` where the YAML begins (for messages), or ``None``.
    """

    text: str
    source: str | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.text and not self.text.endswith("\n"):
            object.__setattr__(self, "text", self.text + "\n")

    @cached_property
    def data(self) -> dict[str, Any]:
        """The document as a mapping (YAML's safe loader; needs PyYAML).

        Raises
        ------
        ParseError
            The text is not YAML, or not a mapping at the top; the message names the
            source and the line.
        MissingDependencyError
            PyYAML is not installed.
        """
        yaml = _yaml()
        try:
            loaded = yaml.safe_load(self.text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = None
            if mark is not None and self.line is not None:
                line = self.line + int(mark.line)
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise ParseError(
                f"the ir_metadata is not valid YAML ({problem}); fix the metadata block "
                "or remove it",
                path=self.source,
                line=line,
            ) from None
        if loaded is None:
            return {}
        if not isinstance(loaded, dict):
            raise ParseError(
                f"the ir_metadata must be a YAML mapping (key: value lines), not a "
                f"{type(loaded).__name__}",
                path=self.source,
                line=self.line,
            )
        return {str(k): v for k, v in loaded.items()}

    @property
    def tag(self) -> str | None:
        """The ``tag`` entry (the run's name in ir_metadata), or ``None``."""
        value = self.data.get("tag")
        return None if value is None else str(value)

    def flat(self) -> dict[str, str]:
        """The entries as ``{"actor.team": "webis", ...}``: nested keys joined with ``.``,
        lists of plain values joined with ``, `` (lists of mappings numbered:
        ``platform.software.libraries.0.name``), every value as text (``None`` as ``""``)."""
        out: dict[str, str] = {}

        def walk(prefix: str, value: Any) -> None:
            if isinstance(value, Mapping):
                if not value and prefix:
                    out[prefix] = ""
                for k, v in value.items():
                    walk(f"{prefix}.{k}" if prefix else str(k), v)
            elif isinstance(value, list | tuple):
                if all(not isinstance(v, Mapping | list | tuple) for v in value):
                    out[prefix] = ", ".join(_scalar(v) for v in value)
                else:
                    for i, v in enumerate(value):
                        walk(f"{prefix}.{i}", v)
            else:
                out[prefix] = _scalar(value)

        walk("", self.data)
        return out

    def comment_lines(self) -> list[str]:
        """The header to put at the top of a TREC run: the start marker, each YAML line
        behind ``# `` (an empty line as ``#``), the end marker (no line ends)."""
        body = [f"# {line}" if line else "#" for line in self.text.splitlines()]
        return [START, *body, END]

    def write_yaml(self, path: str | os.PathLike[str]) -> None:
        """Write the YAML text to ``path`` (an ``ir-metadata.yml``), exactly."""
        with open(os.fspath(path), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(self.text)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> IrMetadata:
        """A document made from a mapping (written by YAML's safe dumper, keys in order;
        needs PyYAML)."""
        yaml = _yaml()
        text = yaml.safe_dump(dict(mapping), sort_keys=False, allow_unicode=True)
        return cls(text)

    @classmethod
    def read_yaml(cls, path: str | os.PathLike[str]) -> IrMetadata:
        """Read an ``ir-metadata.yml`` file (its text; parsed when :attr:`data` is asked).

        Raises
        ------
        InputError
            The file cannot be read or is not UTF-8.
        """
        where = os.fspath(path)
        try:
            with open(where, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            raise InputError(f"cannot read it ({exc.strerror})", path=where) from None
        except UnicodeDecodeError:
            raise InputError(
                "not UTF-8 text (an ir-metadata.yml is YAML text)", path=where
            ) from None
        return cls(text.removeprefix("\ufeff"), where, 1)

    def __repr__(self) -> str:
        first = self.text.splitlines()[0] if self.text else ""
        return f"IrMetadata({first!r}{', ...' if self.text.count(chr(10)) > 1 else ''})"


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).rstrip("\n")


def _uncomment(line: str) -> str:
    """A header line without its ``#`` and the one space after it."""
    body = line.lstrip()[1:]
    return body[1:] if body.startswith(" ") else body


def header_of(content: Any, source: str | None = None) -> IrMetadata | None:
    """The ir_metadata in the leading comment lines of TREC text ``content`` (bytes, an
    mmap or a memoryview), or ``None``.

    Only the comment lines before the first data line are looked at (blank lines among
    them are skipped): the block between ``# ir_metadata.start`` and ``# ir_metadata.end``,
    else the whole leading comment block when one of its lines starts with a top-level
    ir_metadata key (:data:`TOP_LEVEL_KEYS`).

    A comment line that is not UTF-8 is read with replacement characters; a start marker
    without its end marker warns (:class:`~ranklens.InputWarning`) and gives ``None``: a
    header never keeps a run from being read.
    """
    start = bytes(content[:4096]).lstrip()
    if not start.startswith(b"#"):
        return None  # no comment line first: no header (the common case, nothing copied)
    head = bytes(content[:MAX_HEADER_BYTES])
    comments: list[tuple[int, str]] = []
    reached_data = len(head) == len(content)  # the whole text is in view
    for number, raw in enumerate(head.split(b"\n"), 1):
        stripped = raw.strip()
        if not stripped:
            continue
        if not stripped.startswith(b"#"):
            reached_data = True
            break
        comments.append((number, raw.rstrip(b"\r").decode("utf-8", "replace")))
    if not reached_data:
        return None  # a comment block longer than MAX_HEADER_BYTES: not read as metadata
    return _from_comments(comments, source)


def _marker(line: str) -> str:
    """A comment line as a marker would be written (``#ir_metadata.start`` counts too)."""
    return "# " + line.strip().lstrip("#").strip()


def _from_comments(comments: list[tuple[int, str]], source: str | None) -> IrMetadata | None:
    marks = [i for i, (_, text) in enumerate(comments) if _marker(text) == START]
    if marks:
        first = marks[0]
        ends = [i for i, (_, text) in enumerate(comments) if i > first and _marker(text) == END]
        if not ends:
            where = f"{source}:{comments[first][0]}" if source else f"line {comments[first][0]}"
            warnings.warn(
                f"{where}: '# ir_metadata.start' without '# ir_metadata.end' in the comment "
                "lines at the top of the file: the metadata is not read (the run is, as "
                "always); close the block or remove it",
                InputWarning,
                stacklevel=4,
            )
            return None
        body = comments[first + 1 : ends[0]]
        if not body:
            return None
        return IrMetadata("".join(_uncomment(t) + "\n" for _, t in body), source, body[0][0])
    lines = [(n, _uncomment(t)) for n, t in comments]
    if not any(_KEY_LINE.match(text) for _, text in lines):
        return None
    return IrMetadata("".join(t + "\n" for _, t in lines), source, lines[0][0])


def read_header(source: Any) -> IrMetadata | None:
    """The ir_metadata header of a TREC run file given by its path (gzip, bzip2 and xz
    decompressed), reading only its leading comment lines; ``None`` for other sources
    (file objects, ``-``), which cannot be read twice."""
    if not isinstance(source, str | os.PathLike) or os.fspath(source) == "-":
        return None
    import bz2
    import gzip
    import lzma

    where = os.fspath(source)
    try:
        with open(where, "rb") as raw:
            magic = raw.read(6)
        opener: Any = open
        if magic.startswith(b"\x1f\x8b"):
            opener = gzip.open
        elif magic.startswith(b"BZh"):
            opener = bz2.open
        elif magic.startswith(b"\xfd7zXZ\x00"):
            opener = lzma.open
        with opener(where, "rb") as handle:
            head = bytearray()
            for line in handle:
                head += line
                if line.strip() and not line.lstrip().startswith(b"#"):
                    break
                if len(head) > MAX_HEADER_BYTES:
                    break
    except (OSError, EOFError, lzma.LZMAError):
        return None  # the reader of the run says what is wrong with the file
    return header_of(bytes(head).removeprefix(b"\xef\xbb\xbf"), where)


def beside(path: str | os.PathLike[str]) -> IrMetadata | None:
    """The ``ir-metadata.yml`` (or ``.yaml``; :data:`FILE_NAMES`) in the folder of ``path``,
    or ``None``."""
    folder = os.path.dirname(os.path.abspath(os.fspath(path)))
    for name in FILE_NAMES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return IrMetadata.read_yaml(candidate)
    return None


__all__ = [
    "END",
    "FILE_NAMES",
    "START",
    "TOP_LEVEL_KEYS",
    "IrMetadata",
    "beside",
    "header_of",
    "read_header",
]
