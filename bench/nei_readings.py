"""FEVER's NOT ENOUGH INFO claims a reader reads REFUTES, split by what the passage behind the refutation says.

    python -m bench.nei_readings --run shipped=E2/shipped-paper-dev-tuning.jsonl.gz \\
        --run cpu43=E2/cpu43-paper-dev-tuning.jsonl.gz

FEVER labels a claim NOT ENOUGH INFO where its annotators found no evidence, and many of the labelled claims are
edits of a page's own sentence ("Marcus Bentley is a Jamaican actor." beside "… is a British actor"). Counted as
FEVER counts them, every such claim a reader refutes from its page is an error, whether the page settles it or
not. ``bench/data/fever_nei_read_refutes.jsonl`` holds one reading by hand of each NOT ENOUGH INFO claim of the
tuning parts that the shipped reader's run read REFUTES (117 claims, ``reader_checks tuning-ledger``): the
passage it refuted most strongly (``page``, ``line`` of the shared sentence corpus) read against the claim as a
fact-checker reads it, and marked

* ``refutes``: the passage gives the claim's single slot another value or contradicts it outright (a nationality,
  a year a career began, a network a series aired on, "a small town" for "the largest city", a TV series claimed a
  murderer);
* ``supports``: the passage states the claim ("Asian" beside "South Korean");
* ``does not settle``: anything else, the narrow reading (another film among a director's films, another spouse,
  a list introduced by "including", another country's party leader).

Each run (a tuning ledger: ``id``, ``gold``, ``verdict``; ``.jsonl`` or ``.jsonl.gz``) is reported as: its NOT
ENOUGH INFO claims read REFUTES, how many of the hand-read claims it still reads REFUTES by their reading, and how
many it reads REFUTES that the hand readings do not cover (a reader other than the shipped one refutes other
claims too; those are not read). The readings are one person's, made once, on the tuning parts only; the test
part is never read this way.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

from bench import print_report
from bench.compare_runs import RunError, read_rows, verdicts

READINGS = Path(__file__).resolve().parent / "data" / "fever_nei_read_refutes.jsonl"
KINDS = ("refutes", "supports", "does not settle")
NEI, REFUTES = "NOT ENOUGH INFO", "REFUTES"


def load_readings(path: Path) -> dict[str, str]:
    """``{claim id: reading}`` from the hand readings file; an unknown reading is an error naming its line."""
    readings = {}
    for number, row in enumerate(read_rows(path), start=1):
        if row.get("reading") not in KINDS or "id" not in row:
            raise RunError(f"{path}, line {number}: a reading row needs 'id' and a 'reading' among {KINDS}")
        readings[str(row["id"])] = row["reading"]
    return readings


def split_run(run: dict[str, tuple[str, str]], readings: dict[str, str]) -> dict:
    """One run's NOT ENOUGH INFO claims read REFUTES, and the hand-read claims by reading and by its verdict."""
    missing = sorted(set(readings) - set(run))
    if missing:
        raise RunError(
            f"{len(missing)} hand-read claims are not in the run (the first: {missing[0]}); pass a tuning ledger of"
            " FEVER paper_dev (`python -m bench.reader_checks tuning-ledger`)"
        )
    if any(run[claim][0] != NEI for claim in readings):
        raise RunError("the run's gold labels are not the hand-read claims' (NOT ENOUGH INFO): another claims file?")
    nei = [claim for claim, (gold, _) in run.items() if gold == NEI]
    read_refutes = {claim for claim in nei if run[claim][1] == REFUTES}
    by_reading: dict[str, Counter] = {kind: Counter() for kind in KINDS}
    for claim, reading in readings.items():
        by_reading[reading][run[claim][1]] += 1
    still = {kind: by_reading[kind][REFUTES] for kind in KINDS}
    return {
        "not_enough_info": len(nei),
        "read_refutes": len(read_refutes),
        "read_refutes_share": round(len(read_refutes) / len(nei), 4) if nei else None,
        "hand_read_still_refuted": still,
        "hand_read_verdicts": {kind: dict(sorted(counts.items())) for kind, counts in by_reading.items()},
        "read_refutes_not_hand_read": len(read_refutes - set(readings)),
        "read_refutes_other_than_hand_read_refutations": len(read_refutes) - still["refutes"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", required=True, metavar="NAME=LEDGER", help="repeat; a tuning ledger")
    parser.add_argument("--readings", type=Path, default=READINGS)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        readings = load_readings(args.readings)
        report = {
            "command": "python -m bench.nei_readings " + " ".join(f"--run {spec}" for spec in args.run),
            "readings": os.path.relpath(args.readings),
            "hand_read": dict(Counter(readings.values())),
            "runs": {},
        }
        for spec in args.run:
            name, sep, path = spec.partition("=")
            if not sep or not name or not path:
                parser.error(f"--run {spec}: give NAME=LEDGER")
            report["runs"][name] = split_run(verdicts(Path(path), None), readings)
    except RunError as error:
        parser.exit(1, f"error: {error}\n")
    print_report(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
