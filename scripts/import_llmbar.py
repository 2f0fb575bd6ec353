"""Turn the LLMBar benchmark's published files into stage 18's fixture.

    python scripts/import_llmbar.py DATASET [--out fixtures/llmbar]

DATASET is the folder `Dataset/LLMBar` of the benchmark's repository (princeton-nlp/LLMBar,
MIT licence): `Natural/` and `Adversarial/{Neighbor,GPTInst,GPTOut,Manual}/`, each with its
`dataset.json` and, per judge, `evaluators/JUDGE/Swap/{result.json,statistics.json}`. Only
the Swap runs are read: every pair asked in both orders.

It writes, sorted and byte for byte the same at every run:

    pairs.jsonl       one row per pair: id, set, label, input, output_1, output_2
    verdicts.jsonl    one row per pair, judge and order: id, set, label, judge, swapped (false:
                      output_1 shown first), reply (the judge's text), winner (the benchmark's
                      reading of it: "1", "2" or null, in the original outputs' terms);
                      synthesis_reply and synthesis_winner, the same for the benchmark's second
                      step where it ran one (null where not): when the two orders' verdicts
                      disagreed, the judge was shown both its explanations and asked again,
                      in both orders, for a bare "Output (a)" or "Output (b)"
    statistics.json   the benchmark's own summary, per judge and set, as published
    SOURCE.md         where it came from: the repository, its commit, the licence (LICENSE)
    chatgpt_natural.csv  ChatGPT's verdicts on the Natural set as a team would log them, in
                      the format of stage 18's `audit FILE`: id, length_1, length_2, verdict
                      (first, second or tie, as shown), verdict_swapped, label. The verdicts
                      are the benchmark's readings (blank where it read none).

The pair's id is its set and its place in the set's dataset.json, from 0: `Natural-000`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "fixtures" / "llmbar"
REPOSITORY, COMMIT = "princeton-nlp/LLMBar", "900616bff90b6c6c8e1681f7d079250637c55992"
SETS = {  # each set, and its folder under Dataset/LLMBar
    "Natural": "Natural",
    "Neighbor": "Adversarial/Neighbor",
    "GPTInst": "Adversarial/GPTInst",
    "GPTOut": "Adversarial/GPTOut",
    "Manual": "Adversarial/Manual",
}
JUDGES = ("GPT-4", "ChatGPT", "ChatGPT-0301", "PaLM2", "LLaMA2", "Falcon")
ORDERS = {False: "swap = False", True: "swap = True"}


def line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


def load(path: Path) -> Any:
    if not path.is_file():
        sys.exit(f"error: {path}: no such file (is DATASET the benchmark's Dataset/LLMBar?)")
    return json.loads(path.read_text(encoding="utf-8"))


def import_set(dataset: Path, name: str) -> tuple[list[str], list[str], dict[str, Any]]:
    """One set's pairs and verdict rows, and the benchmark's statistics per judge."""
    folder = dataset / SETS[name]
    items = load(folder / "dataset.json")
    pairs, verdicts, statistics = [], [], {}
    for index, item in enumerate(items):
        pair = {"id": f"{name}-{index:03d}", "set": name, "label": item["label"]}
        pairs.append(line({**pair, **{k: item[k] for k in ("input", "output_1", "output_2")}}))
    for judge in JUDGES:
        run = folder / "evaluators" / judge / "Swap"
        results = load(run / "result.json")
        if len(results) != len(items):
            sys.exit(
                f"error: {run / 'result.json'}: {len(results)} items, the set has {len(items)}"
            )
        for index, (item, result) in enumerate(zip(items, results, strict=True)):
            if (result["output_1"], result["output_2"]) != (item["output_1"], item["output_2"]):
                sys.exit(f"error: {run / 'result.json'}: item {index} is not the set's pair")
            asked = result["results"]
            if len(asked) not in (1, 2):
                sys.exit(f"error: {run / 'result.json'}: item {index}: {len(asked)} results")
            for swapped, key in ORDERS.items():
                first, last = asked[0][key], asked[-1][key]
                verdicts.append(line({
                    "id": f"{name}-{index:03d}", "set": name, "label": item["label"],
                    "judge": judge, "swapped": swapped,
                    "reply": first["completion"][0], "winner": first["winner"],
                    "synthesis_reply": last["completion"][0] if len(asked) == 2 else None,
                    "synthesis_winner": last["winner"] if len(asked) == 2 else None,
                }))  # fmt: skip
        statistics[judge] = load(run / "statistics.json")
    return pairs, verdicts, statistics


EXAMPLE = ("ChatGPT", "Natural")  # the judge and set of the example log
SLOTS = {(False, "1"): "first", (False, "2"): "second", (True, "1"): "second", (True, "2"): "first"}


def example_log(pairs: list[str], verdicts: list[str]) -> str:
    """One judge's verdicts on one set, a row a pair, as stage 18's audit reads a log."""
    name = EXAMPLE[1]
    chosen: dict[tuple[str, bool], str] = {}
    for row in map(json.loads, verdicts):
        if (row["judge"], row["set"]) == EXAMPLE:
            chosen[row["id"], row["swapped"]] = SLOTS.get((row["swapped"], row["winner"]), "")
    lines = ["id,length_1,length_2,verdict,verdict_swapped,label\n"]
    for pair in map(json.loads, pairs):
        if pair["set"] == name:
            lengths = f"{len(pair['output_1'])},{len(pair['output_2'])}"
            orders = f"{chosen[pair['id'], False]},{chosen[pair['id'], True]}"
            lines.append(f"{pair['id']},{lengths},{orders},{pair['label']}\n")
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the benchmark's Dataset/LLMBar folder")
    parser.add_argument("--out", type=Path, default=OUT, help="where the fixture goes")
    parser.add_argument("--license", type=Path, help="the licence file (default: beside DATASET)")
    args = parser.parse_args(argv)
    pairs, verdicts, statistics = [], [], {}
    for name in SETS:
        set_pairs, set_verdicts, statistics[name] = import_set(args.dataset, name)
        pairs += set_pairs
        verdicts += set_verdicts
    licence = args.license or next(
        (p / "LICENSE" for p in args.dataset.parents if (p / "LICENSE").is_file()), None
    )
    if licence is None:
        sys.exit(f"error: no LICENSE above {args.dataset}: give --license FILE")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pairs.jsonl").write_text("".join(sorted(pairs)), encoding="utf-8")
    (args.out / "verdicts.jsonl").write_text("".join(sorted(verdicts)), encoding="utf-8")
    text = json.dumps(statistics, indent=1, sort_keys=True) + "\n"
    (args.out / "statistics.json").write_text(text, encoding="utf-8")
    shutil.copyfile(licence, args.out / "LICENSE")
    log = example_log(sorted(pairs), sorted(verdicts))
    (args.out / "chatgpt_natural.csv").write_text(log, encoding="utf-8")
    (args.out / "SOURCE.md").write_text(SOURCE, encoding="utf-8")
    print(f"{len(pairs)} pairs, {len(verdicts)} verdicts written to {args.out}")
    return 0


SOURCE = f"""# Where this fixture comes from

The LLMBar benchmark (Zeng et al., "Evaluating Large Language Models at Evaluating Instruction
Following", ICLR 2024), repository {REPOSITORY} at commit {COMMIT}, folder `Dataset/LLMBar`:
each set's `dataset.json`, and the `Swap` run of each of six judges (`result.json`,
`statistics.json`). MIT licence: `LICENSE` in this folder is the repository's.

Made by `python scripts/import_llmbar.py DATASET`, which says what each file holds. The texts
are the benchmark's, unchanged; only their layout is ours.
"""

if __name__ == "__main__":
    sys.exit(main())
