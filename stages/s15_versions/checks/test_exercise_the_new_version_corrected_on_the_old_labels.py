"""Exercise the-new-version-corrected-on-the-old-labels (write the check): given a file of
labels for each version, the comparison corrects the first run with the first file and the
second run with the second, so what people said of the new version's answers is what counts
for it.

`make exercise ID=the-new-version-corrected-on-the-old-labels` shows the planted bug. Replace
the `pytest.skip(...)` line below with a check that passes on the code as it is and fails with
the bug planted; then run `make exercise ID=the-new-version-corrected-on-the-old-labels` again
to prove it.
"""

import pytest

# >>> main
from stages.s15_versions.corrected import LabelColumns, read_labels
from stages.s15_versions.corrected_change import DEMO_LABELS, compared
from stages.s15_versions.versions import demo_runs

# <<<


def test_the_new_version_corrected_on_the_old_labels(tmp_path):
    # >>> main
    # A file of labels for each version: the old version's is the demo's (people pass 9 of its
    # 12 answers); people pass 10 of the new version's, failing two.
    columns = LabelColumns("id", "human")
    old = read_labels(DEMO_LABELS, columns, 7)
    failed = ("where-a1001", "return-too-late")
    path = tmp_path / "new.csv"
    path.write_text(
        "id,human\n" + "".join(f"{c},{'fail' if c in failed else 'pass'}\n" for c in old)
    )
    new = read_labels(path, columns, 7)
    assert sum(label.passed for label in old.values() if label) == 9
    assert sum(label.passed for label in new.values() if label) == 10
    found = compared("the two versions", *demo_runs("biased"), [old, new])
    assert found.corrected is not None
    people, _, ppi = found.corrected
    # the people's rate: 10 / 12 after, 9 / 12 before, a change of 1 / 12
    assert people.value == pytest.approx(1 / 12)
    # its variance: before 0.75 * 0.25 / 12 = 0.015625, after (10/12) * (2/12) / 12 = 0.011574;
    # the error sqrt(0.027199) = 0.164921, times 1.959964: 1/12 -/+ 0.323240, the interval
    # [-0.239907, +0.406573]
    assert people.ci == pytest.approx((-0.239907, 0.406573), abs=1e-5)
    # every case is labelled on both sides: prediction-powered is the people's change too
    assert ppi.value == pytest.approx(1 / 12)
    return
    # <<<
    pytest.skip(
        "exercise the-new-version-corrected-on-the-old-labels: write this check, then run "
        "`make exercise ID=the-new-version-corrected-on-the-old-labels`"
    )
