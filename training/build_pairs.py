"""Build the (claim, evidence, label) pairs the stance model is trained on, and the splits.

Sources (all read from ../shared/data, never copied into the repo):

* ``train/claim_evidence_pairs.jsonl`` (CLIMATE-FEVER, FEVEROUS, Factcheck-Bench; SufficientFacts left
  out: no stated licence);
* ``train/fever_gold_pairs.jsonl``: FEVER claims with their gold evidence text; the ``paper_dev`` ones
  are replaced by the pointer-built pairs of our own train part (below), and a pair whose claim names a
  held-out page, or whose evidence is a held-out page's sentence, is dropped;
* ``fever/paper_dev.jsonl``, the *train* part of the page-disjoint split: gold sentences → label,
  BM25-retrieved non-gold sentences → NOT ENOUGH INFO; the *validation* part the same way for the
  validation pairs;
* NOT ENOUGH INFO three ways (``nei_pairs.py``): other sentences of the claim's page that settle
  nothing, gold evidence with the decisive span removed, and a page's sentence paired with a claim
  about another fact of that page;
* contrastive edits of SUPPORTS pairs (``contrast.py``): REFUTES twins (antonym, comparative, number,
  date, same-type entity, role, negation) and SUPPORTS twins that keep the claim true (synonym,
  format, paraphrase); negation flips of the REFUTES gold pairs (``augment.py``) → SUPPORTS;
* FEVER-style claims written from corpus sentences (``synthesize.py``);
* the reader's failure kinds (``failure_kinds.py``): claims more specific than their evidence → NOT ENOUGH
  INFO, hypernym / nationality / coarser date → SUPPORTS, type exclusion and a wrong decade → REFUTES, from
  the SUPPORTS pairs of training pages (``--no-failure-kinds`` leaves them out);
* ``scifact/claims_train.jsonl`` over ``corpus/scifact_abstracts.jsonl``, the train part of a split by
  cited-abstract group (80 / 20; the held-out part is for reporting);
* ``train/contrastive_pairs.jsonl``: VitaminC real (a slice of its pages held out by title as
  ``pairs_validation_vitaminc.jsonl``), counterfactually-edited NLI, Breaking NLI (its REFUTES sampled
  down), Fool-Me-Twice; ANLI only with ``--with-anli`` (CC BY-NC: a non-commercial build); and up to
  ``VITAMINC_NUMBER_BOUNDS`` number-bound edits of the VitaminC SUPPORTS pairs of training pages (a stated
  count made a bound near it; origin ``vitaminc-number-bound``; left out with ``--no-failure-kinds``).

**Pages the training never sees:** the anchor pages of the validation, calibration and test parts of
``paper_dev``, every evidence page of ``fever/paper_test_rest.jsonl`` (only its page names are read, to
keep them out; its claims are never read) and the pages of the contrast test set
(``tests/data/contrast_pairs.jsonl``). All generated pairs come from the remaining
(training) pages. Writes ``training/splits/{fever_paper_dev,scifact_claims_train}.json`` (ids only) and
``<work>/pairs_train.jsonl``, ``pairs_validation.jsonl`` (comparable across models: gold → label,
retrieved → NEI), ``pairs_validation_edits.jsonl`` (the contrastive generators on validation pages) and
``pairs_validation_kinds.jsonl`` (the failure-kind generators on validation pages; figures per ``kind-*`` origin).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from mermaid_verifier.evaluation.datasets import (
    hash_bucket,
    page_disjoint_split,
    page_groups,
    pages_of,
    read_labelled_claims,
)
from mermaid_verifier.models import Label
from mermaid_verifier.names import without_disambiguator
from mermaid_verifier.tools.corpus_index import CorpusIndex, clean_fever_text, read_corpus
from training.augment import entity_pool, mutated_pairs
from training.contrast import contrastive_pairs
from training.failure_kinds import failure_kind_pairs, number_bound_pairs
from training.nei_pairs import other_claim_pairs, page_other_pairs, span_removed_pairs
from training.synthesize import group_by_page, synthetic_pairs

REPO = Path(__file__).resolve().parents[1]
SPLIT_FILE = REPO / "training" / "splits" / "fever_paper_dev.json"
SCIFACT_SPLIT_FILE = REPO / "training" / "splits" / "scifact_claims_train.json"
NEI = Label.NOT_ENOUGH_INFO.value
RETRIEVED_NEI_PER_CLAIM = 2
SYNTHETIC_SENTENCES = 5000
UNLICENSED_ORIGINS = ("sufficientfacts",)
SCIFACT_HELD_OUT_BUCKETS = range(0, 20)
NEGATED_SHARE = 0.5  # of the REFUTES gold claims whose negation flip (→ SUPPORTS) is kept
VITAMINC_HELD_OUT_BUCKETS = range(0, 10)  # VitaminC pages (by title hash) kept for validation, never trained on
VITAMINC_NUMBER_BOUNDS = 3000  # number-bound edits of VitaminC training-page SUPPORTS pairs, at most
BREAKING_NLI_REFUTES = 1500  # Breaking NLI is 87 % REFUTES: at most this many of them are kept
NON_COMMERCIAL_ORIGINS = ("anli_test",)  # CC BY-NC 4.0: only in a build made with --with-anli


def pair(claim: str, title: str, text: str, label: str, origin: str) -> dict:
    return {"claim": claim, "title": title, "evidence": text, "label": label, "origin": origin}


def sentence_key(text: str, words: int = 12) -> str:
    """The first words of a sentence, folded: FEVER's tokenised text and plain text give the same key."""
    return " ".join(re.findall(r"[a-z0-9]+", clean_fever_text(text).lower())[:words])


def contrast_set_pages() -> set[str]:
    """Pages of the hand-written contrast test set (tests/data/contrast_pairs.jsonl): never trained on."""
    path = REPO / "tests" / "data" / "contrast_pairs.jsonl"
    return {orjson.loads(line)["page"] for line in path.open("rb")} if path.exists() else set()


# -- FEVER paper_dev ---------------------------------------------------------------------------------
def fever_split(shared: Path, index: CorpusIndex) -> tuple[list, dict[str, str], dict[str, set[str]]]:
    """The claims, their part and their anchor pages. The committed ``SPLIT_FILE`` decides the parts: a NOT
    ENOUGH INFO claim is anchored to the page retrieval finds first, and retrieval's ties can fall otherwise
    with another library version, so recomputing the split could move a claim between parts (a validation
    claim into training). The split is computed only where no split file exists yet."""
    claims, bad = read_labelled_claims(shared / "fever" / "paper_dev.jsonl")
    assert not bad, bad[:3]
    anchors: dict[str, set[str]] = {}
    for claim in claims:
        if claim.gold_pages:
            anchors[claim.id] = claim.gold_pages
        else:  # NOT ENOUGH INFO has no gold page: anchor it to the page retrieval finds first
            hits = index.search(claim.claim, k=1)
            anchors[claim.id] = {hits[0][0].page} if hits else set()
    if not SPLIT_FILE.exists():
        return claims, page_disjoint_split(anchors), anchors
    committed = json.loads(SPLIT_FILE.read_text())["assignment"]
    missing = [c.id for c in claims if str(c.id) not in committed]
    if missing:
        raise SystemExit(f"{SPLIT_FILE} has no part for {len(missing)} paper_dev claims (e.g. {missing[:3]})")
    return claims, {c.id: committed[str(c.id)] for c in claims}, anchors


def test_rest_pages(shared: Path) -> set[str]:
    """Evidence page names of the untouched test part; nothing else of that file is read."""
    pages = set()
    with (shared / "fever" / "paper_test_rest.jsonl").open("rb") as handle:
        for raw in handle:
            for evidence_set in orjson.loads(raw).get("evidence") or []:
                pages |= {p[2] for p in evidence_set if len(p) >= 4 and p[2]}
    return pages


@dataclass(frozen=True)
class HeldOut:
    """The pages no training pair may come from, as the passage-level builds keep them out."""

    validation: set[str]  # the FEVER split's validation part: its passage pairs are measured on
    evaluation: set[str]  # validation, calibration and test parts
    never: set[str]  # paper_test_rest and the contrast set: read by no build
    titles: set[str]  # their titles, with and without a disambiguator: claims naming them are left out

    @property
    def pages(self) -> set[str]:
        return self.evaluation | self.never


def held_out(shared: Path, index: CorpusIndex, split: dict[str, str], anchors: dict[str, set[str]]) -> HeldOut:
    """The held-out pages of ``fever_split``'s parts, the test part and the contrast set, and their titles."""
    validation = pages_of(split, anchors, "validation")
    evaluation = validation | pages_of(split, anchors, "calibration") | pages_of(split, anchors, "test")
    never = test_rest_pages(shared) | contrast_set_pages()
    titles = {p.title for p in index.passages if p.page in evaluation | never}
    return HeldOut(validation, evaluation, never, titles | {without_disambiguator(t) for t in titles})


def fever_pairs(
    claims, split, index: CorpusIndex, part: str, excluded_pages: set[str]
) -> tuple[list[dict], list[dict]]:
    """(pairs, claim records) of one part: gold sets → label, retrieved non-gold sentences → NEI.

    A claim record ``{claim, page, title, label, gold_texts, origin}`` (S/R claims with one gold page) feeds
    the NOT ENOUGH INFO builders."""
    by_key = {(p.page, p.line): p for p in index.passages}
    pairs, records = [], []
    for claim in claims:
        if split[claim.id] != part or claim.gold_pages & excluded_pages:
            continue
        gold_keys = {key for evidence_set in claim.evidence_sets for key in evidence_set}
        seen_sets = set()
        for evidence_set in claim.evidence_sets:
            key = tuple(sorted(evidence_set))
            passages = [by_key.get(k) for k in key]
            if key in seen_sets or None in passages or len(seen_sets) >= 2:
                continue
            seen_sets.add(key)
            pairs.append(
                pair(claim.claim, passages[0].title, " ".join(p.text for p in passages), claim.label.value, "fever")
            )
        gold_passages = [by_key[k] for k in sorted(gold_keys) if k in by_key]
        if len(claim.gold_pages) == 1 and seen_sets and gold_passages:
            records.append(
                {
                    "claim": claim.claim,
                    "page": gold_passages[0].page,
                    "title": gold_passages[0].title,
                    "label": claim.label.value,
                    "gold_texts": [p.text for p in gold_passages],
                    "origin": "fever-page-other",
                }
            )
        taken = 0
        for passage, _ in index.search(claim.claim, k=8):
            if taken >= (3 if claim.label.value == NEI else RETRIEVED_NEI_PER_CLAIM):
                break
            if (passage.page, passage.line) in gold_keys or passage.page in excluded_pages:
                continue
            if claim.label.value != NEI and passage.page in claim.gold_pages:
                continue  # unannotated sentences of a gold page may still settle the claim
            pairs.append(pair(claim.claim, passage.title, passage.text, NEI, "fever-retrieved"))
            taken += 1
    return pairs, records


# -- the shared pair files -------------------------------------------------------------------------
def shared_pairs(shared: Path) -> list[dict]:
    pairs = []
    with (shared / "train" / "claim_evidence_pairs.jsonl").open("rb") as handle:
        for raw in handle:
            r = orjson.loads(raw)
            if r["origin"].startswith(UNLICENSED_ORIGINS):
                continue
            pairs.append(
                pair(r["claim"], r.get("title") or "", clean_fever_text(r["evidence"]), r["label"], r["origin"])
            )
    return pairs


def builder_parser(description: str) -> argparse.ArgumentParser:
    """The arguments every pair build takes: the shared data it reads, the folder it writes and its seed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--work", type=Path, default=REPO / "training" / "work")
    parser.add_argument("--seed", type=int, default=13)
    return parser


def shared_rows(shared: Path, origins: dict[str, set[str]]) -> Iterator[tuple[dict, str]]:
    """The rows of the shared training files (``origins``: file name -> the origins read from it), in file order,
    leaving out the pairs of ``paper_dev`` claims; each with its title ("" where it has none)."""
    for name, wanted in origins.items():
        for row in map(orjson.loads, (shared / "train" / name).open("rb")):
            if row["origin"] in wanted and row.get("fever_split") != "paper_dev":
                title = row.get("title") or ""
                yield row, "" if title == "None" else title


def corpus_and_held_out(shared: Path) -> tuple[CorpusIndex, list, HeldOut]:
    """The bundled corpus indexed, ``paper_dev``'s claims and the pages no training pair may come from."""
    index = CorpusIndex.build(list(read_corpus(shared / "corpus" / "wiki_sentences.jsonl")))
    claims, split, anchors = fever_split(shared, index)
    return index, claims, held_out(shared, index, split, anchors)


def distinct_pairs(rows: list[dict]) -> list[dict]:
    """Each (claim, evidence) once: the first row that has it, in order."""
    first: dict[tuple[str, str], dict] = {}
    for row in rows:
        first.setdefault((row["claim"], row["evidence"]), row)
    return list(first.values())


def names_pattern(titles: set[str]) -> re.Pattern | None:
    names = sorted(
        {without_disambiguator(t) for t in titles if len(without_disambiguator(t)) >= 4}, key=len, reverse=True
    )
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b") if names else None


def fever_gold_pairs(shared: Path, index: CorpusIndex, held_out_pages: set[str]) -> list[dict]:
    """The non-paper_dev FEVER gold pairs that touch no held-out page; titled by the corpus page of their
    first sentence when the corpus has it."""
    page_of_sentence = {sentence_key(p.text): p for p in index.passages}
    held_out_titles = {p.title for p in index.passages if p.page in held_out_pages}
    names = names_pattern(held_out_titles)
    out = []
    with (shared / "train" / "fever_gold_pairs.jsonl").open("rb") as handle:
        for raw in handle:
            r = orjson.loads(raw)
            if r.get("fever_split") == "paper_dev":
                continue  # our own split decides which paper_dev claims train (pointer-built pairs)
            first = page_of_sentence.get(sentence_key(r["evidence"]))
            if (first is not None and first.page in held_out_pages) or (names and names.search(r["claim"])):
                continue
            out.append(
                pair(
                    r["claim"], first.title if first else "", clean_fever_text(r["evidence"]), r["label"], "fever-gold"
                )
            )
    return out


def contrastive_shared_pairs(
    shared: Path, held_out_titles: set[str], rng: random.Random, with_anli: bool = False
) -> tuple[list[dict], list[dict]]:
    """(training pairs, held-out VitaminC pairs) from ``train/contrastive_pairs.jsonl``.

    A pair whose title is a held-out page of ours is dropped; VitaminC pages whose title hashes into
    ``VITAMINC_HELD_OUT_BUCKETS`` are held out whole (every revision of a sentence goes one way), and
    Breaking NLI's REFUTES pairs are sampled down to ``BREAKING_NLI_REFUTES``. The origin keeps the
    file's (``vitaminc_real``, ``breaking_nli:<category>``, …) so validation figures come per origin."""
    train, held_out, breaking_refutes = [], [], []
    with (shared / "train" / "contrastive_pairs.jsonl").open("rb") as handle:
        for raw in handle:
            r = orjson.loads(raw)
            origin, title = r["origin"], r.get("title") or ""
            if origin.startswith(NON_COMMERCIAL_ORIGINS) and not with_anli:
                continue
            if title and title in held_out_titles:
                continue
            row = pair(clean_fever_text(r["claim"]), title, clean_fever_text(r["evidence"]), r["label"], origin)
            if origin == "vitaminc_real" and hash_bucket(f"vitaminc:{title}") in VITAMINC_HELD_OUT_BUCKETS:
                held_out.append(row)
            elif origin.startswith("breaking_nli") and r["label"] == "REFUTES":
                breaking_refutes.append(row)
            else:
                train.append(row)
    train += rng.sample(breaking_refutes, min(BREAKING_NLI_REFUTES, len(breaking_refutes)))
    return train, held_out


# -- SciFact -------------------------------------------------------------------------------------------
def scifact_split(shared: Path) -> tuple[list[dict], dict[str, str]]:
    """claims_train.jsonl records, and each claim's part (``train`` / ``held_out``) by cited-abstract group."""
    records = [orjson.loads(line) for line in (shared / "scifact" / "claims_train.jsonl").open("rb")]
    anchors = {str(r["id"]): {str(d) for d in r.get("cited_doc_ids") or []} for r in records}
    groups = page_groups(anchors)
    return records, {
        cid: "held_out" if hash_bucket(group) in SCIFACT_HELD_OUT_BUCKETS else "train" for cid, group in groups.items()
    }


def scifact_pairs(shared: Path, records: list[dict], split: dict[str, str], rng: random.Random) -> list[dict]:
    """Train-part claims: rationale sentences → label; a non-rationale stretch of a cited abstract → NEI."""
    abstracts = {
        str(r["doc_id"]): r for r in map(orjson.loads, (shared / "corpus" / "scifact_abstracts.jsonl").open("rb"))
    }
    labels = {"SUPPORT": "SUPPORTS", "CONTRADICT": "REFUTES"}
    out = []
    for r in records:
        if split[str(r["id"])] != "train":
            continue
        used: dict[str, set[int]] = collections.defaultdict(set)
        for doc_id, rationales in (r.get("evidence") or {}).items():
            doc = abstracts.get(str(doc_id))
            for rationale in rationales if doc else []:
                sentences = [doc["abstract"][i] for i in rationale["sentences"] if i < len(doc["abstract"])]
                used[str(doc_id)] |= set(rationale["sentences"])
                out.append(pair(r["claim"], doc["title"], " ".join(sentences), labels[rationale["label"]], "scifact"))
        for doc_id in r.get("cited_doc_ids") or []:
            doc = abstracts.get(str(doc_id))
            if not doc:
                continue
            free = [i for i in range(len(doc["abstract"])) if i not in used[str(doc_id)]]
            if free:
                start = rng.choice(free)
                text = " ".join(doc["abstract"][i] for i in (start, start + 1) if i in free)
                out.append(pair(r["claim"], doc["title"], text, NEI, "scifact-unsettled"))
            break
    return out


# -- assembling -----------------------------------------------------------------------------------------
def edited_pairs(
    gold: list[dict], records: list[dict], index: CorpusIndex, nlp, rng: random.Random, pool: dict[str, list[str]]
) -> list[dict]:
    """NEI three ways and contrastive twins around gold pairs and their claim records."""
    page_sentences = group_by_page(index.passages)
    record_docs = list(nlp.pipe([r["claim"] for r in records], batch_size=256))
    supports = [r for r in gold if r["label"] == "SUPPORTS"]
    refutes = [r for r in gold if r["label"] == "REFUTES"]
    return (
        page_other_pairs(records, page_sentences, record_docs, rng)
        + other_claim_pairs(
            [r | {"origin": r["origin"].replace("page-other", "other-claim")} for r in records], record_docs, rng
        )
        + span_removed_pairs([r for r in gold if r["label"] in {"SUPPORTS", "REFUTES"}], nlp)
        + contrastive_pairs(supports, nlp, rng, pool)
        + [m for m in mutated_pairs(refutes, nlp, rng) if m["label"] == "SUPPORTS" and rng.random() < NEGATED_SHARE]
    )


def synthetic_records(synthetic: list[dict], page_of: dict[tuple[str, str], str]) -> list[dict]:
    """Claim records of the synthetic SUPPORTS claims (their source sentence is their gold text)."""
    return [
        {
            "claim": r["claim"],
            "page": page_of[(r["title"], r["evidence"])],
            "title": r["title"],
            "label": "SUPPORTS",
            "gold_texts": [r["evidence"]],
            "origin": "synthetic-page-other",
        }
        for r in synthetic
        if r["origin"] == "synthetic" and (r["title"], r["evidence"]) in page_of
    ]


def write_parts(work: Path, family: str, items: list, part_of: Callable, pairs_of: Callable, seed: int) -> None:
    """A pair family's items split by ``part_of`` ("train" or "validation"), each part made into pairs by
    ``pairs_of(items, rng)`` and written to ``pairs_{part}_{family}.jsonl``, each with generators seeded by the part."""
    for part in ("train", "validation"):
        chosen = [item for item in items if part_of(item) == part]
        pairs = pairs_of(chosen, random.Random(f"{seed}:{family}:{part}"))
        write_rows(work / f"pairs_{part}_{family}.jsonl", pairs, random.Random(f"{seed}:{family}:{part}:order"))


def write_rows(path: Path, rows: list[dict], rng: random.Random) -> None:
    rng.shuffle(rows)
    with path.open("wb") as out:
        for row in rows:
            out.write(orjson.dumps(row) + b"\n")
    print(path.name, len(rows), dict(collections.Counter(r["label"] for r in rows)))
    print("  origins", dict(sorted(collections.Counter(r["origin"] for r in rows).items())))


def main() -> None:
    parser = builder_parser(__doc__.splitlines()[0])
    parser.add_argument(
        "--synthetic-sentences",
        type=int,
        default=SYNTHETIC_SENTENCES,
        help="how many corpus sentences synthesize.py writes claims from",
    )
    parser.add_argument(
        "--no-contrastive", action="store_true", help="leave out train/contrastive_pairs.jsonl (the earlier pair set)"
    )
    parser.add_argument(
        "--no-failure-kinds", action="store_true", help="leave out failure_kinds.py's pairs (the earlier pair set)"
    )
    parser.add_argument(
        "--validation-only",
        action="store_true",
        help="write the validation files (the same bytes as a whole build) and pairs_replay.jsonl, a single-sentence"
        " pool for reader_job.py's replay taken from the shared pairs as they are (about a minute), instead of the"
        " whole pairs_train.jsonl (4-9 minutes on 2 cores)",
    )
    parser.add_argument(
        "--with-anli",
        action="store_true",
        help="add ANLI's pairs (CC BY-NC 4.0): the model built from them is for non-commercial use only",
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    args.work.mkdir(parents=True, exist_ok=True)
    nlp = load_pipeline()

    index = CorpusIndex.build(list(read_corpus(args.shared / "corpus" / "wiki_sentences.jsonl")))
    claims, split, anchors = fever_split(args.shared, index)
    counts = collections.Counter((split[c.id], c.label.value) for c in claims)
    if not SPLIT_FILE.exists():  # the committed split stays as it is (fever_split)
        SPLIT_FILE.write_text(
            json.dumps(
                {
                    "source": "fever/paper_dev.jsonl",
                    "how": "mermaid_verifier.evaluation.datasets.page_disjoint_split over gold pages (NEI: top BM25 page)",
                    "counts": {f"{part}/{label}": n for (part, label), n in sorted(counts.items())},
                    "assignment": split,
                },
                indent=0,
                sort_keys=True,
            )
        )
    kept_out = held_out(args.shared, index, split, anchors)
    held_out_pages, held_out_titles = kept_out.pages, kept_out.titles

    fever_train, train_records = fever_pairs(claims, split, index, "train", held_out_pages)
    gold_train = [r for r in fever_train if r["origin"] == "fever"] + fever_gold_pairs(
        args.shared, index, held_out_pages
    )
    training_pages = group_by_page(p for p in index.passages if p.page not in held_out_pages)
    synthetic = synthetic_pairs(training_pages, nlp, rng, args.synthetic_sentences)
    page_of = {(p.title, p.text): p.page for p in index.passages}
    pool = entity_pool(list(nlp.pipe([r["claim"] for r in gold_train + synthetic], batch_size=256)))
    synthetic_gold = [r for r in synthetic if r["origin"] == "synthetic"]
    if args.validation_only:
        contrastive, vitaminc_validation = contrastive_shared_pairs(args.shared, held_out_titles, rng, args.with_anli)
        replay = shared_pairs(args.shared) + [r for r in gold_train if r["origin"] == "fever-gold"] + contrastive
        write_rows(args.work / "pairs_replay.jsonl", replay, random.Random(f"{args.seed}:replay-order"))
        write_validation(args, claims, split, index, nlp, pool, vitaminc_validation)
        return
    edits = edited_pairs(
        gold_train + synthetic_gold, train_records + synthetic_records(synthetic, page_of), index, nlp, rng, pool
    )

    sci_records, sci_split = scifact_split(args.shared)
    SCIFACT_SPLIT_FILE.write_text(
        json.dumps(
            {
                "source": "scifact/claims_train.jsonl",
                "how": "claims joined by shared cited abstracts (datasets.page_groups); a group's hash bucket < 20 -> held_out",
                "counts": dict(collections.Counter(sci_split.values())),
                "assignment": sci_split,
            },
            indent=0,
            sort_keys=True,
        )
    )

    train = (
        shared_pairs(args.shared)
        + fever_train
        + [r for r in gold_train if r["origin"] == "fever-gold"]
        + synthetic
        + edits
        + scifact_pairs(args.shared, sci_records, sci_split, rng)
    )
    if not args.no_failure_kinds:
        train += failure_kind_pairs([r for r in gold_train if r["label"] == "SUPPORTS"] + synthetic_gold, nlp, rng)
    vitaminc_validation: list[dict] = []
    if not args.no_contrastive:
        contrastive, vitaminc_validation = contrastive_shared_pairs(args.shared, held_out_titles, rng, args.with_anli)
        train += contrastive
        if not args.no_failure_kinds:  # counts against "more than / under" bounds, from VitaminC's training pages
            vitaminc = [r for r in contrastive if r["origin"] == "vitaminc_real"]
            bounds = random.Random(f"{args.seed}:vitaminc-number-bound")  # its own stream: the rest stays as it was
            train += number_bound_pairs(vitaminc, nlp, bounds, VITAMINC_NUMBER_BOUNDS, "vitaminc-number-bound")
    write_rows(args.work / "pairs_train.jsonl", train, rng)
    write_validation(args, claims, split, index, nlp, pool, vitaminc_validation)
    print("split", dict(sorted(counts.items())))


def write_validation(args, claims, split, index, nlp, pool, vitaminc_validation: list[dict]) -> None:
    """The validation files; none draws on the training build's random stream, so ``--validation-only`` writes
    the same bytes as a whole build."""

    # each validation file draws on a stream of its own: a training generator added or changed, or a kind
    # added to the kinds file, leaves the other files as they were, so models trained on different pair
    # sets are compared on the same validation pairs
    def stream(name: str) -> random.Random:
        return random.Random(f"{args.seed}:validation:{name}")

    validation, validation_records = fever_pairs(claims, split, index, "validation", set())
    validation_gold = [r for r in validation if r["origin"] == "fever"]
    validation_edits = edited_pairs(validation_gold, validation_records, index, nlp, stream("edits"), pool)
    validation_kinds = failure_kind_pairs(validation_gold, nlp, stream("kinds"), per_kind=10_000)
    write_rows(args.work / "pairs_validation.jsonl", validation, stream("validation"))
    write_rows(args.work / "pairs_validation_edits.jsonl", validation_edits, stream("edits-order"))
    write_rows(args.work / "pairs_validation_kinds.jsonl", validation_kinds, stream("kinds-order"))
    if vitaminc_validation:
        write_rows(args.work / "pairs_validation_vitaminc.jsonl", vitaminc_validation, stream("vitaminc"))


if __name__ == "__main__":
    main()
