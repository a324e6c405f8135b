"""``ILD`` (intra-list diversity, from item features) and ``PopRSP`` (popularity-based
ranking-based statistical parity, Zhu et al. 2021, from training interactions) against
straightforward implementations of their published formulas on generated awkward data
(tied scores, users without relevant items, users only in the run or only in the qrels,
lists shorter than k, training items inside the lists, items missing from the popularity
data), the bootstrap weights of the run-level PopRSP, the feature and training-data
readers (dicts, frames, text and Parquet files), their errors, and the command line."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, MeasureError, ParseError
from ranklens.cli import main
from strategies import DOC_POOL, QIDS, Case, cases, trec_ranking

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.base.errors.InputWarning")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LABEL_POOL = ("drama", "comedy", "noir", "kids", "doc")

# --- the published formulas, written out plainly ---------------------------------------


def top_lists(case: Case, k: int | None, users: Sequence[str]) -> dict[str, list[str]]:
    """Each evaluated user's top-k list (trec_eval's order: score, then id descending)."""
    return {u: trec_ranking(case.run.get(u, {}))[:k] for u in users}


def cosine_distance(x: Sequence[float], y: Sequence[float]) -> float:
    dot = sum(a * b for a, b in zip(x, y, strict=True))
    return 1.0 - dot / (math.sqrt(sum(a * a for a in x)) * math.sqrt(sum(b * b for b in y)))


def jaccard_distance(x: set[str], y: set[str]) -> float:
    if not x and not y:
        return 0.0  # two empty sets are the same (scipy's convention)
    return 1.0 - len(x & y) / len(x | y)


def ild(lists: Mapping[str, list[str]], distance) -> float:  # type: ignore[no-untyped-def]
    """mean_u 2/(n(n-1)) sum_{i<j} d(i, j), 0 for fewer than 2 items."""
    values = []
    for items in lists.values():
        pairs = [
            distance(items[a], items[b])
            for a in range(len(items))
            for b in range(a + 1, len(items))
        ]
        values.append(sum(pairs) / len(pairs) if pairs else 0.0)
    return sum(values) / len(values)


def short_head(pop: Mapping[str, float], share: float) -> set[str]:
    ranked = sorted(pop, key=lambda i: (-pop[i], i.encode()))
    total = sum(pop.values())
    head: set[str] = set()
    held = 0.0
    for i in ranked:
        if total == 0 or held >= share * total:
            break
        head.add(i)
        held += pop[i]
    return {i for i in head if pop[i] > 0}


def pop_rsp(
    lists: Mapping[str, list[str]],
    train: Mapping[str, Sequence[str]],
    pop: Mapping[str, float],
    share: float,
    catalogue: set[str] | None,
) -> float:
    """Zhu et al.'s RSP over the short head and the long tail: P(R@k | g) = sum_u
    |L_u & g - I_u| / sum_u |g - I_u|; std / mean of the two (population std).
    ``catalogue``: every item (the long tail is the catalogue minus the head); ``None``:
    only the popularity data's items form the groups (unlisted='ignore')."""
    head = short_head(pop, share)
    tail = (catalogue if catalogue is not None else set(pop)) - head
    num, den = np.zeros(2), np.zeros(2)
    for u, items in lists.items():
        trained = set(train.get(u, ()))
        shown = set(items) - trained
        num += [len(shown & head), len(shown & tail)]
        den += [len(head - trained), len(tail - trained)]
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = num / den
        return float(np.std(rate) / np.mean(rate))


# --- generated data ---------------------------------------------------------------------

vector_st = st.lists(st.sampled_from((-2.0, -1.0, 0.0, 0.0, 0.5, 1.0, 3.0)), min_size=3, max_size=3)


@st.composite
def vectors(draw, binary: bool = False):  # type: ignore[no-untyped-def]
    """A nonzero vector of length 3 for every item of the pool (a few identical)."""
    out = {}
    for item in DOC_POOL:
        if binary:
            v = draw(st.lists(st.sampled_from((0.0, 1.0)), min_size=3, max_size=3))
        else:
            v = draw(vector_st)
        if not any(v):
            v[draw(st.integers(0, 2))] = 1.0
        out[item] = v
    return out


label_sets = st.fixed_dictionaries(
    {item: st.sets(st.sampled_from(LABEL_POOL), max_size=3) for item in DOC_POOL}
)
train_st = st.dictionaries(
    st.sampled_from(QIDS), st.lists(st.sampled_from(DOC_POOL), max_size=6), min_size=1
).filter(lambda t: any(t.values()))
popularity_st = st.dictionaries(
    st.sampled_from(DOC_POOL), st.sampled_from((0, 1, 1, 2, 3, 5, 8, 20)), min_size=1
)
CUTOFFS = (None, 1, 2, 3, 5, 10)


def evaluated(case: Case, queries: str) -> list[str]:
    if queries == "run":
        return list(case.run)
    return list(case.qrels)


# --- ILD ----------------------------------------------------------------------------------


@SETTINGS
@given(cases(), vectors(), st.sampled_from(CUTOFFS), st.sampled_from(("qrels", "run")))
def test_ild_cosine_equals_its_formula(case, features, k, queries) -> None:
    lists = top_lists(case, k, evaluated(case, queries))
    expected = ild(lists, lambda a, b: cosine_distance(features[a], features[b]))
    name = f"ILD@{k}" if k else "ILD"
    res = ranklens.evaluate(case.qrels, case.run, name, item_features=features, queries=queries)
    assert res[name] == pytest.approx(expected, rel=1e-12, abs=1e-12)
    for u, items in lists.items():
        pairs = len(items) * (len(items) - 1) // 2
        if pairs == 0:
            assert res.per_query[u][name] == 0.0  # fewer than 2 items: 0


@SETTINGS
@given(cases(), label_sets, st.sampled_from(CUTOFFS))
def test_ild_jaccard_and_cosine_of_label_sets_equal_their_formulas(case, labels, k) -> None:
    lists = top_lists(case, k, list(case.qrels))
    at = f"@{k}" if k else ""
    jaccard = f"ILD(distance='jaccard'){at}"
    res = ranklens.evaluate(case.qrels, case.run, jaccard, item_features=labels)
    expected = ild(lists, lambda a, b: jaccard_distance(labels[a], labels[b]))
    assert res[jaccard] == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # cosine of multi-hot vectors: |A & B| / sqrt(|A| |B|); empty sets have no cosine
    shown = {i for items in lists.values() for i in items}
    if all(labels[i] for i in shown):
        multi_hot = {i: [float(x in s) for x in LABEL_POOL] for i, s in labels.items()}
        got = ranklens.evaluate(case.qrels, case.run, f"ILD{at}", item_features=labels)
        want = ild(lists, lambda a, b: cosine_distance(multi_hot[a], multi_hot[b]))
        assert got[f"ILD{at}"] == pytest.approx(want, rel=1e-12, abs=1e-12)


@SETTINGS
@given(cases(), vectors(binary=True), st.sampled_from((2, 3, 10)))
def test_jaccard_of_0_1_vectors_is_that_of_their_label_sets(case, features, k) -> None:
    name = f"ILD(distance='jaccard')@{k}"
    as_sets = {i: {str(j) for j, x in enumerate(v) if x} for i, v in features.items()}
    by_vector = ranklens.evaluate(case.qrels, case.run, name, item_features=features)
    by_sets = ranklens.evaluate(case.qrels, case.run, name, item_features=as_sets)
    lists = top_lists(case, k, list(case.qrels))
    expected = ild(lists, lambda a, b: jaccard_distance(as_sets[a], as_sets[b]))
    assert by_vector[name] == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert by_sets[name] == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_ild_of_long_lists_in_blocks_equals_the_formula(monkeypatch) -> None:
    """Many users and long lists: the cosine sums run in bounded blocks of whole lists."""
    from ranklens.kernels import recommender_lists

    monkeypatch.setattr(recommender_lists, "_BLOCK", 64)
    rng = np.random.default_rng(5)
    items = [f"i{j}" for j in range(40)]
    features = {i: rng.normal(size=8).tolist() for i in items}
    run = {
        f"u{u}": {i: float(rng.integers(0, 5)) for i in rng.choice(items, 25, replace=False)}
        for u in range(30)
    }
    qrels = {u: {"i0": 1} for u in run}
    case = Case(qrels, run)
    for k in (20, None):
        name = f"ILD@{k}" if k else "ILD"
        got = ranklens.evaluate(qrels, run, name, item_features=features)[name]
        lists = top_lists(case, k, list(qrels))
        want = ild(lists, lambda a, b: cosine_distance(features[a], features[b]))
        assert got == pytest.approx(want, rel=1e-12)


def test_ild_streamed_equals_in_memory() -> None:
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"e": 1}}
    text = "u1 Q0 a 1 3 r\nu1 Q0 b 2 2 r\nu1 Q0 c 3 1 r\nu2 Q0 d 1 2 r\nu2 Q0 a 2 1 r\n"
    features = {"a": [1, 0], "b": [0, 1], "c": [1, 1], "d": [2, 1]}
    ev = ranklens.Evaluator(qrels, ["ILD@3", "P@3"], item_features=features)
    memory = ev.evaluate(io.BytesIO(text.encode()))
    streamed = ev.evaluate(io.BytesIO(text.encode()), stream=True)
    assert streamed.aggregate == pytest.approx(memory.aggregate)


# --- PopRSP -------------------------------------------------------------------------------


@SETTINGS
@given(
    cases(),
    train_st,
    st.one_of(st.none(), popularity_st),
    st.sampled_from((1, 3, 10)),
    st.sampled_from((0.2, 0.5)),
    st.sampled_from(("tail", "ignore")),
    st.sampled_from(("qrels", "run")),
)
def test_pop_rsp_equals_its_published_formula(case, train, pop, k, share, unlisted, queries):
    users = evaluated(case, queries)
    lists = top_lists(case, k, users)
    given_pop = pop
    if pop is None:  # the popularity is the training interactions' users per item
        pop = {}
        for items in train.values():
            for i in set(items):  # a user who repeats an item counts once
                pop[i] = pop.get(i, 0) + 1
    everything = set(DOC_POOL) | set(pop)
    num_items = len(everything) + 3
    catalogue = everything | {f"unseen{j}" for j in range(3)}
    expected = pop_rsp(lists, train, pop, share, catalogue if unlisted == "tail" else None)
    name = f"PopRSP(head_share={share},unlisted={unlisted!r})@{k}"
    res = ranklens.evaluate(
        case.qrels,
        case.run,
        name,
        popularity=given_pop,
        train=train,
        num_items=num_items,
        queries=queries,
    )
    got = res[name]
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert all(name not in row for row in res.per_query.values())  # run-level


@SETTINGS
@given(cases(), train_st, popularity_st, st.data())
def test_pop_rsp_weights_count_a_user_that_many_times(case, train, pop, data) -> None:
    """The statistic's value with user weights is the formula with each user repeated that
    many times (what the bootstrap over users resamples)."""
    users = list(case.qrels)
    weights = {u: data.draw(st.integers(0, 3)) for u in users}
    if not any(weights.values()):
        weights[users[0]] = 1
    res = ranklens.evaluate(
        case.qrels, case.run, "PopRSP@3", popularity=pop, train=train, num_items=80
    )
    lists = top_lists(case, 3, users)
    repeated = {f"{u}#{c}": lists[u] for u in users for c in range(weights[u])}
    train_repeated = {f"{u}#{c}": train.get(u, []) for u in users for c in range(weights[u])}
    catalogue = set(DOC_POOL) | {f"pad{j}" for j in range(80 - len(DOC_POOL))}
    expected = pop_rsp(repeated, train_repeated, pop, 0.2, catalogue)
    w = np.array([weights[q] for q in res.queries], dtype=np.float64)
    got = res.run_statistics["PopRSP@3"].value(w)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_pop_rsp_is_compared_by_a_bootstrap_over_users() -> None:
    rng = np.random.default_rng(11)
    users = [f"u{i}" for i in range(15)]
    items = [f"i{j}" for j in range(30)]
    qrels = {u: {str(rng.choice(items)): 1} for u in users}
    train = {u: [str(i) for i in rng.choice(items, 3, replace=False)] for u in users}
    runs = {
        name: {u: {str(i): float(rng.integers(0, 9)) for i in rng.choice(pool, 8)} for u in users}
        for name, pool in (("a", items), ("b", items[:12]))
    }
    cmp = ranklens.compare(
        qrels, runs, ["PopRSP@5"], train=train, num_items=30, test="bootstrap", permutations=200
    )
    stats = cmp.stats("b", "PopRSP@5")
    alone = {
        name: ranklens.evaluate(qrels, run, "PopRSP@5", train=train, num_items=30)["PopRSP@5"]
        for name, run in runs.items()
    }
    assert stats.delta == pytest.approx(alone["b"] - alone["a"], rel=1e-12)
    assert stats.ci_low < stats.delta < stats.ci_high  # an interval from resampled users
    assert 0.0 <= stats.p_value <= 1.0


# --- readers and errors ----------------------------------------------------------------


def test_features_from_files_frames_and_arrow_agree(tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    run = {"u1": {"a": 3, "b": 2, "c": 1}, "u2": {"c": 2, "b": 1}}
    vectors = {"a": [1.0, 0.0, 2.0], "b": [0.0, 1.0, 1.0], "c": [1.0, 1.0, 0.0]}
    want = ranklens.evaluate(qrels, run, "ILD@3", item_features=vectors)["ILD@3"]
    tsv = tmp_path / "features.tsv"
    tsv.write_text(
        "item_id\tf1\tf2\tf3\n# a comment\n"
        + "".join(f"{i}\t" + "\t".join(map(str, v)) + "\n" for i, v in vectors.items())
    )
    csv = tmp_path / "features.csv"
    csv.write_text("".join(f"{i}," + ",".join(map(str, v)) + "\n" for i, v in vectors.items()))
    frame = pd.DataFrame(
        {"item": list(vectors), **{f"f{j}": [v[j] for v in vectors.values()] for j in range(3)}}
    )
    embedding = pd.DataFrame({"item_id": list(vectors), "embedding": list(vectors.values())})
    parquet = tmp_path / "features.parquet"
    pq.write_table(pa.Table.from_pandas(embedding), parquet)
    for source in (tsv, str(csv), frame, embedding, pa.Table.from_pandas(frame), str(parquet)):
        got = ranklens.evaluate(qrels, run, "ILD@3", item_features=source)["ILD@3"]
        assert got == pytest.approx(want, rel=1e-12), source
    # label sets: 'item label' lines, a label column, a column of label lists
    labels = {"a": {"x", "y"}, "b": {"y"}, "c": {"z"}}
    name = "ILD(distance='jaccard')@3"
    want = ranklens.evaluate(qrels, run, name, item_features=labels)[name]
    text = tmp_path / "labels.txt"
    text.write_text("item genre\na x\na y\nb y\nc z\na x\n")
    rows = pd.DataFrame({"item": ["a", "a", "b", "c"], "genre": ["x", "y", "y", "z"]})
    lists = pd.DataFrame({"item": ["a", "b", "c"], "genres": [["x", "y"], ["y"], ["z"]]})
    for source in (str(text), rows, lists, {"a": ["x", "y"], "b": ("y",), "c": ["z"]}):
        assert ranklens.evaluate(qrels, run, name, item_features=source)[name] == pytest.approx(
            want
        ), source


@pytest.mark.parametrize(
    ("features", "error", "match"),
    [
        ({"a": [1, 0], "b": [1, 0, 0]}, InputError, r"item 'b'.*length 3.*length 2"),
        ({"a": [1, 0], "b": ["x", 1]}, InputError, "not a number"),
        ({"a": [1, float("nan")]}, InputError, "not finite"),
        ({"a": {"x"}, "b": [1.0, 2.0]}, InputError, "label.*vector"),
        ({"a": "drama"}, InputError, "one string"),
        ({}, InputError, "no item"),
        ("a 1 2\nb 1\n", ParseError, ":2: .*2 fields, the first line 3"),
        ("a 1 2\nb 1 x\n", ParseError, r":2: .*'x', not a number"),
        ("a 1 2\na 3 4\n", InputError, "item 'a' has two vectors"),
        ("a x\nb y z\n", ParseError, "'item label'"),
        ([1.0, 2.0], InputError, "not list"),
    ],
)
def test_bad_item_features(features, error, match) -> None:
    source = io.StringIO(features) if isinstance(features, str) else features
    with pytest.raises(error, match=match):
        ranklens.Evaluator({"u": {"a": 1}}, "ILD@3", item_features=source)


def test_bad_item_feature_tables() -> None:
    pd = pytest.importorskip("pandas")
    for frame, match in (
        (pd.DataFrame({"item": ["a"], "f1": ["x"], "f2": [1.0]}), "column 'f1' is not numeric"),
        (pd.DataFrame({"name": ["a"], "f1": [1.0]}), "no item column"),
        (pd.DataFrame({"item": ["a"]}), "only an item column"),
        (pd.DataFrame({"item": ["a", "a"], "f1": [1.0, 2.0], "f2": [0.0, 1.0]}), "row 2"),
    ):
        with pytest.raises(InputError, match=match):
            ranklens.Evaluator({"u": {"a": 1}}, "ILD@3", item_features=frame)


def test_ild_errors_name_the_item_and_what_to_do() -> None:
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    run = {"u1": {"a": 3, "b": 2}, "u2": {"b": 2, "zz": 1}}
    with pytest.raises(MeasureError, match=r"item 'zz' \(in the list of user 'u2'\) has no feat"):
        ranklens.evaluate(qrels, run, "ILD@3", item_features={"a": [1, 0], "b": [0, 1]})
    # below the cut-off it does not matter
    ok = ranklens.evaluate(qrels, run, "ILD@1", item_features={"a": [1, 0], "b": [0, 1]})
    assert ok["ILD@1"] == 0.0
    zero = {"a": [0, 0], "b": [0, 1], "zz": [1, 1]}
    with pytest.raises(MeasureError, match=r"item .a. has a zero feature vector.*jaccard"):
        ranklens.evaluate(qrels, run, "ILD@3", item_features=zero)
    empty = {"a": set(), "b": {"x"}, "zz": {"y"}}
    with pytest.raises(MeasureError, match="item 'a' has an empty label set"):
        ranklens.evaluate(qrels, run, "ILD@3", item_features=empty)
    got = ranklens.evaluate(qrels, run, "ILD(distance='jaccard')@3", item_features=empty)
    assert got["ILD(distance='jaccard')@3"] == pytest.approx(1.0)
    with pytest.raises(MeasureError, match="item 'a' has a feature that is neither 0 nor 1"):
        features = {"a": [0.5, 0], "b": [0, 1], "zz": [1, 1]}
        ranklens.evaluate(qrels, run, "ILD(distance='jaccard')@3", item_features=features)
    with pytest.raises(MeasureError, match=r"needs item features.*--item-features"):
        ranklens.evaluate(qrels, run, "ILD@3")
    with pytest.raises(MeasureError, match="distance must be one of"):
        ranklens.evaluate(qrels, run, "ILD(distance='euclid')@3", item_features=zero)


def test_training_interactions_from_files_and_frames(tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"e": 1}}
    run = {"u1": {"a": 0.9, "b": 0.5, "c": 0.5}, "u2": {"a": 0.8, "d": 0.8, "b": 0.1}}
    train = {"u1": ["b", "a", "a"], "u2": ["c"], "u3": ["a", "e"]}
    want = ranklens.evaluate(qrels, run, "PopRSP@2", train=train, num_items=6)["PopRSP@2"]
    rows = [(u, i) for u, items in train.items() for i in items]
    text = tmp_path / "train.tsv"
    text.write_text("user_id\titem_id\trating\n" + "".join(f"{u}\t{i}\t5\n" for u, i in rows))
    csv = tmp_path / "train.csv"
    csv.write_text("".join(f"{u},{i}\n" for u, i in rows))
    frame = pd.DataFrame(rows, columns=["user", "item"])
    parquet = tmp_path / "train.parquet"
    pq.write_table(pa.Table.from_pandas(frame), parquet)
    for source in (str(text), csv, frame, pa.Table.from_pandas(frame), str(parquet)):
        got = ranklens.evaluate(qrels, run, "PopRSP@2", train=source, num_items=6)["PopRSP@2"]
        assert got == pytest.approx(want, rel=1e-12), source
    # the popularity from the training interactions: distinct users per item (u1 has a
    # twice), or rows per item with count='interactions'; their users: num_users
    pop = {"a": 2, "b": 1, "c": 1, "e": 1}
    rows = {"a": 3, "b": 1, "c": 1, "e": 1}
    for name, counts in (("ARP@2", pop), ("ARP(count='interactions')@2", rows)):
        assert ranklens.evaluate(qrels, run, name, train=train)[name] == pytest.approx(
            ranklens.evaluate(qrels, run, name, popularity=counts)[name]
        )
    psp = ranklens.evaluate(qrels, run, "PSP@2", train=train)["PSP@2"]
    assert psp == ranklens.evaluate(qrels, run, "PSP@2", popularity=pop, num_users=3)["PSP@2"]


def test_pop_rsp_errors() -> None:
    qrels = {"u1": {"a": 1}}
    run = {"u1": {"a": 2.0, "zz": 1.0}}
    with pytest.raises(MeasureError, match=r"needs each user.s training items.*--train"):
        ranklens.evaluate(qrels, run, "PopRSP@2", popularity={"a": 3})
    with pytest.raises(MeasureError, match="needs '@cutoff'"):
        ranklens.evaluate(qrels, run, "PopRSP", train={"u1": ["a"]})
    with pytest.raises(
        MeasureError, match=r"2 distinct items, more than the catalogue.s 1.*num_it"
    ):
        ranklens.evaluate(qrels, run, "PopRSP@2", train={"u1": ["a"]})
    with pytest.raises(MeasureError, match="whole run"):
        ranklens.evaluate(qrels, run, "PopRSP@2", train={"u1": ["a"]}, num_items=5).query_values(
            "PopRSP@2"
        )
    with pytest.raises(ParseError, match="'user item'"):
        ranklens.Evaluator(qrels, "PopRSP@2", train=io.StringIO("u1\n"))
    with pytest.raises(InputError, match="user column"):
        pd = pytest.importorskip("pandas")
        ranklens.Evaluator(qrels, "PopRSP@2", train=pd.DataFrame({"item": ["a"]}))
    with pytest.raises(InputError, match="one string"):
        ranklens.Evaluator(qrels, "PopRSP@2", train={"u1": "a"})
    with pytest.raises(InputError, match="not ndarray"):
        ranklens.Evaluator(qrels, "PopRSP@2", train=np.zeros((2, 2)))


# --- the command line --------------------------------------------------------------------


def test_cli_item_features_and_train(tmp_path, capsys) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("u1 0 a 1\nu2 0 b 1\nu3 0 e 1\n")
    run = tmp_path / "run"
    run.write_text(
        "u1 Q0 a 1 0.9 r\nu1 Q0 c 2 0.5 r\nu1 Q0 b 3 0.5 r\n"
        "u2 Q0 d 1 0.8 r\nu2 Q0 a 2 0.8 r\nu2 Q0 b 3 0.1 r\n"
    )
    features = tmp_path / "features.tsv"
    features.write_text("a 1 0\nb 0 1\nc 1 1\nd 1 0\ne 0 1\n")
    labels = tmp_path / "labels"
    labels.write_text("a x\nb y\nc x\nc y\nd x\ne y\n")
    train = tmp_path / "train"
    train.write_text("u1 b\nu2 c\nu3 a\n")
    pop = tmp_path / "pop"
    pop.write_text("a 10\nb 5\nc 3\nd 1\ne 1\n")
    argv = ["eval", str(qrels), str(run), "-f", "json", "--quiet"]
    measures = ["-m", "ILD@3", "-m", "PopRSP@2"]
    extra = ["--item-features", str(features), "--train", str(train), "--popularity", str(pop)]
    assert main([*argv, *measures, *extra]) == 0
    got = json.loads(capsys.readouterr().out)["runs"][0]["aggregate"]
    assert got["ILD@3"] == pytest.approx(((3 - math.sqrt(2)) / 3 + 2 / 3) / 3)
    assert got["PopRSP@2"] == pytest.approx(0.8 / 1.2)
    jaccard = ["-m", "ILD(distance='jaccard')@3", "--item-features", str(labels)]
    assert main([*argv, *jaccard]) == 0
    got = json.loads(capsys.readouterr().out)["runs"][0]["aggregate"]
    assert got["ILD(distance='jaccard')@3"] == pytest.approx((2 / 3 + 2 / 3) / 3)
    missing = tmp_path / "missing.tsv"
    missing.write_text("a 1 0\nb 0 1\nc 1 1\n")
    ragged = tmp_path / "ragged.tsv"
    ragged.write_text("a 1 0\nb 0 1 1\n")
    for args, match in (
        (["-m", "ILD@3", "--item-features", str(missing)], "item 'd'"),
        (["-m", "ILD@3"], "--item-features"),
        (["-m", "ILD@3", "--item-features", str(ragged)], "ragged.tsv:2:"),
        (["-m", "PopRSP@2", "--popularity", str(pop)], "--train"),
        (["-m", "PopRSP@2", "-q", "--train", str(train), "--popularity", str(pop)], "per-query"),
    ):
        code = main(["eval", str(qrels), str(run), *args, "--quiet"])
        err = capsys.readouterr().err
        assert code != 0 and match in err and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1


def test_cli_compare_takes_item_features_and_training_interactions(tmp_path, capsys) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("u1 0 a 1\nu2 0 b 1\n")
    one = tmp_path / "one.txt"
    one.write_text("u1 Q0 a 1 2 r\nu1 Q0 b 2 1 r\nu2 Q0 c 1 1 r\nu2 Q0 a 2 0 r\n")
    two = tmp_path / "two.txt"
    two.write_text("u1 Q0 c 1 2 r\nu1 Q0 b 2 1 r\nu2 Q0 b 1 1 r\nu2 Q0 a 2 0 r\n")
    features = tmp_path / "features.txt"
    features.write_text("a 1 0\nb 0 1\nc 1 1\n")
    train = tmp_path / "train.txt"
    train.write_text("u1 c\nu2 a\n")
    side = ["--item-features", str(features), "--train", str(train), "--num-items", "3"]
    argv = ["compare", str(qrels), str(one), str(two), "-m", "ILD@2", "-m", "PopRSP@2"]
    assert main([*argv, *side, "-f", "json"]) == 0
    means = {r["name"]: r["mean"] for r in json.loads(capsys.readouterr().out)["runs"]}
    side_data = {
        "item_features": {"a": [1, 0], "b": [0, 1], "c": [1, 1]},
        "train": {"u1": ["c"], "u2": ["a"]},
        "num_items": 3,
    }
    for name, path in (("one", one), ("two", two)):
        want = ranklens.evaluate(str(qrels), str(path), ["ILD@2", "PopRSP@2"], **side_data)
        assert means[name] == pytest.approx(want.aggregate, rel=1e-12)
