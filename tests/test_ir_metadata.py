"""ir_metadata: the YAML header of a TREC run (``# ir_metadata.start`` ... ``# ir_metadata.end``)
is read, kept on Run and Results, shown in reports and written back exactly; a run with
such a header evaluates exactly as without it, by every reader (the C core and its numpy
fallback, streamed, the trec_eval front end)."""

from __future__ import annotations

import gzip
import importlib
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens
from ranklens.base.errors import InputWarning, MissingDependencyError, ParseError
from ranklens.data import native_fallback
from ranklens.data.ir_metadata import IrMetadata, beside, header_of, read_header

YAML = """\
tag: bm25-tuned
actor:
  team: webis
  role: experimenter
research goal:
  venue:
    name: SIGIR
platform:
  software:
    libraries:
      - ranklens==0.1
      - numpy
  hardware:
    cpu:
      model: "Xeon # not a comment"
method:
  description: |
    BM25, k1 and b tuned.

    Second paragraph.
  retrieval:
    - name: bm25
      k1: 0.9
"""
MEASURES = ["AP", "nDCG@10", "P@5", "RR", "Bpref", "NumRelRet", "infAP", "Rprec"]


def header(text: str = YAML) -> str:
    return "".join(line + "\n" for line in IrMetadata(text).comment_lines())


@pytest.fixture
def runs(tmp_path: Path, trec_eval_data: Path) -> tuple[Path, Path]:
    plain = trec_eval_data / "results.test"
    annotated = tmp_path / "annotated.run"
    annotated.write_text(header() + plain.read_text())
    return plain, annotated


def test_header_is_read_exactly(runs: tuple[Path, Path]) -> None:
    _, annotated = runs
    run = ranklens.Run.from_file(annotated)
    assert run.metadata is not None
    assert run.metadata.text == YAML  # byte for byte, blank line and '#' in a value kept
    assert run.metadata.source == str(annotated) and run.metadata.line == 2
    assert read_header(annotated) == run.metadata
    yaml = pytest.importorskip("yaml")
    assert run.metadata.data == yaml.safe_load(YAML)
    assert run.metadata.tag == "bm25-tuned"
    flat = run.metadata.flat()
    assert flat["actor.team"] == "webis"
    assert flat["research goal.venue.name"] == "SIGIR"
    assert flat["platform.software.libraries"] == "ranklens==0.1, numpy"
    assert flat["platform.hardware.cpu.model"] == "Xeon # not a comment"
    assert flat["method.retrieval.0.k1"] == "0.9"
    assert flat["method.description"] == "BM25, k1 and b tuned.\n\nSecond paragraph."


def test_a_run_with_a_header_evaluates_exactly_as_without(
    runs: tuple[Path, Path], trec_eval_data: Path, tmp_path: Path
) -> None:
    plain, annotated = runs
    qrels = trec_eval_data / "qrels.test"
    want = ranklens.evaluate(qrels, plain, MEASURES)
    got = ranklens.evaluate(qrels, annotated, MEASURES)
    np.testing.assert_array_equal(want.values, got.values)
    assert want.queries == got.queries and want.run == got.run == "STANDARD"
    assert got.metadata is not None and got.metadata.text == YAML and want.metadata is None
    streamed = ranklens.Evaluator(qrels, MEASURES).evaluate(annotated, stream=True)
    np.testing.assert_array_equal(want.values, streamed.values)
    assert streamed.metadata == got.metadata
    packed = tmp_path / "annotated.run.gz"
    packed.write_bytes(gzip.compress(annotated.read_bytes()))
    np.testing.assert_array_equal(want.values, ranklens.evaluate(qrels, packed, MEASURES).values)
    assert (
        ranklens.Evaluator(qrels, MEASURES).evaluate(packed, stream=True).metadata == got.metadata
    )
    with annotated.open("rb") as stream:  # a stream: read once, the header kept
        assert ranklens.evaluate(qrels, stream, MEASURES).metadata == got.metadata


def test_every_reader_skips_the_header(runs: tuple[Path, Path]) -> None:
    plain, annotated = runs
    for parse in (ranklens.data.native.core.parse_trec, native_fallback.parse_trec):
        a = parse(plain.read_bytes(), 0, 1, ranks=True)
        b = parse(annotated.read_bytes(), 0, 1, ranks=True)
        assert a[0] == b[0]
        for x, y in zip(a[1:5], b[1:5], strict=True):
            np.testing.assert_array_equal(x, y)
        header_lines = len(header().splitlines())
        np.testing.assert_array_equal(np.asarray(a[5]) + header_lines, np.asarray(b[5]))


def test_trec_eval_front_end_prints_the_same(
    runs: tuple[Path, Path], trec_eval_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ranklens.cli import main

    plain, annotated = runs
    outputs = []
    for run in (plain, annotated):
        assert (
            main(
                ["trec-eval", "-q", "-m", "all_trec", str(trec_eval_data / "qrels.test"), str(run)]
            )
            == 0
        )
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == (trec_eval_data / "out.test.aq").read_text()


def test_written_back_and_kept_in_results_files(
    runs: tuple[Path, Path], tmp_path: Path, trec_eval_data: Path
) -> None:
    _, annotated = runs
    run = ranklens.Run.from_file(annotated)
    run.write(tmp_path / "again.run")
    text = (tmp_path / "again.run").read_text()
    assert text.startswith(header())
    again = ranklens.Run.from_file(tmp_path / "again.run")
    assert again.metadata == run.metadata
    buffer = io.StringIO()
    run.write(buffer)
    assert buffer.getvalue() == text
    res = ranklens.evaluate(trec_eval_data / "qrels.test", annotated, MEASURES)
    res.to_parquet(tmp_path / "r.parquet")
    assert ranklens.Results.from_parquet(tmp_path / "r.parquet").metadata == res.metadata
    from ranklens.evaluation.scores_files import read_scores, write_scores

    write_scores(res, tmp_path / "s.parquet")
    back = read_scores(tmp_path / "s.parquet")
    assert back.metadata == res.metadata  # type: ignore[union-attr]


def test_deduplicated_and_renamed_runs_keep_it(runs: tuple[Path, Path]) -> None:
    _, annotated = runs
    run = ranklens.Run.from_file(annotated, duplicates="first")
    assert run.metadata is not None
    assert run.renamed("x").metadata == run.metadata


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("q1 Q0 d1 1 2.0 r\n", None),
        ("# a comment\nq1 Q0 d1 1 2.0 r\n", None),  # an ordinary comment is no metadata
        (
            "# tag: run7\n# actor:\n#   team: x\nq1 Q0 d1 1 2.0 r\n",
            "tag: run7\nactor:\n  team: x\n",
        ),
        (
            "\n  # ir_metadata.start\n# tag: a\n\n# ir_metadata.end\n# later\nq Q0 d 1 1 r\n",
            "tag: a\n",
        ),
        ("# ir_metadata.start\n# ir_metadata.end\nq Q0 d 1 1 r\n", None),
        ("q1 Q0 d1 1 2.0 r\n# ir_metadata.start\n# tag: late\n# ir_metadata.end\n", None),
        ("#ir_metadata.start\n#tag: tight\n#ir_metadata.end\nq Q0 d 1 1 r\n", "tag: tight\n"),
        (
            "# ir_metadata.start\r\n# tag: crlf\r\n# ir_metadata.end\r\nq Q0 d 1 1 r\r\n",
            "tag: crlf\n",
        ),
    ],
)
def test_what_counts_as_a_header(text: str, expected: str | None) -> None:
    found = header_of(text.encode())
    assert (None if found is None else found.text) == expected


def test_a_broken_header_never_stops_a_run(tmp_path: Path, trec_eval_data: Path) -> None:
    path = tmp_path / "open.run"
    body = (trec_eval_data / "results.test").read_text()
    path.write_text("# ir_metadata.start\n# tag: x\n" + body)
    with pytest.warns(InputWarning, match=r"open\.run:1: '# ir_metadata.start' without"):
        run = ranklens.Run.from_file(path)
    assert run.metadata is None and len(run) == len(
        ranklens.Run.from_file(trec_eval_data / "results.test")
    )
    latin = tmp_path / "latin.run"
    latin.write_bytes(b"# tag: caf\xe9\n" + body.encode())
    assert ranklens.Run.from_file(latin).metadata.text == "tag: caf\ufffd\n"  # type: ignore[union-attr]


def test_invalid_yaml_is_an_error_only_when_read_as_data(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    meta = header_of(
        b"# ir_metadata.start\n# tag: [unclosed\n# ir_metadata.end\nq Q0 d 1 1 r\n", "x.run"
    )
    assert meta is not None
    with pytest.raises(ParseError, match=r"x\.run:3: the ir_metadata is not valid YAML"):
        _ = meta.data
    scalar = IrMetadata("just text\n", "y.yml", 1)
    with pytest.raises(ParseError, match="must be a YAML mapping"):
        _ = scalar.data


def test_without_pyyaml_the_text_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_yaml(name: str, *args: Any) -> Any:
        if name == "yaml":
            raise ImportError("no yaml")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_yaml)
    meta = IrMetadata(YAML)
    with pytest.raises(MissingDependencyError, match="pip install pyyaml"):
        _ = meta.data
    from ranklens.presentation.reporting._metadata import metadata_section

    results = ranklens.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["AP"])
    from dataclasses import replace

    section = metadata_section([replace(results, metadata=meta)])
    assert section is not None and "pip install pyyaml" in section.html
    assert "research goal:" in section.html  # the text itself, escaped


def test_metadata_file_beside_a_leaderboard(tmp_path: Path) -> None:
    assert beside(tmp_path / "lb.txt") is None
    (tmp_path / "ir-metadata.yaml").write_text(YAML)
    found = beside(tmp_path / "lb.txt")
    assert found is not None and found.text == YAML
    (tmp_path / "ir-metadata.yml").write_text("tag: first\n")
    assert beside(tmp_path / "lb.txt").text == "tag: first\n"  # type: ignore[union-attr]
    with pytest.raises(ranklens.InputError, match="cannot read it"):
        IrMetadata.read_yaml(tmp_path / "missing.yml")


def test_report_shows_the_metadata(runs: tuple[Path, Path], trec_eval_data: Path) -> None:
    from ranklens.presentation.reporting import build_report

    plain, annotated = runs
    evil = header("tag: x\nactor:\n  team: </script><script>alert(1)</script>\n")
    annotated.write_text(evil + plain.read_text())
    html = build_report(
        trec_eval_data / "qrels.test", {"plain": plain, "tagged": annotated}, ["AP"], plots=False
    )
    assert "Run metadata (ir_metadata)" in html and "<h3>tagged</h3>" in html
    assert "<script>alert(1)" not in html
    pytest.importorskip("yaml")
    assert "actor.team" in html and "&lt;/script&gt;&lt;script&gt;alert(1)" in html
