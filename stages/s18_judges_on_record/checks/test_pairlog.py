"""A user's pairwise log: every row read to the arrays a hand count gives, or named and counted.

Expected arrays are derived by hand in the comment beside each file; an offset comes from
bytes.index, never from the reader.
"""

import json

import numpy as np
import pytest

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Finding
from stages.s18_judges_on_record.measures import NOT_ASKED, ONE, TIE, TWO, UNREAD, consistency
from stages.s18_judges_on_record.pairlog import read_log

# Five pairs, three people (the last column's name is a person's):
#   a: 5 vs 11 chars -> TWO longer; second -> TWO; swapped first (= output_2) -> TWO;
#      people 2, 2, - -> (0, 2, 0): TWO
#   b: 4 vs 4 -> TIE; first -> ONE; swapped first -> TWO; people 1, 2 -> (1, 1, 0): a split, TIE
#   c: 2 vs 1 -> ONE; tie -> TIE; swapped second (= output_1) -> ONE;
#      people tie, tie, 1 -> (1, 0, 2): most said tie, TIE
#   d: 3 vs 4 -> TWO; "FIRST " -> ONE; swapped " " -> UNREAD; people 1 -> (1, 0, 0): ONE
#   e: 1 vs 1 -> TIE; "" -> UNREAD; swapped tie -> TIE; nobody -> (0, 0, 0): NOT_ASKED
FIVE = """id,output_1,output_2,verdict,verdict_swapped,label,label_2,label_ana
a,short,much longer,second,first,2,2,
b,same,size,first,first,1,2,
c,xx,x,tie,second,tie,tie,1
d,one,two!,FIRST , ,1,,
e,p,q,,tie,,,
"""


def write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def jsonl(tmp_path, records):
    return write(tmp_path, "log.jsonl", "".join(json.dumps(r) + "\n" for r in records))


def lengths_log(tmp_path, *rows, header="id,length_1,length_2,verdict,label"):
    return write(tmp_path, "log.csv", "\n".join([header, *rows]) + "\n")


def test_a_csv_log_reads_to_the_arrays_a_hand_count_gives(tmp_path):
    log = read_log(write(tmp_path, "log.csv", FIVE))
    assert log.judged.shown.tolist() == [TWO, ONE, TIE, ONE, UNREAD]
    assert log.judged.swapped.tolist() == [TWO, TWO, ONE, UNREAD, TIE]
    assert log.judged.label.tolist() == [TWO, TIE, TIE, ONE, NOT_ASKED]
    assert log.judged.longer.tolist() == [TWO, TIE, ONE, TWO, TIE]
    assert log.people.tolist() == [[0, 2, 0], [1, 1, 0], [1, 0, 2], [1, 0, 0], [0, 0, 0]]
    assert (log.rows, log.used, log.skipped, log.problems) == (5, 5, 0, [])
    assert (int((log.judged.shown == UNREAD).sum()), int((log.judged.swapped == UNREAD).sum())) == (
        1,
        1,
    )  # e's verdict, d's swapped one


def test_a_jsonl_log_reads_to_the_arrays_a_hand_count_gives(tmp_path):
    path = jsonl(tmp_path, [
        # 10 vs 3.5 -> ONE; second -> TWO; swapped second (= output_1) -> ONE; 1, "1" -> ONE
        {"id": "a", "length_1": 10, "length_2": 3.5, "verdict": "second",
         "verdict_swapped": "second", "label": 1, "label_2": "1"},
        # 0 vs 0 -> TIE; null -> UNREAD; no verdict_swapped key -> NOT_ASKED; tie, null -> TIE
        {"id": 7, "length_1": 0, "length_2": 0, "verdict": None, "label": "tie", "label_2": None},
        # 2 vs 9 -> TWO; " Tie" -> TIE; swapped first -> TWO; 2, tie -> (0, 1, 1): a split, TIE
        {"id": "c", "length_1": 2, "length_2": 9, "verdict": " Tie", "verdict_swapped": "first",
         "label": 2, "label_2": "tie"},
    ])  # fmt: skip
    log = read_log(path)
    assert log.judged.shown.tolist() == [TWO, UNREAD, TIE]
    assert log.judged.swapped.tolist() == [ONE, NOT_ASKED, TWO]
    assert log.judged.label.tolist() == [ONE, TIE, TIE]
    assert log.judged.longer.tolist() == [ONE, TIE, TWO]
    assert log.people.tolist() == [[2, 0, 0], [0, 0, 1], [0, 1, 1]]
    assert (log.rows, log.used, log.skipped) == (3, 3, 0)


def test_lengths_from_texts_count_characters_and_match_the_length_columns(tmp_path):
    # "héé" is 3 characters (5 bytes in UTF-8) against "abcd"'s 4: output_2 is the longer
    texts = read_log(
        write(tmp_path, "texts.csv", "id,output_1,output_2,verdict\nx,héé,abcd,first\n")
    )
    lengths = read_log(lengths_log(tmp_path, "x,3,4,first", header="id,length_1,length_2,verdict"))
    assert texts.judged.longer.tolist() == lengths.judged.longer.tolist() == [TWO]


def test_with_both_forms_the_texts_are_read_and_the_lengths_ignored(tmp_path):
    header = "id,output_1,output_2,length_1,length_2,verdict"
    log = read_log(lengths_log(tmp_path, "x,ab,abc,100,1,first", header=header))
    assert log.judged.longer.tolist() == [TWO]  # 2 vs 3 characters, whatever 100 vs 1 says


def test_every_bad_row_is_named_and_counted_and_none_is_dropped(tmp_path):
    path = lengths_log(tmp_path,
        "a,1,2,first,1",  # row 2: used
        "a,3,4,second,2",  # row 3: a's id again
        "b,1,2,maybe,1",  # row 4: not a verdict
        "c,1,2,first,0", "d,1,2,first,3", "e,1,2,first,yes", "f,1,2,first,1.5",  # rows 5-8
        "g,-1,2,first,1",  # row 9: a negative length
        "h,x,2,first,1",  # row 10: not a number
    )  # fmt: skip
    log = read_log(path)
    assert (log.rows, log.used, log.skipped) == (9, 1, 8)  # 9 data rows: 1 used + 8 named
    assert log.problems[:2] == [
        "row 3: pair id 'a' again: first at row 2",
        "row 4: verdict 'maybe' is not one of first, second, tie",
    ]
    assert [p.split(":")[0] for p in log.problems] == [f"row {n}" for n in range(3, 11)]
    for problem, value in zip(log.problems[2:6], ["'0'", "'3'", "'yes'", "'1.5'"], strict=True):
        assert f"label {value} is not one of 1, 2, tie" in problem
    assert "negative" in log.problems[6]
    assert "'x'" in log.problems[7] and "length_1" in log.problems[7]


def test_a_skipped_row_leaves_no_trace_so_its_id_is_free_for_a_later_row(tmp_path):
    log = read_log(lengths_log(tmp_path, "a,1,2,maybe,1", "a,1,2,first,1"))
    assert (log.used, log.skipped) == (1, 1)  # row 2 named, row 3 used
    assert log.judged.shown.tolist() == [ONE] and log.people.tolist() == [[1, 0, 0]]


def test_json_labels_and_verdicts_outside_their_sets_are_named(tmp_path):
    def row(n, **cells):
        return {"id": f"p{n}", "length_1": 1, "length_2": 2, "verdict": "first", **cells}

    bad = [row(1, label=0), row(2, label=3), row(3, label="yes"), row(4, label=1.5),
           row(5, label=True), row(6, verdict=1), row(7, verdict_swapped="both")]  # fmt: skip
    log = read_log(jsonl(tmp_path, [*bad, row(8, label="2")]))
    assert (log.rows, log.used, log.skipped) == (8, 1, 7)
    shown = ["label 0 ", "label 3 ", "label 'yes' ", "label 1.5 ", "label true ", "verdict 1 ",
             "verdict_swapped 'both' "]  # fmt: skip
    for n, (problem, value) in enumerate(zip(log.problems, shown, strict=True), start=1):
        assert problem.startswith(f"row {n}: {value}is not one of")  # JSONL: a row is a line


def test_majority_of_several_people(tmp_path):
    path = lengths_log(tmp_path,
        "a,1,2,first,1,1,tie",  # (2, 0, 1): 2 for output_1 beat 1 tie -> ONE
        "b,1,2,first,2,2,1",  # (1, 2, 0) -> TWO
        "c,1,2,first,1,2,tie",  # (1, 1, 1): nobody has more -> TIE
        "d,1,2,first,1,,2",  # (1, 1, 0): an even split -> TIE
        "e,1,2,first,,,",  # (0, 0, 0): nobody labelled -> NOT_ASKED
        header="id,length_1,length_2,verdict,label,label_2,label_3",
    )  # fmt: skip
    log = read_log(path)
    assert log.judged.label.tolist() == [ONE, TWO, TIE, TIE, NOT_ASKED]
    assert log.people.sum(axis=1).tolist() == [3, 3, 3, 2, 0]


def test_a_blank_verdict_is_unread_counted_and_its_pair_still_used(tmp_path):
    path = lengths_log(tmp_path, "a,1,2,,1", "b,1,2,  ,2", "c,1,2,second,2")
    log = read_log(path)
    assert (log.used, log.skipped, int((log.judged.shown == UNREAD).sum())) == (3, 0, 2)
    assert log.judged.shown.tolist() == [UNREAD, UNREAD, TWO]


def test_a_log_without_verdict_swapped_is_asked_once_and_consistency_not_evaluated(tmp_path):
    log = read_log(lengths_log(tmp_path, "a,1,2,first,1", "b,2,1,second,2"))
    assert log.judged.swapped.tolist() == [NOT_ASKED, NOT_ASKED]
    assert int((log.judged.swapped == UNREAD).sum()) == 0
    assert consistency(log.judged).state == Finding.NOT_EVALUATED


def test_a_bom_at_the_start_of_a_csv_file_still_reads_the_header(tmp_path):
    log = read_log(write(tmp_path, "log.csv", FIVE, encoding="utf-8-sig"))
    assert (log.used, log.skipped) == (5, 0)  # the first column is 'id', not '\ufeffid'


def test_a_latin_1_byte_is_one_error_naming_its_offset(tmp_path):
    data = FIVE.replace("much longer", "caf\xe9 au lait").encode("latin-1")
    (path := tmp_path / "log.csv").write_bytes(data)
    offset = data.index(b"\xe9")  # where Python finds the byte, not where the reader says
    with pytest.raises(CourseInputError, match=f"byte 0xe9 at offset {offset} "):
        read_log(path)


def test_a_log_without_a_verdict_column_cannot_be_read(tmp_path):
    path = lengths_log(tmp_path, "a,1,2,1", header="id,length_1,length_2,label")
    with pytest.raises(CourseInputError, match="no column 'verdict' in the header"):
        read_log(path)


def test_a_log_without_either_form_of_the_outputs_cannot_be_read(tmp_path):
    path = lengths_log(tmp_path, "a,1,first", header="id,length_1,verdict")
    with pytest.raises(CourseInputError, match="the header has: 'id', 'length_1', 'verdict'"):
        read_log(path)
    # in JSON Lines each record is its own: one without either form is a row skipped, named
    records = [{"id": "a", "verdict": "first"}, {"id": "b", "output_1": "x", "verdict": "tie"}]
    log = read_log(jsonl(tmp_path, records))
    assert (log.rows, log.used, log.skipped) == (2, 0, 2)
    assert log.problems == [f"row {n}: no keys output_1 and output_2 or length_1 and length_2"
                            for n in (1, 2)]  # fmt: skip


def test_a_log_whose_every_row_is_unusable_still_returns_its_counts(tmp_path):
    log = read_log(lengths_log(tmp_path, "a,1,2,maybe,1", ",1,2,first,1"))
    assert (log.rows, log.used, log.skipped) == (2, 0, 2)
    assert log.judged.pairs == 0 and log.people.shape == (0, 3)
    assert consistency(log.judged).state == Finding.NOT_EVALUATED
    assert np.array_equal(log.judged.label, np.array([], dtype=np.int8))
