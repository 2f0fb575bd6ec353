"""Real judges on record: our reading of each reply is strict and stands beside the
benchmark's; the benchmark's published counts come back from the fixture; each measure finds
what a made-up judge was built to show and nothing on the control; the sign test, the
bootstrap drawn as counts and Krippendorff's alpha agree with independent implementations;
the panel counts every pair; a fixture that breaks its format is named, line by line."""

import json
import os
import re
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from scripts import import_llmbar
from stages.s01_model.errors import CourseInputError
from stages.s09_calibration.measures import plain
from stages.s18_judges_on_record import measures, pairlog, panel, record, resampled
from stages.s18_judges_on_record.measures import NOT_ASKED, ONE, TIE, TWO, UNREAD, Judged
from stages.s18_judges_on_record.reading import KINDS, original, read_reply
from stages.s18_judges_on_record.report import CONTROL, figure, render, report

FIXTURE = record.RECORD


@pytest.fixture(scope="module")
def held():
    return record.load()


@pytest.fixture(scope="module")
def measured(held):
    return report(held)


# ---- reading a reply -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "slot"),
    [
        ("Output (a) says more. Therefore, Output (b) is better.", "b"),
        ("Output (a) is better. It follows the instruction.", "a"),  # the verdict first
        ("Neither Output (a) nor Output (b) is better.", None),  # names no winner
        ("Output (a) is not better, and Output (b) is better.", "b"),
        ("output (a) is better.", None),  # written otherwise: not the phrase asked for
        ("Therefore, Output (b)", None),  # cut off before its verdict
        ("", None),
    ],
)
def test_a_reply_counts_only_when_it_names_one_slot_better(reply, slot):
    assert read_reply(reply) == slot


@pytest.mark.failure_mode
def test_a_reply_that_names_both_slots_is_unscored_not_the_first_named():
    # the benchmark searched for "(a)" first and took it; we keep the reply unscored
    assert read_reply("In detail, Output (a) is better. Overall, Output (b) is better.") is None
    assert read_reply("Output (b) is better.\n\nOutput (a) is better because ...") is None
    assert read_reply("Output (b) is better. ... Therefore, Output (a) is better.") is None


def read_synthesis(reply):
    """The benchmark's second step (asked where the two orders disagreed, both explanations in
    view): a bare "Output (a)" or "Output (b)", read whole."""
    match = re.fullmatch(r"Output \(([ab])\)", reply.strip())
    return match.group(1) if match else None


def test_the_second_step_is_read_whole_and_a_slot_maps_to_its_output():
    assert [read_synthesis(r) for r in (" Output (b)\n", "Output (a) is better", "(a)")] == [
        "b", None, None,
    ]  # fmt: skip
    # shown as is, slot a holds output_1; swapped, it holds output_2
    assert [original("a", False), original("b", False), original("a", True)] == [1, 2, 2]
    assert [original("b", True), original(None, True)] == [1, None]


@pytest.mark.golden
def test_our_reading_differs_from_the_benchmarks_only_where_ours_declines(held):
    # 5,028 replies; counted by reading every reply with a script of our own when the fixture
    # was made: 11 the benchmark read and we do not (9 name both slots, 2 say "neither ...
    # nor"), 16 that neither reads; none that we read and it does not, none read differently
    rows = {j: tuple(b.counts[kind] for kind in KINDS) for j, b in held.beside.items()}
    assert KINDS == ("same", "neither", "theirs only", "ours only", "different")
    assert rows == {
        "GPT-4": (838, 0, 0, 0, 0), "ChatGPT": (834, 3, 1, 0, 0),
        "ChatGPT-0301": (837, 0, 1, 0, 0), "PaLM2": (829, 6, 3, 0, 0),
        "LLaMA2": (834, 4, 0, 0, 0), "Falcon": (829, 3, 6, 0, 0),
    }  # fmt: skip
    assert sum(len(b.shown) for b in held.beside.values()) == 11 + 16  # each one kept


# ---- the benchmark's published counts --------------------------------------------------


def last_steps(judge, name):
    """A judge's last step on a set's pairs in both orders, as we read it and as the benchmark
    did: where the two orders disagreed, the benchmark asked again, and that reply counts."""
    ours: dict[bool, list[int | None]] = {False: [], True: []}
    theirs: dict[bool, list[str | None]] = {False: [], True: []}
    label: dict[str, int] = {}
    for line in (FIXTURE / "verdicts.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if (row["judge"], row["set"]) != (judge, name):
            continue
        again = row["synthesis_reply"] is not None
        slot = read_synthesis(row["synthesis_reply"]) if again else read_reply(row["reply"])
        ours[row["swapped"]].append(original(slot, row["swapped"]))
        theirs[row["swapped"]].append(row["synthesis_winner" if again else "winner"])
        label[row["id"]] = row["label"]
    return (
        ours,
        {k: [None if w is None else int(w) for w in v] for k, v in theirs.items()},
        list(label.values()),
    )


def published_counts(readings, label):
    """The benchmark's four counts: right as shown, right swapped, right in both, the same
    reading in both orders (two unread readings count as the same, as it counted them)."""
    shown, swapped = readings[False], readings[True]
    right = [(a == y, b == y) for a, b, y in zip(shown, swapped, label, strict=True)]
    return (sum(a for a, _ in right), sum(b for _, b in right), sum(a and b for a, b in right),
            sum(a == b for a, b in zip(shown, swapped, strict=True)))  # fmt: skip


@pytest.mark.golden
def test_the_benchmarks_published_counts_come_back_from_its_readings_and_from_ours(held):
    stated = json.loads((FIXTURE / "statistics.json").read_text("utf-8"))
    differing = 0
    for name in record.SETS:
        for judge in record.JUDGES:
            ours, theirs, label = last_steps(judge, name)
            keys = ("correct_False", "correct_True", "correct_both", "equal")  # "94 / 100 = 94.0%"
            published = tuple(int(stated[name][judge][key].split(" / ")[0]) for key in keys)
            assert published_counts(theirs, label) == published, (
                judge,
                name,
            )  # the record is whole
            if ours == theirs:  # where our reading of every last step is the benchmark's
                assert published_counts(ours, label) == published, (judge, name)
            differing += ours != theirs
    assert differing == 0  # our reading of the last steps is the benchmark's in all 30


def test_the_benchmarks_kappa_sets_the_judge_coded_1_0_against_the_label_coded_1_2(held):
    # why the published kappa is not compared: GPT-4 on Natural, shown as is, is right on 94
    # of 100 yet its kappa is 0.264. Coded as it coded them, only "both say output 1" agrees:
    # kappa = (p11 - p1 q1) / (1 - p1 q1), p1 the judge's share of "1", q1 the labels'.
    _, theirs, label = last_steps("GPT-4", "Natural")
    shown, label = np.array([w or 0 for w in theirs[False]]), np.array(label)
    p11 = float(np.mean((shown == ONE) & (label == ONE)))
    p1, q1 = float(np.mean(shown == ONE)), float(np.mean(label == ONE))
    stated = json.loads((FIXTURE / "statistics.json").read_text("utf-8"))
    published = stated["Natural"]["GPT-4"]["kappa_False"]
    assert (p11 - p1 * q1) / (1 - p1 * q1) == pytest.approx(published, abs=1e-12)
    assert published == pytest.approx(0.264, abs=0.001)


def test_the_fixture_is_what_the_importer_makes_of_the_benchmarks_files(tmp_path):
    # what the importer derives from the fixture's own rows is there, sorted as it writes them
    pairs, verdicts = (
        (FIXTURE / name).read_text("utf-8") for name in ("pairs.jsonl", "verdicts.jsonl")
    )
    for text in (pairs, verdicts):
        assert text.splitlines() == sorted(text.splitlines())
    example = import_llmbar.example_log(pairs.splitlines(), verdicts.splitlines())
    assert (FIXTURE / "chatgpt_natural.csv").read_text("utf-8") == example
    assert (FIXTURE / "SOURCE.md").read_text("utf-8") == import_llmbar.SOURCE
    # and, where the benchmark's files are at hand, every file is what they make
    source = os.environ.get("LLMBAR_DATASET")  # the benchmark's Dataset/LLMBar folder
    if source:
        assert import_llmbar.main([source, "--out", str(tmp_path)]) == 0
        for name in ("pairs.jsonl", "verdicts.jsonl", "statistics.json", "LICENSE", "SOURCE.md",
                     "chatgpt_natural.csv"):  # fmt: skip
            assert (tmp_path / name).read_bytes() == (FIXTURE / name).read_bytes(), name


def test_the_fixture_stays_small_and_names_its_source():
    size = sum(path.stat().st_size for path in FIXTURE.iterdir())
    assert size <= 8 * 1024 * 1024
    source = (FIXTURE / "SOURCE.md").read_text(encoding="utf-8")
    assert import_llmbar.COMMIT in source and "MIT" in (FIXTURE / "LICENSE").read_text("utf-8")


# ---- a fixture that breaks its format --------------------------------------------------


def broken(
    tmp_path: Path, pairs: list[str] | None = None, verdicts: list[str] | None = None
) -> Path:
    folder = tmp_path / "record"
    folder.mkdir()
    pair = {
        "id": "Natural-000",
        "set": "Natural",
        "label": 1,
        "input": "i",
        "output_1": "aa",
        "output_2": "b",
    }
    rows = [
        {"id": "Natural-000", "set": "Natural", "label": 1, "judge": judge, "swapped": swapped,
         "reply": "Therefore, Output (a) is better.", "winner": "2" if swapped else "1",
         "synthesis_reply": None, "synthesis_winner": None}
        for judge in record.JUDGES for swapped in (False, True)
    ]  # fmt: skip
    (folder / "pairs.jsonl").write_text("\n".join(pairs or [json.dumps(pair)]), "utf-8")
    text = "\n".join(verdicts or [json.dumps(row) for row in rows])
    (folder / "verdicts.jsonl").write_text(text, "utf-8")
    (folder / "statistics.json").write_text("{}", "utf-8")
    return folder


def test_a_well_formed_small_record_reads(tmp_path):
    held = record.load(broken(tmp_path))
    j = held.judged["GPT-4"]
    assert (j.shown.tolist(), j.swapped.tolist(), j.longer.tolist()) == ([ONE], [TWO], [ONE])


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda p, v: (p * 2, v), "pair id 'Natural-000' twice"),
        (lambda p, v: ([p[0].replace('"label": 1', '"label": 3')], v), "label 3: expected 1 or 2"),
        (
            lambda p, v: (p, v + v[:1]),
            "GPT-4 on pair 'Natural-000' (Natural, label 1), swapped false: not a pair",
        ),
        (lambda p, v: (p, v[1:]), "no reply of GPT-4 on Natural-000, swapped false"),
        (
            lambda p, v: (p, [v[0].replace('"winner": "1"', '"winner": "3"'), *v[1:]]),
            'winner \'3\': expected "1", "2" or null',
        ),
        (lambda p, v: (p, [v[0].replace('"GPT-4"', '"GPT-5"'), *v[1:]]), "judge 'GPT-5'"),
    ],
)
def test_a_record_that_breaks_its_format_is_one_error_naming_the_value(tmp_path, change, named):
    folder = broken(tmp_path)
    pairs = (folder / "pairs.jsonl").read_text("utf-8").splitlines()
    verdicts = (folder / "verdicts.jsonl").read_text("utf-8").splitlines()
    pairs, verdicts = change(pairs, verdicts)
    (folder / "pairs.jsonl").write_text("\n".join(pairs), "utf-8")
    (folder / "verdicts.jsonl").write_text("\n".join(verdicts), "utf-8")
    with pytest.raises(CourseInputError, match=named.replace("(", r"\(").replace(")", r"\)")):
        record.load(folder)


def test_a_record_with_a_bom_reads_and_one_with_a_latin_1_byte_is_named(tmp_path):
    folder = broken(tmp_path)
    pairs = folder / "pairs.jsonl"
    pairs.write_bytes(b"\xef\xbb\xbf" + pairs.read_bytes())  # a BOM, as some editors write
    assert record.load(folder).ids == ["Natural-000"]
    pairs.write_bytes(pairs.read_bytes().replace(b'"i"', b'"caf\xe9"'))  # Latin-1's e-acute
    with pytest.raises(CourseInputError, match="is not UTF-8"):
        record.load(folder)


# ---- the measures, on judges made for them -----------------------------------------------


def judge_of(shown, swapped, label, longer=None) -> Judged:
    longer = [TIE] * len(shown) if longer is None else longer
    return Judged(*(np.array(x) for x in (shown, swapped, label, longer)))


def test_a_judge_that_always_says_first_is_found_and_the_control_is_not():
    # every pair shown as is goes to output 1, swapped to output 2: the first slot each time
    label = [ONE, TWO] * 20
    first = judge_of([ONE] * 40, [TWO] * 40, label)
    c, f = measures.consistency(first), measures.first_slot(first)
    assert (c.state, c.changed, f.state, f.share, f.first_both) == ("found", 40, "found", 1.0, 40)
    control = measures.as_judge(np.array(label), np.array([TIE] * 40))
    c, f = measures.consistency(control), measures.first_slot(control)
    assert (c.state, c.changed, f.state, f.share) == ("not_found", 0, "not_found", 0.5)


def test_a_judge_of_content_alone_has_no_slot_though_it_errs():
    # right on 30 pairs, wrong on 10, the same way in both orders: wrong is not a slot
    label = [ONE, TWO] * 20
    wrong = [TWO if i < 10 else x for i, x in enumerate(label)]
    f = measures.first_slot(judge_of(wrong, wrong, label))
    assert (f.state, f.share, f.first_both, f.second_both, f.p) == ("not_found", 0.5, 0, 0, None)


@pytest.mark.failure_mode
def test_a_verdict_that_changed_with_the_order_is_not_right_in_both():
    # pair 1 right both ways; pair 2 right as shown only; pair 3 unread as shown
    shown, swapped, label = [ONE, TWO, UNREAD], [ONE, ONE, TWO], [ONE, TWO, TWO]
    rows = {
        a.of: (a.right, a.labelled, a.unread)
        for a in measures.agreement(judge_of(shown, swapped, label))
    }
    assert rows == {"shown": (2, 3, 1), "swapped": (2, 3, 0), "both orders": (1, 3, 1)}


@pytest.mark.failure_mode
def test_accuracy_with_too_few_replies_read_is_not_evaluated_never_a_zero():
    # three labelled pairs: none read, then one of three read (under stage 8's half)
    none = measures.agreement(judge_of([UNREAD] * 3, [UNREAD] * 3, [ONE, TWO, ONE]))
    assert [(a.share, a.ci, a.right, a.unread) for a in none] == [(None, None, 0, 3)] * 3
    one = measures.agreement(judge_of([ONE, UNREAD, UNREAD], [NOT_ASKED] * 3, [ONE, TWO, ONE]))
    assert [(a.of, a.share, a.right, a.labelled, a.unread) for a in one] == [
        ("shown", None, 1, 3, 2)
    ]
    # two of three read is enough: 1 right of 3, the unread one counted as not right
    two = measures.agreement(judge_of([ONE, ONE, UNREAD], [NOT_ASKED] * 3, [ONE, TWO, ONE]))
    assert two[0].share == pytest.approx(1 / 3)


@pytest.mark.failure_mode
def test_an_unread_reply_is_unscored_never_a_tie():
    # ten pairs read in both orders and the same; two whose reply could not be read as shown
    shown, swapped = [ONE] * 10 + [UNREAD] * 2, [ONE] * 12
    c = measures.consistency(judge_of(shown, swapped, [ONE] * 12))
    assert (c.outcome.evidence.usable, c.outcome.evidence.total, c.changed) == (10, 12, 0)


def test_the_length_gap_is_the_judges_taste_beyond_the_labels():
    # 40 pairs, output 1 longer in each; the labels pick it in 20. A judge that picks the
    # longer every time leans 0.5 beyond the labels; one that agrees with them, 0
    label, longer = [ONE, TWO] * 20, [ONE] * 40
    taste = measures.length(judge_of([ONE] * 40, [ONE] * 40, label, longer))
    assert (taste.state, taste.judge_longer, taste.label_longer, taste.gap) == (
        "found",
        1.0,
        0.5,
        0.5,
    )
    fair = measures.length(judge_of(label, label, label, longer))
    assert (fair.state, fair.gap) == ("not_found", 0.0)
    blind = measures.length(judge_of([ONE] * 40, [ONE] * 40, [NOT_ASKED] * 40, longer))
    assert blind.state == "not_evaluated" and "cannot be told" in blind.outcome.reason


def test_every_measure_of_a_log_asked_once_says_why_it_is_not_evaluated():
    once = judge_of([ONE, TWO] * 10, [NOT_ASKED] * 20, [ONE, TWO] * 10)
    assert measures.consistency(once).outcome.reason == "no pair was asked in both orders"
    assert measures.first_slot(once).state == "not_evaluated"
    assert [a.of for a in measures.agreement(once)] == ["shown"]


def test_the_control_finds_nothing_and_every_judge_is_measured(measured):
    for name, scope in measured.scopes.items():
        control = scope.judges[CONTROL]
        assert [m.state for m in control.measures()] == ["not_found"] * 3, name
        for judge, m in scope.judges.items():
            assert "not_evaluated" not in [x.state for x in m.measures()], (name, judge)
    assert measured.clean()


# ---- statistics against independent implementations ---------------------------------------


@given(st.integers(0, 3000), st.integers(1, 3000))
def test_the_sign_test_is_scipys_exact_binomial_test(k, n):
    k = min(k, n)
    assert resampled.sign_test(k, n) == pytest.approx(
        binomtest(k, n, 0.5).pvalue, rel=1e-9, abs=1e-300
    )


def test_a_bootstrap_drawn_as_counts_is_the_bootstrap_of_rows():
    # 300 verdicts, 210 right: resampling the rows and drawing the counts give intervals that
    # agree to the bootstrap's own noise (a percentile of 2,000 resamples, sd about 0.005)
    rows = np.array([1] * 210 + [0] * 90)
    rng = np.random.default_rng(1)
    by_rows = np.quantile(rows[rng.integers(0, 300, (2000, 300))].mean(axis=1), [0.025, 0.975])
    drawn = resampled.interval(np.array([90, 210]), lambda c: c[:, 1] / c.sum(axis=1))
    assert drawn == pytest.approx(tuple(by_rows), abs=0.015)


def test_krippendorffs_alpha_is_the_krippendorff_packages_on_the_record_and_with_gaps(held):
    cast = np.array([panel.votes(j) for j in held.judged.values()])
    label = held.judged["GPT-4"].label
    for rows in (cast, np.vstack([cast, label])):
        counts = np.stack([(rows == ONE).sum(axis=0), (rows == TWO).sum(axis=0)], axis=1)
        ours, _ = panel.alpha(counts)
        data = np.where(rows == TIE, np.nan, rows).astype(float)  # no vote: a missing value
        theirs = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert ours == pytest.approx(theirs, abs=1e-12)
    # three values and gaps: people who label 1, 2 or tie, some pairs by one person only
    rng = np.random.default_rng(3)
    people = rng.choice([1.0, 2.0, 0.0, np.nan], size=(4, 60), p=[0.4, 0.3, 0.1, 0.2])
    counts = np.stack([(people == v).sum(axis=0) for v in (1, 2, 0)], axis=1)
    ours, _ = panel.alpha(counts)
    theirs = krippendorff.alpha(reliability_data=people, level_of_measurement="nominal")
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_kappa_drawn_as_counts_is_stage_10s_kappa():
    from stages.s10_agreement.kappa import kappa_from_table

    for table in ([[30, 5], [7, 20]], [[1, 0], [3, 9]], [[12, 12], [12, 12]]):
        counts = np.array(table).ravel()
        assert resampled.estimate(counts, measures.kappa_of)[0] == pytest.approx(
            kappa_from_table(table).kappa
        )


# ---- the panel ---------------------------------------------------------------------------


@pytest.mark.failure_mode
def test_the_panels_denominator_is_every_pair_and_an_even_split_is_not_right():
    # three judges, four pairs labelled 1. Pair 1: all say 1. Pair 2: 1, 2 and no vote (an
    # even split). Pair 3: nobody votes. Pair 4: 2, 2, 1. The panel is right on 1 of 4.
    j = {
        "a": judge_of([ONE, ONE, UNREAD, TWO], [ONE, ONE, UNREAD, TWO], [ONE] * 4),
        "b": judge_of([ONE, TWO, ONE, TWO], [ONE, TWO, TWO, TWO], [ONE] * 4),
        "c": judge_of([ONE, ONE, UNREAD, ONE], [ONE, TWO, UNREAD, ONE], [ONE] * 4),
    }
    p = panel.panel(j, np.array([ONE] * 4))
    assert (p.panel.right, p.panel.labelled, p.no_majority, p.abstained) == (1, 4, 2, 4)
    assert (p.best.of, p.best.right) == ("a", 2)  # a: pairs 1 and 2 right both ways


def test_correlated_errors_are_worth_fewer_votes():
    # two judges who err on the same pairs correlate at 1: worth one vote; two who never err
    # on the same pair (and are right otherwise) correlate below 0, so worth more than two
    label = np.array([ONE] * 8)
    same = np.array([[TWO, TWO, ONE, ONE, ONE, ONE, ONE, ONE]] * 2)
    assert panel.error_correlation(same, label) == pytest.approx(1.0)
    apart = np.array(
        [[TWO, TWO, ONE, ONE, ONE, ONE, ONE, ONE], [ONE, ONE, TWO, TWO, ONE, ONE, ONE, ONE]]
    )
    r = panel.error_correlation(apart, label)
    assert r is not None and r < 0


# ---- the command -------------------------------------------------------------------------


def test_the_command_prints_its_json_and_exits_0(cli):
    result = cli("stages.s18_judges_on_record", "--json")
    assert result.returncode == 0, result.stderr
    assert set(json.loads(result.stdout)) == {"scopes", "reading"}


def test_a_log_that_is_not_there_is_one_line(cli, one_line_error, tmp_path):
    result = cli("stages.s18_judges_on_record", "audit", str(tmp_path / "nowhere.csv"))
    one_line_error(result, "nowhere.csv", "cannot read")


@pytest.mark.failure_mode
def test_the_record_keeps_every_unread_reply_unscored(held):
    # both sides counted apart: the judge's arrays, and our reading set beside the benchmark's
    # (a reply we could not read is "neither" or "theirs only" there)
    for judge, j in held.judged.items():
        unread = int((j.shown == UNREAD).sum() + (j.swapped == UNREAD).sum())
        beside = held.beside[judge].counts
        assert unread == beside["neither"] + beside["theirs only"], judge
    assert sum(int((j.shown == UNREAD).sum()) for j in held.judged.values()) > 0


def test_a_log_of_chatgpts_natural_verdicts_audits_as_the_record_reports_them(measured):
    # the example log was written from the benchmark's readings, one row a pair, and read by
    # pairlog.py; the report's row comes from the fixture read by record.py and reading.py
    log = pairlog.audit(FIXTURE / "chatgpt_natural.csv")
    row = measured.scopes["Natural"].judges["ChatGPT"]
    assert plain(log.measured) == plain(row)
    assert (log.log.rows, log.log.used, log.log.skipped) == (100, 100, 0)


def lesson() -> str:
    return (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


@pytest.mark.golden
def test_the_lessons_table_is_the_reports(measured):
    shown = lesson().split("### The six judges on all pairs", 1)[1].split("```\n", 2)[1]
    lines = render(measured)
    start = lines.index("all (419 pairs): biases")
    assert shown.splitlines() == lines[start : lines.index("", start)]


def joined(values, places=2):
    return ", ".join(f"{v:.{places}f}" for v in values)


@pytest.mark.golden
def test_the_lessons_figures_are_the_reports(held, measured):
    figures = lesson().split("### What the record confirms", 1)[1].split("\n#", 1)[0]
    quoted = dict(re.findall(r"^- (.+?): `(.+)`$", figures, flags=re.MULTILINE))
    nat, adv, every = (measured.scopes[name] for name in ("Natural", "Adversarial", "all"))
    judges = list(record.JUDGES)
    first = [every.judges[j].first_slot.share for j in judges]
    gpt4 = nat.judges["GPT-4"].first_slot
    replies = sum(b.counts.total() for b in held.beside.values())
    alike = sum(b.counts["same"] + b.counts["neither"] for b in held.beside.values())
    control = [scope.judges[CONTROL].length.label_longer for scope in (nat, adv)]
    gaps = [joined(scope.judges[j].length.gap for j in judges) for scope in (nat, adv)]
    both = [scope.judges["GPT-4"].agreement[2].share for scope in (nat, adv)]
    panels = [nat.panel.panel.share, nat.panel.best.share, nat.panel.others.share]
    assert quoted == {
        "pairs, Natural / Adversarial / all": f"{nat.pairs} / {adv.pairs} / {every.pairs}",
        "replies, and those our reading and the benchmark's read alike": f"{replies} / {alike}",
        "first-slot share, all pairs, GPT-4 to Falcon": joined(first),
        "the first slot's advantage (its share less the second's), the same":
            joined(2 * share - 1 for share in first),
        "first-slot share of GPT-4 on the Natural set, and its p":
            f"{figure(gpt4.share, gpt4.ci)}, {gpt4.p:.3f}",
        "labels that are the longer output, Natural / Adversarial":
            joined(control).replace(",", " /"),
        "length gap beyond the labels, Natural, GPT-4 to Falcon": gaps[0],
        "length gap beyond the labels, Adversarial, GPT-4 to Falcon": gaps[1],
        "right in both orders, GPT-4, Natural / Adversarial": joined(both).replace(",", " /"),
        "the panel, GPT-4 alone and the other five, right on the Natural set": joined(panels),
    }  # fmt: skip


def test_what_the_lesson_says_in_words_is_what_the_record_shows(measured):
    nat, adv, every = (measured.scopes[name] for name in ("Natural", "Adversarial", "all"))
    # "the double-digit advantage of the first slot holds for five of the six judges";
    # "GPT-4's ... on the natural pairs not distinguishable from none"
    advantage = {j: 2 * m.first_slot.share - 1 for j, m in every.judges.items() if j != CONTROL}
    assert sorted(j for j, a in advantage.items() if a < 0.10) == ["GPT-4"]
    assert nat.judges["GPT-4"].first_slot.state == "not_found"
    # "on the natural pairs no judge but LLaMA 2 picks the longer output clearly more often";
    # "on the adversarial sets ... every judge still leans to the longer"
    assert [j for j, m in nat.judges.items() if m.length.state == "found"] == ["LLaMA2"]
    assert all(m.length.gap > 0 and m.length.state == "found"
               for j, m in adv.judges.items() if j != CONTROL)  # fmt: skip
    # "on the natural pairs the panel of six is about as good as GPT-4 alone"; "on the
    # adversarial sets ... the panel falls far below the best judge"; "six judges are worth
    # fewer than three independent votes"
    assert nat.panel.best.of == "GPT-4" and nat.panel.p > 0.05
    assert adv.panel.p < 0.001 and adv.panel.panel.share < adv.panel.best.share
    assert every.panel.effective < 3
