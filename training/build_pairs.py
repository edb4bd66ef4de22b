"""Build the (claim, evidence, label) pairs the stance model is trained on, and the FEVER split.

Sources (all read from ../shared/data, never copied into the repo):
* train/claim_evidence_pairs.jsonl  (CLIMATE-FEVER, FEVEROUS, SufficientFacts, Factcheck-Bench)
* fever/paper_dev.jsonl, the *train* and *validation* parts of a page-disjoint split only:
  gold sentences -> the claim's label; BM25-retrieved non-gold sentences -> NOT ENOUGH INFO
* mutations of those gold pairs (``augment.py``): negation flips and entity swaps
* FEVER-style claims written from corpus sentences of pages no evaluation part uses (``synthesize.py``)

Left out on purpose, for their licences: the SufficientFacts pairs (no stated licence) and SciFact
(CC BY-NC 2.0); weights trained on them could not be released under Apache-2.0 without doubt.

No sentence from a page of the FEVER *test* part is used. Writes
``training/splits/fever_paper_dev.json`` (claim ids only) and ``<work>/pairs_{train,validation}.jsonl``.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
from pathlib import Path

import orjson

from augment import mutated_pairs
from synthesize import group_by_page, synthetic_pairs
from mermaid_verifier.agents.decomposer import load_pipeline
from mermaid_verifier.datasets import page_disjoint_split, pages_of, read_labelled_claims
from mermaid_verifier.models import Label
from mermaid_verifier.tools.corpus_index import CorpusIndex, clean_fever_text, read_corpus

REPO = Path(__file__).resolve().parents[1]
SPLIT_FILE = REPO / "training" / "splits" / "fever_paper_dev.json"
NEI = Label.NOT_ENOUGH_INFO.value
RETRIEVED_NEI_PER_CLAIM = 2
SYNTHETIC_SENTENCES = 5000
UNLICENSED_ORIGINS = ("sufficientfacts",)


def pair(claim: str, title: str, text: str, label: str, origin: str) -> dict:
    return {"claim": claim, "title": title, "evidence": text, "label": label, "origin": origin}


def fever_split(shared: Path, index: CorpusIndex) -> tuple[list, dict[str, str], dict[str, set[str]]]:
    claims, bad = read_labelled_claims(shared / "fever" / "paper_dev.jsonl")
    assert not bad, bad[:3]
    anchors: dict[str, set[str]] = {}
    for claim in claims:
        if claim.gold_pages:
            anchors[claim.id] = claim.gold_pages
        else:  # NOT ENOUGH INFO has no gold page: anchor it to the page retrieval finds first
            hits = index.search(claim.claim, k=1)
            anchors[claim.id] = {hits[0][0].page} if hits else set()
    return claims, page_disjoint_split(anchors), anchors


def fever_pairs(claims, split, anchors, index: CorpusIndex, part: str) -> list[dict]:
    test_pages = pages_of(split, anchors, "test") | pages_of(split, anchors, "calibration")
    by_key = {(p.page, p.line): p for p in index.passages}
    pairs = []
    for claim in claims:
        if split[claim.id] != part:
            continue
        gold_keys = {key for evidence_set in claim.evidence_sets for key in evidence_set}
        seen_sets = set()
        for evidence_set in claim.evidence_sets:
            key = tuple(sorted(evidence_set))
            passages = [by_key.get(k) for k in key]
            if key in seen_sets or None in passages or len(seen_sets) >= 2:
                continue
            seen_sets.add(key)
            title = passages[0].title
            text = " ".join(p.text for p in passages)
            pairs.append(pair(claim.claim, title, text, claim.label.value, "fever"))
        taken = 0
        for passage, _ in index.search(claim.claim, k=8):
            if taken >= (3 if claim.label.value == NEI else RETRIEVED_NEI_PER_CLAIM):
                break
            if (passage.page, passage.line) in gold_keys or passage.page in test_pages:
                continue
            if claim.label.value != NEI and passage.page in claim.gold_pages:
                continue  # unannotated sentences of a gold page may still settle the claim
            pairs.append(pair(claim.claim, passage.title, passage.text, NEI, "fever-retrieved"))
            taken += 1
    return pairs


def shared_pairs(shared: Path) -> list[dict]:
    pairs = []
    with (shared / "train" / "claim_evidence_pairs.jsonl").open("rb") as handle:
        for raw in handle:
            r = orjson.loads(raw)
            if r["origin"].startswith(UNLICENSED_ORIGINS):
                continue
            pairs.append(pair(r["claim"], r.get("title") or "", clean_fever_text(r["evidence"]), r["label"], r["origin"]))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--work", type=Path, default=REPO / "training" / "work")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--synthetic-sentences", type=int, default=SYNTHETIC_SENTENCES,
                        help="how many corpus sentences synthesize.py writes claims from")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    args.work.mkdir(parents=True, exist_ok=True)

    index = CorpusIndex.build(list(read_corpus(args.shared / "corpus" / "wiki_sentences.jsonl")))
    claims, split, anchors = fever_split(args.shared, index)
    SPLIT_FILE.parent.mkdir(parents=True, exist_ok=True)
    counts = collections.Counter((split[c.id], c.label.value) for c in claims)
    SPLIT_FILE.write_text(json.dumps({
        "source": "fever/paper_dev.jsonl",
        "how": "mermaid_verifier.datasets.page_disjoint_split over gold pages (NEI: top BM25 page)",
        "counts": {f"{part}/{label}": n for (part, label), n in sorted(counts.items())},
        "assignment": split,
    }, indent=0, sort_keys=True))

    fever_train = fever_pairs(claims, split, anchors, index, "train")
    gold_train = [row for row in fever_train if row["origin"] == "fever"]
    held_out = set().union(*(pages_of(split, anchors, part) for part in ("validation", "calibration", "test")))
    free_pages = group_by_page(p for p in index.passages if p.page not in held_out)
    train = (shared_pairs(args.shared) + fever_train + mutated_pairs(gold_train, load_pipeline(), rng)
             + synthetic_pairs(free_pages, load_pipeline(), rng, args.synthetic_sentences))
    validation = fever_pairs(claims, split, anchors, index, "validation")
    for name, rows in (("train", train), ("validation", validation)):
        rng.shuffle(rows)
        with (args.work / f"pairs_{name}.jsonl").open("wb") as out:
            for row in rows:
                out.write(orjson.dumps(row) + b"\n")
        print(name, len(rows), dict(collections.Counter(r["label"] for r in rows)))
    print("split", dict(sorted(counts.items())))


if __name__ == "__main__":
    main()
