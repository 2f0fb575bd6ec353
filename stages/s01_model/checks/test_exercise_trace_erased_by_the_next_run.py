"""Exercise trace-erased-by-the-next-run (write the check): a second run appends its lines to
the trace after those of the first; it never erases what an earlier run wrote.

`make exercise ID=trace-erased-by-the-next-run` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=trace-erased-by-the-next-run` again to prove it.
"""

import pytest

# >>> main
from stages.s01_model.files import read_jsonl

# <<<


def test_trace_erased_by_the_next_run(cli, tmp_path):
    # >>> main
    trace = tmp_path / "s01.jsonl"
    for _ in range(2):  # the demo, run twice on one trace file
        result = cli("stages.s01_model", "--trace", str(trace))
        assert result.returncode == 0, result.stderr
    records = read_jsonl(trace)
    # each run writes two lines, the question and the reply: two runs leave four, in order
    assert [record["role"] for record in records] == ["user", "assistant", "user", "assistant"]
    assert records[2:] == records[:2]  # the same script twice: the second run repeats the first
    return
    # <<<
    pytest.skip(
        "exercise trace-erased-by-the-next-run: write this check, "
        "then run `make exercise ID=trace-erased-by-the-next-run`"
    )
