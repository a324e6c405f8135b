"""How a Parquet run is cut into units for the engines' tasks (no engine needed): every row
group in exactly one unit, in path order, each unit a bounded share of the run (no task
reads the whole table), the units' rows together the run's rows; and the look at the
first rows that tells a run not grouped by query."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scale_data import make_case, run_table

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from ranklens.scale import parquet_units  # noqa: E402
from ranklens.scale.parquet_units import plan_units, read_unit, starts_grouped  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(
    files=st.lists(st.lists(st.integers(1, 40), min_size=0, max_size=6), min_size=1, max_size=4),
    cores=st.integers(1, 8),
    bounds=st.tuples(st.integers(1, 60), st.integers(0, 80)),
)
def test_units_cover_every_row_group_once_in_order_and_bounded(
    tmp_path_factory: pytest.TempPathFactory,
    files: list[list[int]],
    cores: int,
    bounds: tuple[int, int],
) -> None:
    """Row groups of the given sizes in several files: the units hold each row group once,
    in file and row group order; a unit is one file's; each has at least the target rows
    (but the last of its file) and at most the target plus one row group less one; its
    ``first`` is the run's row where it starts; read together, the units are the run."""
    low, extra = bounds
    limits = (low, low + extra)
    folder = tmp_path_factory.mktemp("units")
    case = make_case(3, 60)
    rows = case.run
    at = 0
    expected: list[tuple[int, int]] = []
    names = []
    for index, groups in enumerate(files):
        parts = []
        for group, size in enumerate(groups):
            chunk = [rows[(at + k) % len(rows)] for k in range(size)]
            at += size
            parts.append(run_table(chunk))
            expected.append((index, group))
        name = folder / f"part-{index}.parquet"
        schema = run_table([]).schema
        with pq.ParquetWriter(name, schema) as writer:
            for part in parts:
                writer.write_table(part)
        names.append(name)
    old = parquet_units.UNIT_ROWS
    parquet_units.UNIT_ROWS = limits
    try:
        units, columns = plan_units(str(folder), cores)
    finally:
        parquet_units.UNIT_ROWS = old
    assert columns.query == "query_id"
    sizes = [
        [int(pq.ParquetFile(n).metadata.row_group(g).num_rows) for g in range(len(f))]
        for n, f in zip(names, files, strict=True)
    ]
    covered = [(u.file, g) for u in units.units for g in u.groups]
    assert covered == expected
    total = sum(map(sum, sizes))
    target = min(max(total // (4 * cores), limits[0]), limits[1])
    start = 0
    for k, unit in enumerate(units.units):
        held = [sizes[unit.file][g] for g in unit.groups]
        assert unit.first == start
        start += sum(held)
        last_of_file = k + 1 == len(units.units) or units.units[k + 1].file != unit.file
        assert sum(held) >= target or last_of_file
        assert sum(held) - held[-1] < target
    assert start == total
    if units.units:
        whole = pa.concat_tables([read_unit(units, k) for k in range(len(units.units))])
        assert whole.column("query_id").to_pylist() == [
            q for n in names for q in pq.read_table(n).column("query_id").to_pylist()
        ]


def test_the_first_rows_tell_a_run_not_grouped(tmp_path: Path) -> None:
    """A run grouped by query passes the look; one whose first query comes back after
    another within the first rows does not; a query column held by a hive folder, or a
    file that cannot be read, is left to the tasks (True)."""
    case = make_case(5)
    grouped = tmp_path / "grouped.parquet"
    pq.write_table(run_table(case.run), grouped, row_group_size=64)
    units, columns = plan_units(str(grouped), 2)
    assert starts_grouped(units, columns.query)
    back = [*case.run[1:40], case.run[0], *case.run[40:]]
    moved = tmp_path / "moved.parquet"
    pq.write_table(run_table(back), moved, row_group_size=len(back))
    moved_units, columns = plan_units(str(moved), 2)
    assert not starts_grouped(moved_units, columns.query)
    assert starts_grouped(moved_units, columns.query, rows=30)  # the look sees 30 rows only
    hive = tmp_path / "hive"
    pq.write_to_dataset(run_table(back), hive, partition_cols=["query_id"])
    units, columns = plan_units(str(hive), 2)
    assert starts_grouped(units, columns.query)
    moved.write_bytes(b"not parquet any more")
    assert starts_grouped(moved_units, "query_id")
