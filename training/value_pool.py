"""Value-elsewhere pairs from the shared training files: the claim's value present in the passage in another role.

``reader_slots.value_elsewhere`` makes this shape only from claims whose gold sentence is in the bundled corpus,
and the corpus holds few of them (a few dozen pairs). The shared training files hold several hundred more
SUPPORTS claims whose evidence binds a value to a single-valued slot (``reader_slots.bound_value``: "born in
1879", "located in Ulm", "the capital of X is Y"), each with its evidence text. From each such claim, the value
is changed to another of its kind that a passage names in another role:

* ``reader-value-pool-refutes`` -- the evidence with a sentence naming the new value -> REFUTES: the slot is
  stated and holds the original ("Toronto is the capital of Canada" against "Its capital is Ottawa and its largest
  cities are Toronto, Montreal and Vancouver"). The new value comes from the evidence itself where it names one
  ("born in 1921" against "born in 1879 … the 1921 Nobel Prize"), else from a sentence of another corpus page that
  retrieval ranks high for the claim, does not name the claim's subject and states no such slot;
* ``reader-value-pool-supports`` -- the claim as written against the same passage -> SUPPORTS: the refuting
  pair's twin, so that the value's binding decides, not another value's presence ("Annie Hall was released in
  1977" against "… Annie Hall (1977) and Manhattan (1979)");
* ``reader-value-pool-nei`` -- that other page's sentence alone -> NOT ENOUGH INFO: the value is present, the slot
  is not stated.

Sources: FEVER shared-task dev gold pairs outside ``paper_dev``, FEVEROUS, SufficientFacts HoVer and VitaminC (full
evidence), Factcheck-Bench, VitaminC real and Fool-Me-Twice (ANLI is left out: non-commercial). Claims naming a
held-out page (``build_pairs.py``'s evaluation pages, ``paper_test_rest``'s evidence pages, the contrast set's
pages) and evidence titled by one are dropped; other-page sentences come only from pages allowed for training.
Claims whose evidence title (or, untitled, whose claim) hashes into ``VALIDATION_BUCKETS`` are written to
``pairs_validation_value.jsonl`` for measuring, never for training.

    python -m training.value_pool --shared ../shared/data --work training/work --seed 13
"""

from __future__ import annotations

import collections
import random
import re
import time
from pathlib import Path

from spacy.language import Language

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from mermaid_verifier.evaluation.datasets import hash_bucket
from mermaid_verifier.tools.corpus_index import CorpusIndex, Passage
from training.build_pairs import builder_parser, corpus_and_held_out, names_pattern, shared_rows, write_rows
from training.edits import evidence_text, mentions, replace_span
from training.nei_pairs import about_words, claim_words
from training.reader_cases import (
    MIN_WORDS,
    NEI,
    REFUTES,
    SUPPORTS,
    by_page,
    fits,
    make_pair,
    names_page,
    near_duplicate,
    sentence_entities,
)
from training.reader_slots import COUNTRY_NAMES, YEAR, bound_value, exclusive, other_values
from training.synthesize import simple_claim

REPO = Path(__file__).resolve().parents[1]
VALIDATION_BUCKETS = range(0, 12)  # claims whose key hashes here are kept for measuring
POOL_ORIGINS = {  # file -> origins whose SUPPORTS rows carry the claim's full evidence
    "fever_gold_pairs.jsonl": {"fever-shared-task-dev-gold"},
    "claim_evidence_pairs.jsonl": {
        "feverous",
        "sufficientfacts-hover-original",
        "sufficientfacts-vitaminc-original",
        "factcheck-bench",
    },
    "contrastive_pairs.jsonl": {"vitaminc_real", "fool_me_twice_dev"},
}
HITS = 12  # retrieval hits read for a sentence of another page
# Places that hold many others: a town's slot "born in Cookstown" does not exclude "born in the UK" or "in Ohio".
# A swap to or from one of these (or a country) is made only between two countries.
_WIDE = {
    "uk", "u.k.", "us", "u.s.", "usa", "u.s.a.", "united states", "america", "britain", "great britain",
    "northern ireland", "africa", "asia", "europe", "north america", "south america", "oceania", "antarctica",
    "australia", "the middle east", "middle east", "scandinavia", "the caribbean", "caribbean", "latin america",
    "alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut", "delaware", "florida",
    "georgia", "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas", "kentucky", "louisiana", "maine",
    "maryland", "massachusetts", "michigan", "minnesota", "mississippi", "missouri", "montana", "nebraska", "nevada",
    "new hampshire", "new jersey", "new mexico", "new york", "north carolina", "north dakota", "ohio", "oklahoma",
    "oregon", "pennsylvania", "rhode island", "south carolina", "south dakota", "tennessee", "texas", "utah",
    "vermont", "virginia", "washington", "west virginia", "wisconsin", "wyoming", "ontario", "quebec",
    "british columbia", "alberta", "bavaria", "tamil nadu", "kerala", "punjab", "siberia", "lancashire", "yorkshire",
}  # fmt: skip
_WIDE |= {country.lower() for country in COUNTRY_NAMES}


def _wide(place: str) -> bool:
    name = place.lower().removeprefix("the ")
    return name in _WIDE


def clean_swap(value: str, other: str, label: str) -> bool:
    """Whether swapping ``value`` for ``other`` surely changes a single-valued slot: two years, two countries, or
    two places (GPE) of which neither is wide (``_WIDE``, a country); a region (LOC) is never swapped."""
    if YEAR.fullmatch(value):
        return True
    if label != "GPE":
        return False
    return _wide(value) == _wide(other) and (not _wide(value) or value.lower() != other.lower())


CUE_REACH = 30  # characters after a slot word, in its sentence, within which a value may fill that slot


def near_cue(value: str, text: str, cues: set[str]) -> bool:
    """Whether ``value`` is written within ``CUE_REACH`` characters after a word stating the slot: there it may be
    the slot's own value (a village inside the town the claim named), so swapping it in need not make the claim
    false. "Its capital is Ottawa and its three largest metropolitan areas are Toronto": Toronto is far from it."""
    lowered = text.lower()
    for cue in cues:
        for found in re.finditer(rf"\b{re.escape(cue)}\b", lowered):
            for at in re.finditer(re.escape(value.lower()), lowered):
                between = lowered[found.end() : at.start()]
                if 0 <= len(between) <= CUE_REACH and ". " not in between and ";" not in between:
                    return True
    return False


def pool_rows(shared: Path) -> list[dict]:
    """Distinct SUPPORTS (claim, evidence, title, origin) rows of the pool files, in file order."""
    seen, out = set(), []
    for row, title in shared_rows(shared, POOL_ORIGINS):
        key = (row["claim"], row["evidence"])
        if row["label"] == SUPPORTS and key not in seen:
            seen.add(key)
            out.append({"claim": row["claim"], "evidence": row["evidence"], "title": title, "origin": row["origin"]})
    return out


def written_claims(rows: list[dict], sentences: list[Passage], nlp: Language) -> list[dict]:
    """``synthesize.simple_claim``'s short SUPPORTS claims, written from the corpus sentences given (pages allowed for
    training) and from the first sentence of each pool row's evidence: the claim, its sentence as evidence."""
    items = [(p.title, p.text, p) for p in sentences if len(p.text.split()) >= MIN_WORDS]
    items += [(r["title"], r["evidence"].split(" . ")[0], None) for r in rows]
    out, seen = [], set()
    for (title, text, passage), doc in zip(items, nlp.pipe([text for _, text, _ in items], batch_size=256)):
        claim = simple_claim(doc, title)
        if claim and claim[0].isupper() and claim not in seen:
            seen.add(claim)
            origin = "written-corpus" if passage else "written-pool"
            out.append({"claim": claim, "evidence": text, "title": title, "origin": origin, "passage": passage})
    return out


def part_of(row: dict) -> str:
    return part_for(row["title"] or row["claim"])  # a corpus page's sentences fall in one part


def part_for(key: str) -> str:
    """ "validation" where ``key`` (a title, or a claim where untitled) hashes into ``VALIDATION_BUCKETS``."""
    return "validation" if hash_bucket(key) in VALIDATION_BUCKETS else "train"


def pool_pairs(
    rows: list[dict],
    nlp: Language,
    index: CorpusIndex,
    pages: dict[str, list[Passage]],
    allowed: set[str],
    rng: random.Random,
) -> list[dict]:
    """The REFUTES pairs and their SUPPORTS twins, and the NOT ENOUGH INFO pairs, of every row whose evidence binds
    the claim's value (module doc)."""
    docs = dict(zip([r["claim"] for r in rows], nlp.pipe([r["claim"] for r in rows], batch_size=256)))
    found = []
    for i, row in enumerate(rows):
        doc = docs[row["claim"]]
        bound = bound_value(doc, row["title"])
        if bound is not None and mentions(evidence_text(row["evidence"]), bound[0].text):
            passage = row.get("passage") or Passage(
                f"pool:{i}", f"pool:{i}", None, row["title"], row["evidence"], "pool"
            )
            found.append((row, doc, bound, passage))
    hits = {}
    for row, _, _, _ in found:
        hits[row["claim"]] = [
            p
            for p, _ in index.search(row["claim"], k=HITS)
            if p.page in allowed
            and len(pages.get(p.page, [])) >= 2
            and (row.get("passage") is None or p.page != row["passage"].page)
        ]
    neighbours = {}  # a corpus sentence's page neighbours: another value may sit next to it
    for row, _, _, passage in found:
        if row.get("passage") is not None:
            page = pages[passage.page]
            at = next(j for j, p in enumerate(page) if p.id == passage.id)  # by_page's own Passage
            near = [page[j] for j in (at - 1, at + 1) if 0 <= j < len(page)]
            neighbours[passage.id] = [p for p in near if not near_duplicate(p, passage)]
    texts = {passage.text for *_, passage in found} | {p.text for ps in hits.values() for p in ps}
    texts |= {p.text for ps in neighbours.values() for p in ps}
    entities = sentence_entities(nlp, sorted(texts))
    out = []
    for row, doc, (ent, cues), evidence in found:
        about = about_words(doc, row["title"])

        def quiet(p: Passage, e=ent, c=cues) -> bool:
            text = evidence_text(p.text)
            return not mentions(text, e.text) and not (claim_words(text) & c)

        def swaps(
            sentences: list[Passage], context: list[Passage], e=ent, a=about, c=cues
        ) -> list[tuple[str, Passage]]:
            return [
                v
                for v in other_values(e, sentences, entities, a)
                if exclusive(e.text, v[0], context)
                and clean_swap(e.text, v[0], e.label_)
                and all(lab in {"GPE", "DATE"} for lab, t in entities[v[1].text] if t == v[0])
                and not near_cue(v[0], v[1].text, c)
            ]

        values = swaps([evidence], [evidence])
        stretch, nei = [evidence], None
        for near in neighbours.get(evidence.id, []) if not values else []:
            joint = sorted([evidence, near], key=lambda p: p.line or 0)
            named = swaps([near], joint)
            if named and fits(joint):
                stretch, values = joint, named
                break
        subject = row["title"] or " ".join(t.text for t in doc[ent.sent.start : ent.start] if not t.is_stop)
        for hit in hits[row["claim"]]:
            named = swaps([hit], [evidence, hit]) if quiet(hit) else []
            if not named or names_page(subject, [hit]):
                continue
            nei = named[0]
            if not values and fits([evidence, hit]):
                stretch = [evidence, hit] if rng.random() < 0.5 else [hit, evidence]
                values = named[:1]
            break
        meta = {"source_origin": row["origin"]}
        if values and fits(stretch):
            new, _ = rng.choice(values)
            pair = make_pair(replace_span(doc, ent.start, ent.end, new), stretch, REFUTES, "reader-value-pool-refutes")
            out.append(pair | {"title": evidence.title} | meta)
            # its twin: the claim as written against the same passage, so the value's binding is what decides
            twin = make_pair(row["claim"], stretch, SUPPORTS, "reader-value-pool-supports")
            out.append(twin | {"title": evidence.title} | meta)
        if nei is not None:
            new, sentence = nei
            pair = make_pair(replace_span(doc, ent.start, ent.end, new), [sentence], NEI, "reader-value-pool-nei")
            out.append(pair | meta)
    return [{k: v for k, v in p.items() if k != "pages"} for p in out]


def main() -> None:
    parser = builder_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    nlp = load_pipeline()
    index, _, kept_out = corpus_and_held_out(args.shared)
    allowed = {p.page for p in index.passages} - kept_out.pages
    held_out_titles = kept_out.titles
    names = names_pattern(held_out_titles)
    pages = by_page(index.passages)

    rows = [
        r
        for r in pool_rows(args.shared)
        if r["title"] not in held_out_titles and (names is None or not names.search(r["claim"] + " " + r["evidence"]))
    ]
    print(f"pool rows {len(rows)}, {time.monotonic() - started:.0f} s")
    rows += written_claims(rows, [p for page, ps in sorted(pages.items()) if page in allowed for p in ps], nlp)
    print(f"with written claims {len(rows)}, {time.monotonic() - started:.0f} s")
    for part, name in (("train", "pairs_train_value.jsonl"), ("validation", "pairs_validation_value.jsonl")):
        chosen = [r for r in rows if part_of(r) == part]
        pairs = pool_pairs(chosen, nlp, index, pages, allowed, random.Random(f"{args.seed}:value-pool:{part}"))
        write_rows(args.work / name, pairs, random.Random(f"{args.seed}:value-pool:{part}:order"))
        print(" ", dict(sorted(collections.Counter((r["source_origin"], r["label"]) for r in pairs).items())))
    print(f"value-pool pairs written in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
