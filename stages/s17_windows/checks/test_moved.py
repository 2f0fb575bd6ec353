"""The README's note of the commands that moved when the course's later stages were split one
concept a stage, a split this stage completes: a reader of an older lesson must find each."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_every_command_the_moved_note_names_is_here(cli):
    # the README's table of commands that moved when the later stages were split (the split
    # this stage completes): each new place is a stage here whose command takes the
    # sub-command named there
    readme = (ROOT / "README.md").read_text()
    assert "| before | now |" in readme
    rows = re.findall(r"^\| .+ \| (`python -m stages\..+) \|$", readme, re.MULTILINE)
    commands = re.findall(r"`python -m (stages\.\w+)((?: [a-z]+(?:\\\|[a-z]+)*)?)", " ".join(rows))
    assert len(commands) >= len(rows) > 10
    for module, named in commands:
        assert (ROOT / module.replace(".", "/") / "__main__.py").is_file(), module
        for command in named.split("\\|") if named else [""]:
            result = cli(module, *command.split(), "--help")
            assert result.returncode == 0 and result.stdout.startswith("usage: "), (module, named)
