"""The audit of existing scores: every data row measured or named, and the files people write.

Expected numbers are derived by hand beside each check, or come from Python itself (bytes.index
for an offset, float() for a score), never from the audit.
"""

import codecs
import contextlib
import csv
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Evidence
from stages.s10_agreement.correlation import length_confound
from stages.s14_audit.__main__ import DEMO
from stages.s14_audit.audit import Outputs, audit, written_on_success
from stages.s14_audit.rows import Columns
from stages.s14_audit.summary import Summary, render, summary

THEIRS = [
    [1, "short", 3, "fail"], [2, "a much longer reply", 8, "pass"],
    [3, "mid size", "n/a", "pass"], [4, "longer still, and then some", 9, "fail"],
    [5, "tiny", 2, "maybe"], [6, "", 5, "pass"], [7, "medium reply", 7, "8"],
]  # fmt: skip
GRADED = Columns("judge_grade", answer="reply_text", human="person")


def write_csv(path, rows, header=("item", "reply_text", "judge_grade", "person"), **options):
    with path.open("w", newline="", encoding=options.pop("encoding", "utf-8")) as handle:
        writer = csv.writer(handle, **options)
        writer.writerow(header)
        writer.writerows(rows)


def reports(path):
    """Where the command writes for `path` in these checks (--out-dir): beside it, not in the
    course's own reports/ folder."""
    return path.parent / "reports"


def outputs(path):
    """The command's three files for `path`."""
    folder = reports(path)
    return Outputs(
        folder / f"audit-{path.stem}.review.jsonl",
        folder / f"audit-{path.stem}.skipped.jsonl",
        folder / f"audit-{path.stem}.json",
    )


def leftovers(path):
    return sorted(p.name for p in reports(path).glob(f"*audit-{path.stem}.*"))


def run(cli, path, *options):
    return cli("stages.s14_audit", str(path), "--out-dir", str(reports(path)),
               *options)  # fmt: skip


def skipped_rows(out):
    return [json.loads(line) for line in out.skipped.read_text().splitlines()]


@pytest.mark.failure_mode
def test_the_audit_counts_and_names_bad_rows_and_measures_the_rest(tmp_path):
    path = tmp_path / "theirs.csv"
    write_csv(path, THEIRS)
    found = audit(path, GRADED, 7, tmp_path)
    result = summary(found, GRADED).to_json()
    assert (result["data_rows"], result["rows"], result["skipped"]) == (7, 4, 3)
    assert result["problems"] == [
        "row 4: score 'n/a' in column 'judge_grade' is not a decimal number like 7, -1.5 or .5",
        "row 6: human label 'maybe' in column 'person' is neither a decimal number nor a "
        "pass/fail word",
        "row 7: no value in column 'reply_text'",
    ]
    assert [r["row"] for r in skipped_rows(found.out)] == [4, 6, 7]
    # kept: human fail/judge fail (1), pass/pass (2), fail/pass (4), pass/pass (7, human 8)
    # observed 3 of 4; human pass 2/4, judge pass 3/4: expected 0.5*0.75 + 0.5*0.25 = 0.5
    calibration = result["calibration"]
    assert calibration["observed"] == 0.75
    assert calibration["expected"] == 0.5
    assert calibration["kappa"] == pytest.approx(0.5)
    # 0.5 is below the bar of 0.6: the flaw (not trustworthy) is found, on 4 of 7 rows
    assert (calibration["state"], calibration["verdict"]) == ("found", "NOT trustworthy")
    assert (calibration["usable"], calibration["total"], calibration["unscored"]) == (4, 7, 3)
    assert [json.loads(line)["row"] for line in found.out.review.read_text().splitlines()] == [5]


def test_the_audit_measures_are_the_stage_measures_on_the_rows_it_kept(tmp_path):
    path = tmp_path / "theirs.csv"
    write_csv(path, THEIRS)
    result = summary(audit(path, GRADED, 7, tmp_path), GRADED).to_json()
    # rows 2, 3, 5 and 8 kept: len("short") 5, "a much longer reply" 19, "longer still, and
    # then some" 27, "medium reply" 12; their scores 3, 8, 9, 7
    kept = length_confound([5.0, 19.0, 27.0, 12.0], [3.0, 8.0, 9.0, 7.0], Evidence(4, 7))
    assert result["length_confound"] == kept.to_json()
    assert result["length_confound"]["spearman"] == pytest.approx(1.0)  # both in one order


def test_the_audit_reads_jsonl_and_a_length_column(tmp_path):
    path = tmp_path / "scores.jsonl"
    rows = [{"s": 1, "n": 10}, {"s": 2, "n": 20}, {"s": 3, "n": 40}, "oops", {"s": 4, "n": 80}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n{broken\n")
    columns = Columns("s", length="n")
    result = summary(audit(path, columns, 7, tmp_path), columns).to_json()
    assert (result["data_rows"], result["rows"], result["skipped"]) == (6, 4, 2)
    assert result["problems"][0] == 'row 4: not a JSON object: "oops"'
    assert result["problems"][1].startswith("row 6: not JSON (")
    assert result["length_confound"]["spearman"] == pytest.approx(1.0)
    assert "calibration" not in result


def test_a_summary_read_back_from_its_json_is_the_record_it_came_from(tmp_path):
    labelled, plain = tmp_path / "theirs.csv", tmp_path / "scores.jsonl"
    write_csv(labelled, THEIRS)
    plain.write_text("".join(json.dumps({"s": 5, "n": n}) + "\n" for n in (10, 20, 40, 80)))
    for path, columns in ((labelled, GRADED), (plain, Columns("s", length="n"))):
        record = summary(audit(path, columns, 7, tmp_path), columns)
        printed = json.loads(json.dumps(record.to_json()))  # as --json prints it
        assert Summary.from_json(printed) == record
    # one score for every length: no correlation is defined, and none is needed. The figures
    # are None in the record, null in the JSON and n/a in the text, never 0
    assert record.calibration is None and record.pass_rate is None
    assert (record.length_confound.spearman, record.length_confound.pearson) == (None, None)
    assert printed["length_confound"]["spearman"] is None and "calibration" not in printed
    shown = render("scores.jsonl", record, 7, "r", "s")
    assert "length confound: spearman n/a n/a, pearson n/a — the score never varies" in shown


@pytest.mark.failure_mode
def test_the_audit_command_names_columns_and_fails_when_nothing_was_usable(cli, tmp_path):
    path = tmp_path / "nothing-usable.csv"
    write_csv(path, [[1, "short", "x", "fail"]])
    outputs(path)
    result = run(cli, path, "--score-col", "judge_grade", "--answer-col", "reply_text", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["skipped"] == 1
    assert "error: no usable row: nothing was audited" in result.stderr
    missing = run(cli, path, "--score-col", "judge_grade")
    assert missing.returncode == 2 and "name the answer column" in missing.stderr


def test_the_demo_file_shows_what_the_lesson_says_it_shows(cli, tmp_path):
    # the demo's own arguments, with its files written here instead of reports/
    result = cli("stages.s14_audit", *DEMO, "--out-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr  # both measures evaluated
    # the fixture holds 22 data rows; rows 17 and 20 (the header is row 1) have the scores
    # "n/a" and "7,5", the two unreadable on purpose
    assert "22 rows, 20 measured, 2 skipped" in result.stdout
    assert "skipped row 17: score 'n/a'" in result.stdout
    assert "skipped row 20: score '7,5'" in result.stdout and "decimal comma?" in result.stdout
    # the judge likes long answers more than the people do
    assert "— longer answers score higher" in result.stdout
    assert "disagreements — NOT trustworthy" in result.stdout


def test_human_labels_on_some_rows_give_the_pass_rate_four_ways(cli, tmp_path):
    path = tmp_path / "some-labelled.csv"
    # ten labelled rows: 5 passed by both, 3 failed by both, 2 the judge passes and people
    # fail; ten unlabelled rows (a blank or a space), 7 of them over the gate of 7
    labelled = [(9, "pass")] * 5 + [(3, "fail")] * 3 + [(8, "fail")] * 2
    unlabelled = [(8, "")] * 4 + [(7, " ")] * 3 + [(2, "")] * 3
    rows = [[n, "x" * n, score, label] for n, (score, label) in enumerate(labelled + unlabelled, 1)]
    write_csv(path, rows)
    result = run(cli, path, "--score-col", "judge_grade", "--answer-col", "reply_text",
                 "--human-col", "person", "--json")  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    found = json.loads(result.stdout)
    rate = found["pass_rate"]
    assert (found["rows"], rate["labelled"], rate["unlabelled"]) == (20, 10, 10)  # blanks measured
    only, people, rg, ppi = rate["estimates"]
    assert only["value"] == 0.7  # the judge passes 14 of 20 at the gate of 7
    assert people["value"] == 0.5  # people pass 5 of the 10 they labelled
    # TPR 5/5, TNR 3/5: (0.7 + 0.6 - 1) / 0.6 = 0.5; but about one resample of ten labels
    # in 35 (0.7 ** 10) holds no case both fail, and then no correction: refused
    assert "TPR 1.00 + TNR 0.60 - 1 = 0.60" in rg["reason"] and rg["value"] is None
    # y 1x5 0x5, f 1x7 0x3: cov 5/10 - 0.5 * 0.7 = 0.15; the judge's variance over all 20
    # is 0.7 * 0.3 = 0.21; lambda 0.15 / (2 * 0.21) = 0.357; the judge's mean is 0.7 on both
    # sides, so the estimate is the people's 0.5
    assert ppi["value"] == pytest.approx(0.5) and ppi["note"] == "lambda 0.36"
    assert found["calibration"]["usable"] == 10  # kappa stands on the labelled rows alone


@pytest.mark.failure_mode
def test_labels_written_0_or_1_are_refused_and_nothing_is_written(cli, one_line_error, tmp_path):
    path = tmp_path / "flags.csv"
    write_csv(path, [[n, "x" * n, 8 if n % 2 else 3, n % 2 if n < 9 else ""] for n in range(1, 13)])
    options = ("--score-col", "judge_grade", "--answer-col", "reply_text", "--human-col", "person")
    # read at the gate of 7, a 1 is a fail like a 0: every label would disagree with a pass
    one_line_error(run(cli, path, *options), "so every one would be a fail; if 1 means a pass")
    assert leftovers(path) == []


def test_labels_of_one_class_make_the_corrected_rate_not_evaluated(cli, tmp_path):
    path = tmp_path / "all-pass.csv"
    rows = [[n, "x" * n, 8 if n % 3 else 4, "pass" if n < 10 else ""] for n in range(1, 30)]
    write_csv(path, rows)
    result = run(cli, path, "--score-col", "judge_grade", "--answer-col", "reply_text",
                 "--human-col", "person")  # fmt: skip
    assert result.returncode == 1
    assert "every one of the 9 human labels is a pass" in result.stdout
    assert "corrected pass rate: NOT EVALUATED — neither correction could be made" in result.stdout


# ---- encoding ----------------------------------------------------------------------------


@pytest.mark.failure_mode
def test_a_bom_is_not_part_of_the_first_column_or_the_first_record(cli, tmp_path):
    csv_path, jsonl_path = tmp_path / "bom-excel.csv", tmp_path / "bom-lines.jsonl"
    write_csv(csv_path, [[3, "abc"], [8, "abcdefgh"]], header=("score", "answer"),
              encoding="utf-8-sig")  # fmt: skip
    assert csv_path.read_bytes()[:3] == codecs.BOM_UTF8  # what Excel's "CSV UTF-8" starts with
    jsonl_path.write_text('{"score": 3, "answer": "abc"}\n', encoding="utf-8-sig")
    for path in (csv_path, jsonl_path):
        outputs(path)
        result = run(cli, path, "--answer-col", "answer", "--json")
        assert result.returncode == 1, result.stderr  # read, but too few rows to conclude
        assert json.loads(result.stdout)["skipped"] == 0, result.stdout
    plain = run(cli, csv_path, "--answer-col", "answer", "--encoding", "utf-8")
    assert plain.returncode == 2 and "'\\ufeffscore'" in plain.stderr
    assert "--encoding utf-8-sig" in plain.stderr


LATIN1 = ("score,answer\n" + "7,abc\n" * 2000 + "8,café\n").encode("latin-1")


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("name", "data", "bad", "fragments"),
    [
        # a Latin-1 "é" after more than one 8 KiB buffer: header line 1, then 2,000 lines
        ("latin1", LATIN1, b"\xe9", ["line 2002", "--encoding latin-1"]),
        # the same after a BOM: the offset counts the BOM's three bytes too
        ("bom-then-latin1", codecs.BOM_UTF8 + LATIN1, b"\xe9", ["line 2002", "latin-1"]),
        ("png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10", b"\x89", ["binary"]),
        ("utf16", "score,answer\n7,abc\n".encode("utf-16"), b"\xff", ["--encoding utf-16"]),
    ],
)  # fmt: skip
def test_a_file_that_does_not_decode_is_one_line_with_the_offset_of_the_bad_byte(
    cli, one_line_error, tmp_path, name, data, bad, fragments
):
    path = tmp_path / f"undecodable-{name}.csv"
    path.write_bytes(data)
    outputs(path)
    result = run(cli, path, "--answer-col", "answer")
    offset = data.index(bad)  # counted by Python in the bytes written, from the file's start
    one_line_error(result, str(path), f"byte 0x{bad.hex()} at offset {offset} ", *fragments)
    assert leftovers(path) == []


def test_a_latin1_file_is_read_when_its_encoding_is_given(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("score,answer\n7,abc\n8,café\n".encode("latin-1"))
    found = audit(path, Columns("score", answer="answer"), 7, tmp_path, encoding="latin-1")
    assert list(found.lengths) == [3.0, 4.0]  # "café" is four characters, not five bytes


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("name", "text", "fragments"),
    [
        ("nul", "score,answer\n7,ok\n8,a\0b\n", ["line 3", "NUL"]),
        ("after-quote", 'score,answer\n7,ok\n8,"a"b\n', ["line 3", "not readable as CSV"]),
        ("encoding", "score,answer\n7,ok\n", ["--encoding 'no-such-codec'"]),
        ("delimiter", "score,answer\n7,ok\n", ["--delimiter ';;'"]),
        ("gate", "score,answer\n7,ok\n", ["--gate nan", "finite"]),
    ],
)
def test_binary_junk_and_bad_options_are_one_line(cli, one_line_error, tmp_path, name, text,
                                                  fragments):  # fmt: skip
    path = tmp_path / f"junk-{name}.csv"
    path.write_text(text, newline="")
    outputs(path)
    options = {"encoding": ["--encoding", "no-such-codec"], "delimiter": ["--delimiter", ";;"],
               "gate": ["--gate", "nan"]}.get(name, [])  # fmt: skip
    one_line_error(run(cli, path, "--answer-col", "answer", *options), *fragments)
    assert leftovers(path) == []


# ---- size, quotes, delimiters, columns ---------------------------------------------------


@pytest.mark.failure_mode
def test_a_field_longer_than_the_csv_modules_default_limit_is_read(tmp_path):
    path = tmp_path / "huge.csv"
    long = "x" * 300_000  # the csv module's default limit is 131,072 characters
    write_csv(path, [[7, long], [3, "short"]], header=("score", "answer"))
    before = csv.field_size_limit()
    found = audit(path, Columns("score", answer="answer"), 7, tmp_path)
    assert list(found.lengths) == [300_000.0, 5.0]
    assert csv.field_size_limit() == before  # the module-wide limit is left as it was


@pytest.mark.failure_mode
def test_a_quote_that_never_closes_is_named_by_the_line_where_its_record_starts(
    cli, one_line_error, tmp_path
):
    path = tmp_path / "unclosed.csv"
    # line 3 opens a quote; by default the csv module reads lines 3 to 5 as one value
    path.write_text('score,answer\n7,"fine"\n8,"never closed\n9,swallowed\n3,this too\n')
    outputs(path)
    one_line_error(run(cli, path, "--answer-col", "answer"), str(path), "line 3", "never closes")
    assert leftovers(path) == []


@pytest.mark.failure_mode
def test_a_semicolon_file_from_a_european_spreadsheet_just_works(cli, tmp_path):
    path = tmp_path / "european.csv"
    rows = [[1, "hello, world", 7], [2, "fine", 8], [3, "a, b, c", 6], [4, "x", 5],
            [5, "yes; no", "7,5"]]  # fmt: skip
    write_csv(path, rows, header=("id", "answer", "score"), delimiter=";")
    out = outputs(path)
    result = run(cli, path, "--answer-col", "answer")
    assert "5 rows, 4 measured, 1 skipped" in result.stdout, result.stdout + result.stderr
    assert skipped_rows(out)[0]["row"] == 6  # the header is row 1
    assert "a decimal comma?" in skipped_rows(out)[0]["problem"]


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_the_delimiter_is_sniffed_or_given(tmp_path, delimiter):
    path = tmp_path / "split.csv"
    write_csv(path, [[7, "a b"], [3, "c"]], header=("score", "answer"), delimiter=delimiter)
    for named in (None, delimiter):
        found = audit(path, Columns("score", answer="answer"), 7, tmp_path, delimiter=named)
        assert (found.rows, list(found.scores)) == (2, [7.0, 3.0])


@pytest.mark.failure_mode
def test_a_missing_column_is_one_line_listing_the_columns_there_are(cli, one_line_error, tmp_path):
    path = tmp_path / "columns.csv"
    write_csv(path, THEIRS)
    outputs(path)
    one_line_error(
        run(cli, path, "--score-col", "grade", "--answer-col", "reply_text"),
        "no column 'grade'", "'item', 'reply_text', 'judge_grade', 'person'",
    )  # fmt: skip
    lines = tmp_path / "keys.jsonl"
    lines.write_text('{"s": 1, "a": "x"}\n{"s": 2, "a": "y"}\n')
    one_line_error(run(cli, lines, "--answer-col", "a"), "no record has the key 'score'",
                   "'a', 's'")  # fmt: skip
    assert leftovers(path) == [] and leftovers(lines) == []


def test_a_row_is_numbered_as_in_a_spreadsheet_and_named_by_its_line_too(tmp_path):
    path = tmp_path / "lines.csv"
    write_csv(path, [[7, "two\nlines"], ["x", "one"]], header=("score", "answer"))
    found = audit(path, Columns("score", answer="answer"), 7, tmp_path)
    # row 2 takes lines 2 and 3, so row 3 starts on line 4
    assert found.problems[0].startswith("row 3 (line 4): score 'x'")


@pytest.mark.failure_mode
def test_a_jsonl_record_without_a_key_others_have_is_a_named_row(tmp_path):
    path = tmp_path / "some.jsonl"
    path.write_text('{"s": 1, "a": "x"}\n\n{"a": "yy"}\n{"s": 3}\n')
    found = audit(path, Columns("s", answer="a"), 7, tmp_path)
    # the blank line 2 is not a row: rows are lines 1, 3 and 4
    assert (found.data_rows, found.rows, found.skipped) == (3, 1, 2)
    assert found.problems == ["row 3: no key 's'", "row 4: no key 'a'"]


# ---- scores are finite numbers -----------------------------------------------------------


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("cell", "problem"),
    [
        ("nan", "is not a decimal number"), ("inf", "is not a decimal number"),
        ("-Infinity", "is not a decimal number"), ("1e309", "is not a decimal number"),
        ("1e3", "is not a decimal number"), ("1_0", "is not a decimal number"),
        ("\u0667", "is not a decimal number"),  # ARABIC-INDIC DIGIT SEVEN: float() takes it
        ("1" * 400, "too large to be a finite number"),  # 1.1e399: beyond any float
        ("7,5", "a decimal comma?"), ("", "no value in column 'score'"),
    ],
)  # fmt: skip
def test_a_csv_score_is_a_finite_decimal_or_a_named_row(tmp_path, cell, problem):
    path = tmp_path / "scores.csv"
    write_csv(path, [[7, "ok"], [cell, "bad"], [3, "fine"]], header=("score", "answer"),
              delimiter=";")  # fmt: skip
    found = audit(path, Columns("score", answer="answer"), 7, tmp_path, delimiter=";")
    assert (found.rows, list(found.scores), found.skipped) == (2, [7.0, 3.0], 1)
    assert found.problems[0].startswith("row 3: ") and problem in found.problems[0]


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("NaN", "NaN in key 's' is not a finite number"),
        ("Infinity", "Infinity in key 's' is not a finite number"),
        ("-Infinity", "-Infinity in key 's' is not a finite number"),
        ("1e309", "Infinity in key 's' is not a finite number"),  # parsed as float('inf')
        ("1" + "0" * 400, "is not a finite number"),  # an int beyond any float
        ("true", "true in key 's' is a JSON boolean"),
        ('"7"', "\"7\" in key 's' is a JSON string"),
        ("null", "score in key 's' is null"),
        ("[7]", "[7] in key 's' is not a number"),
    ],
)
def test_a_json_score_is_a_finite_number_not_a_bool_or_a_string(tmp_path, raw, problem):
    path = tmp_path / "scores.jsonl"
    path.write_text(f'{{"s": 7, "a": "ok"}}\n{{"s": {raw}, "a": "bad"}}\n{{"s": 3, "a": "b"}}\n')
    found = audit(path, Columns("s", answer="a"), 7, tmp_path)
    assert (found.rows, list(found.scores), found.skipped) == (2, [7.0, 3.0], 1)
    assert found.problems[0].startswith("row 2: score ") and problem in found.problems[0]


@pytest.mark.failure_mode
def test_a_length_and_a_label_follow_the_same_rules(tmp_path):
    path = tmp_path / "labels.jsonl"
    records = [{"s": 7, "n": 10, "h": True}, {"s": 7, "n": -1, "h": "pass"},
               {"s": 7, "n": float("inf"), "h": 8}, {"s": 7, "n": 3, "h": "8"},
               {"s": 2, "n": 30, "h": "FAIL"}, {"s": 7, "n": 5, "h": float("nan")}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    found = audit(path, Columns("s", length="n", human="h"), 7, tmp_path)
    assert list(found.lengths) == [10.0, 30.0]  # rows 1 and 5; the others are named
    assert [p.split(":")[0] for p in found.problems] == ["row 2", "row 3", "row 4", "row 6"]
    assert "length -1 in 'n' is negative" in found.problems[0]
    assert "length Infinity in key 'n' is not a finite number" in found.problems[1]
    assert "human label \"8\" in key 'h' is neither a number" in found.problems[2]


# ---- every row measured or named; no file on error; states and exit codes ---------------


@pytest.mark.failure_mode
def test_every_skipped_row_is_in_the_skipped_file_and_the_report_lists_ten(cli, tmp_path):
    path = tmp_path / "many-bad.csv"
    # 25 rows: every second one from the first has no score, so rows 2, 4, ... 26 (13) fail
    rows = [[n, "x" * n, "" if n % 2 else n % 10, "pass"] for n in range(1, 26)]
    write_csv(path, rows)
    out = outputs(path)
    result = run(cli, path, "--score-col", "judge_grade", "--answer-col", "reply_text")
    assert "25 rows, 12 measured, 13 skipped" in result.stdout
    assert result.stdout.count("  skipped row ") == 10 and "  ... and 3 more" in result.stdout
    assert [r["row"] for r in skipped_rows(out)] == list(range(2, 27, 2))
    assert f"every skipped row, with its problem: {out.skipped}" in result.stdout
    assert f"review queue (the disagreements): {out.review}" in result.stdout


@pytest.mark.failure_mode
def test_an_error_or_an_interrupt_leaves_no_output_file(tmp_path):
    out = Outputs(tmp_path / "r.jsonl", tmp_path / "s.jsonl", tmp_path / "r.json")
    with pytest.raises(KeyboardInterrupt), written_on_success(out) as (review, _):
        review.write("half a line")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
    path = tmp_path / "late.csv"  # 3,000 rows to skip (written as read), then a Latin-1 byte
    path.write_bytes(("a,b,c\n" + "7,abc,maybe\n" * 3000 + "8,café,fail\n").encode("latin-1"))
    (tmp_path / "audit-late.review.jsonl").write_text("an earlier, complete run\n")
    with pytest.raises(CourseInputError):
        audit(path, Columns("a", answer="b", human="c"), 7, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit-late.review.jsonl", "late.csv"]
    assert (tmp_path / "audit-late.review.jsonl").read_text() == "an earlier, complete run\n"


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("rows", "code", "line"),
    [
        # 2 usable of 5 is below half: no verdict
        ([[1, "a", 1, "fail"], [2, "bb", 2, "fail"], [3, "", 3, "fail"], [4, "c", "x", "no"],
          [5, "d", 5, "maybe"]], 1, "length confound: NOT EVALUATED — too little usable data"),
        # everyone passes and the judge passes all: kappa is 0/0
        ([[n, "x" * n, 8, "pass"] for n in range(1, 6)], 1,
         "agreement with people at gate 7: NOT EVALUATED — kappa is undefined"),
        # scores rise with length (rho = 1 over 12 rows) and people agree with the judge
        ([[n, "x" * n, n + 3, n + 3] for n in range(1, 13)], 0,
         "length confound: spearman 1.00"),
    ],
)  # fmt: skip
def test_a_measure_without_enough_data_is_not_evaluated_and_the_audit_exits_1(
    cli, tmp_path, rows, code, line
):
    path = tmp_path / "states.csv"
    write_csv(path, rows)
    outputs(path)
    result = run(cli, path, "--score-col", "judge_grade", "--answer-col", "reply_text",
                 "--human-col", "person")  # fmt: skip
    assert result.returncode == code, result.stdout + result.stderr
    assert line in result.stdout
    assert "error:" not in result.stderr  # some rows were usable


# ---- properties: whatever the rows, each is measured or named ---------------------------

GOOD_SCORES = ["7", "-1.5", ".5", "10", "0", " 3 ", "+2.25", "7."]
BAD_SCORES = ["nan", "NaN", "inf", "-inf", "1e309", "1e3", "7,5", "", "n/a", "1_0", "1" * 400]
GOOD_LABELS = ["pass", "FAIL", " yes ", "no", "8", "6.5", "true", "", "  "]  # blank: unlabelled
BAD_LABELS = ["maybe", "7,5", "nan", "ok"]
PASSING = {"pass": True, "fail": False, "yes": True, "no": False, "true": True}
ANSWERS = st.text(alphabet='ab ,;|\t"\n', min_size=1, max_size=8)


def rows_with_defects(good, bad):
    """Rows of four parts (score, answer, label, a last flag): all good, one part bad, or
    anything at all. `good` and `bad` hold each part's good and bad values (a list, or a
    strategy for the answer)."""
    parts = [st.sampled_from(good[0]), good[1], st.sampled_from(good[2]), st.sampled_from(good[3])]
    spoilt = [st.sampled_from(bad[0]), bad[1], st.sampled_from(bad[2]), st.sampled_from(bad[3])]
    one_bad = [st.tuples(*parts[:i], spoilt[i], *parts[i + 1 :]) for i in range(4)]
    anything = st.tuples(*(st.one_of(ok, no) for ok, no in zip(parts, spoilt, strict=True)))
    return st.one_of(st.tuples(*parts), *one_bad, anything)


CSV_ROWS = st.lists(
    rows_with_defects(
        good=(GOOD_SCORES, ANSWERS, GOOD_LABELS, [False]),
        bad=(BAD_SCORES, st.just(""), BAD_LABELS, [True]),  # True: one field too many
    ),
    max_size=30,
)


def person_passes(label, gate=7.0):
    """The person's verdict; None for a blank label (an unlabelled row)."""
    word = label.strip().lower()
    if not word:
        return None
    return PASSING[word] if word in PASSING else float(label) >= gate


@given(
    rows=CSV_ROWS,
    delimiter=st.sampled_from(",;\t|"),
    encoding=st.sampled_from(["utf-8", "utf-8-sig"]),
    ending=st.sampled_from(["\n", "\r\n"]),
)
def test_every_csv_row_is_measured_or_named(rows, delimiter, encoding, ending):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.csv"
        with path.open("w", newline="", encoding=encoding) as handle:
            writer = csv.writer(handle, delimiter=delimiter, lineterminator=ending)
            writer.writerow(["score", "answer", "label"])
            for score, answer, label, extra in rows:  # extra: one field too many
                writer.writerow([score, answer, label] + ["spare"] * extra)
        columns = Columns("score", answer="answer", human="label")
        found = audit(path, columns, 7, Path(folder), delimiter=delimiter)
        named = skipped_rows(found.out)
        good, bad, line = [], [], 2  # the header is row 1, on line 1
        for number, (score, answer, label, extra) in enumerate(rows, start=2):
            if score in GOOD_SCORES and answer and label in GOOD_LABELS and not extra:
                good.append((number, (score, answer, label)))
            else:
                bad.append({"row": number, "line": line})
            line += 1 + answer.count("\n")  # a quoted answer may span lines
        assert found.data_rows == len(rows) == found.rows + found.skipped
        assert [{"row": r["row"], "line": r["line"]} for r in named] == bad
        assert list(found.scores) == [float(score) for _, (score, _, _) in good]
        assert list(found.lengths) == [len(answer) for _, (_, answer, _) in good]
        queue = [json.loads(line)["row"] for line in found.out.review.read_text().splitlines()]
        people = [(n, person_passes(label), float(score) >= 7) for n, (score, _, label) in good]
        assert queue == [n for n, person, judge in people if person not in (None, judge)]
        assert found.unlabelled == sum(person is None for _, person, _ in people)
        assert found.unlabelled_passed == sum(
            judge for _, person, judge in people if person is None
        )


JSON_GOOD_SCORES = ["7", "-1.5", "0.5", "1e2", "0"]
JSON_BAD_SCORES = ["NaN", "Infinity", "-Infinity", "1e309", "true", '"7"', "null", "[7]",
                   "1" + "0" * 400]  # fmt: skip
JSON_GOOD_LABELS = ["true", "false", '"pass"', '"FAIL"', "8", "6.5", "null", '""']  # unlabelled
JSON_BAD_LABELS = ['"maybe"', '"8"', "[1]", "NaN"]
NOT_RECORDS = ["{broken", "[1, 2]", '"text"', "7"]
JSON_ROWS = st.lists(
    st.one_of(
        rows_with_defects(
            good=(JSON_GOOD_SCORES, ANSWERS.map(json.dumps), JSON_GOOD_LABELS, [""]),
            bad=(JSON_BAD_SCORES, st.sampled_from(['""', "null", "5"]), JSON_BAD_LABELS,
                 ["s", "a", "h"]),  # the last part: the key left out of the record
        ),
        st.sampled_from(NOT_RECORDS),
        st.sampled_from(["", "   "]),  # blank lines: not rows
    ),
    max_size=30,
)  # fmt: skip


@given(lines=JSON_ROWS)
def test_every_jsonl_row_is_measured_or_named(lines):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.jsonl"
        text, rows, good = [], [], []
        for number, line in enumerate(lines, start=1):
            if isinstance(line, str):
                text.append(line)
                rows += [number] if line.strip() else []
                continue
            score, answer, label, left_out = line
            fields = {"s": score, "a": answer, "h": label}
            pairs = [f'"{key}": {value}' for key, value in fields.items() if key != left_out]
            text.append("{" + ", ".join(pairs) + "}")
            rows.append(number)
            if (score in JSON_GOOD_SCORES and answer not in ('""', "null", "5")
                    and label in JSON_GOOD_LABELS and not left_out):  # fmt: skip
                good.append((number, json.loads(score), json.loads(answer)))
        path.write_text("\n".join(text) + "\n")
        columns = Columns("s", answer="a", human="h")
        records = [line for line in lines if isinstance(line, tuple)]
        if any(all(key == left for *_, left in records) for key in "sah") and records:
            with pytest.raises(CourseInputError, match="no record has the key"):
                audit(path, columns, 7, Path(folder))
            return
        found = audit(path, columns, 7, Path(folder))
        named = skipped_rows(found.out)
        assert found.data_rows == len(rows) == found.rows + found.skipped
        assert len(named) == found.skipped
        assert [r["row"] for r in named] == [n for n in rows if n not in {g[0] for g in good}]
        assert list(found.scores) == [float(score) for _, score, _ in good]
        assert list(found.lengths) == [len(answer) for *_, answer in good]


@pytest.mark.failure_mode
def test_a_csv_read_from_a_pipe_is_audited_as_the_same_file_is(cli, tmp_path):
    # a pipe cannot be read twice: the start the delimiter is sniffed from is read once
    path = tmp_path / "theirs.csv"
    write_csv(path, [[n, "x" * n, n % 10, "pass" if n % 3 else "fail"] for n in range(1, 3001)])
    from_file = json.loads(run(cli, path, "--json", *GRADED_OPTIONS).stdout)
    reader, writer = os.pipe()
    feeding = threading.Thread(target=feed, args=(writer, path.read_bytes()), daemon=True)
    feeding.start()
    try:
        stream = f"/dev/fd/{reader}"  # what `<(...)` gives, and /dev/stdin is
        piped = cli("stages.s14_audit", stream, "--out-dir", str(reports(path)), "--json",
                    *GRADED_OPTIONS)  # fmt: skip
    finally:
        os.close(reader)
    feeding.join(timeout=60)
    assert piped.returncode == 0, piped.stderr
    found = json.loads(piped.stdout)
    for key in ("review_queue", "skipped_file", "file"):
        found.pop(key, None), from_file.pop(key, None)
    assert found == from_file and found["data_rows"] == 3000


GRADED_OPTIONS = (
    "--score-col",
    "judge_grade",
    "--answer-col",
    "reply_text",
    "--human-col",
    "person",
)


def feed(writer: int, data: bytes) -> None:
    with os.fdopen(writer, "wb") as stream, contextlib.suppress(BrokenPipeError):
        stream.write(data)  # a reader that stops early (a failing check) closes the pipe


@pytest.mark.failure_mode
def test_a_column_named_row_leaves_the_queue_s_row_number_alone(tmp_path):
    path = tmp_path / "exported.csv"  # row 2 of the file is the one a person must find
    write_csv(path, [["r-17", "some reply", 9, "fail"]], header=("row", "a", "s", "h"))
    found = audit(path, Columns("s", answer="a", human="h"), 7, reports(path))
    (queued,) = [json.loads(line) for line in found.out.review.read_text().splitlines()]
    assert queued["row"] == 2 and queued["record"]["row"] == "r-17"


@pytest.mark.failure_mode
def test_a_column_named_nothing_is_one_line(cli, one_line_error, tmp_path):
    path = tmp_path / "theirs.csv"
    write_csv(path, THEIRS)
    for option in ("--score-col", "--human-col"):
        given = [*GRADED_OPTIONS, option, ""]
        one_line_error(run(cli, path, *given), "no column '' in the header; the columns there are")


def audit_in_a_child(path: Path, *limits: int) -> subprocess.Popen[str]:
    """The audit of `path` as a command of its own, its files limited to `limits` bytes."""

    def limited() -> None:
        for limit in limits:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [sys.executable, "-m", "stages.s14_audit", str(path), "--out-dir",
               str(reports(path)), *GRADED_OPTIONS]  # fmt: skip
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=limited,
    )  # fmt: skip


ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.failure_mode
def test_a_disk_that_fills_during_an_audit_is_one_line_and_the_older_files_stay(tmp_path):
    path = tmp_path / "theirs.csv"  # 3,000 rows, a third of them disagreements: 60 KB of queue
    write_csv(path, [[n, "x" * 9, 9, "fail" if n % 3 else "pass"] for n in range(1, 3001)])
    older = outputs(path)
    older.review.parent.mkdir()
    older.review.write_text("an earlier, complete run\n")
    done = audit_in_a_child(path, 20_000)
    _, err = done.communicate(timeout=120)
    assert done.returncode == 2, err
    assert err == f"error: {reports(path)}: cannot write the audit's files (File too large); " \
        "older ones are as they were\n"  # fmt: skip
    assert leftovers(path) == ["audit-theirs.review.jsonl"]  # no temporary file left
    assert older.review.read_text() == "an earlier, complete run\n"


@pytest.mark.failure_mode
def test_sigterm_during_an_audit_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "long.csv"  # long enough to be stopped while it reads
    write_csv(path, [[n, "x" * 9, 9, "fail"] for n in range(1, 400_001)])
    done = audit_in_a_child(path)
    deadline = time.monotonic() + 60  # a safety net: the files appear within a second or two
    while not list(reports(path).glob(".*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert list(reports(path).glob(".*.tmp")), "the audit never started writing"
    done.send_signal(signal.SIGTERM)
    _, err = done.communicate(timeout=60)
    assert (done.returncode, err) == (143, "error: terminated\n")
    assert leftovers(path) == []


@pytest.mark.failure_mode
def test_a_carriage_return_inside_a_jsonl_record_leaves_it_one_row(tmp_path):
    # JSON takes \r as white space; read with universal newlines, the first record would be
    # split into two lines that are not JSON, and two rows would be skipped instead of one kept
    path = tmp_path / "theirs.jsonl"
    path.write_bytes(b'{"s": 7,\r "a": "abc"}\n{"s": 3, "a": "de"}\n')
    found = audit(path, Columns("s", answer="a"), 7, reports(path))
    assert (found.data_rows, found.rows, found.skipped) == (2, 2, 0)


def test_the_lesson_says_how_much_of_a_file_the_delimiter_is_sniffed_from():
    from stages.s14_audit import rows

    lesson = " ".join((Path(rows.__file__).parent / "README.md").read_text().split())
    assert (
        f"from the first {rows.SNIFF_LINES:,} lines (at most {rows.SNIFF_CHARS // 1024} KiB)"
    ) in lesson


def test_the_delimiter_is_sniffed_from_the_first_lines_only(tmp_path, monkeypatch):
    # what keeps a file of short lines fast: the sniffer counts 127 characters in each line it
    # is given, so it is given the first 1,000, however many fit in 64 KiB
    import csv

    from stages.s14_audit import rows

    given, real = [], csv.Sniffer.sniff

    def sniff(self, sample, delimiters=None):
        given.append(sample)
        return real(self, sample, delimiters)

    monkeypatch.setattr(csv.Sniffer, "sniff", sniff)
    path = tmp_path / "short.csv"
    path.write_text("score,n\n" + "7,3\n" * 20_000)  # 80 KB: 16,000 lines would fit in 64 KiB
    found = audit(path, Columns("score", length="n"), 7, reports(path))
    assert (found.data_rows, found.skipped) == (20_000, 0)
    assert [sample.count("\n") for sample in given] == [rows.SNIFF_LINES] == [1000]
