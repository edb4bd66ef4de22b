"""Other-value pairs: a slot many values can fill, claimed with a value the passage does not give -> NOT ENOUGH INFO.

A person has more than one occupation, an actor more than one film. A passage that names one of them says nothing of
another: "Marcus Bentley is a farmer." against "Marcus Bentley is a British actor and voice-over artist" is not
settled, and neither is "Justin Chatwin appeared in The X-Files." against a list of his other roles. A reader that
treats every slot as single-valued reads such claims as refuted; the value pairs (``training/value_pool.py``) and
holder pairs (``training/holder_pairs.py``) teach the single-valued slots, and nothing taught the other kind. From
each SUPPORTS pair of the given pair files whose claim is one such slot of its subject ("X is/was a/an [modifiers]
OCCUPATION.", "NAME starred/appeared/acted in W."):

* ``reader-other-value-nei`` -- the same evidence, the claim with the slot's value changed to another of its kind
  that the evidence does not name (an occupation of another group, a work from another pair's claim)
  -> NOT ENOUGH INFO;
* ``reader-other-value-supports`` -- the claim as written against the same evidence -> SUPPORTS, the twin that
  keeps the slot's words from deciding alone.

Occupations come in groups of near kinds ("singer", "vocalist", "musician", "songwriter"; "writer", "author",
"novelist"): a new occupation is drawn from a group the claim's occupation is not in and none of whose words (or
their stems) the evidence holds, so that "X is a musician" never stands against "X is a singer". Occupations that
span groups ("artist", "entertainer", "personality") are never drawn. A work is drawn from another pair's claim of
that shape whose subject is a name (not "His work appeared in The New York Times."), and kept only if no word of it
longer than three letters is in the evidence or in the claim's subject. A band, duo or other group is never given a
person's occupation (another occupation refutes such a claim rather than leaves it open), and no page (or, untitled,
no subject) gives more than ``MAX_PER_PAGE`` pairs.
(Spouses and collaborators drawn the same way from the training files gave a few dozen pairs, most of them
ill-typed -- a company or a rapper as a spouse -- and are left out.)

The pair files read are training files already cleared of held-out pages. Pairs whose title (or, untitled, whose
claim as written) hashes into ``value_pool.VALIDATION_BUCKETS`` are written to the validation file with their twins,
never for training:

    python -m training.other_value_pairs training/runs/NAME/pairs/pairs_train_reader.jsonl \\
        training/runs/NAME/pairs/pairs_train.jsonl --seed 46 --out training/runs/RUN/other

The draw is seeded and rows follow the files' order, so the same files, options and seed write the same bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from pathlib import Path

from training.reader_cases import NEI, SUPPORTS
from training.value_pool import part_for

OCCUPATION_GROUPS: tuple[tuple[str, ...], ...] = (
    ("actor", "actress", "performer", "voice actor"),
    (
        "singer",
        "vocalist",
        "musician",
        "songwriter",
        "singer-songwriter",
        "rapper",
        "composer",
        "instrumentalist",
        "guitarist",
        "drummer",
        "bassist",
        "pianist",
        "keyboardist",
        "violinist",
        "disc jockey",
        "dj",
        "band",
    ),
    ("writer", "author", "novelist", "poet", "playwright", "screenwriter", "essayist", "lyricist"),
    ("journalist", "reporter", "columnist", "editor", "broadcaster", "presenter", "host", "anchor"),
    ("director", "filmmaker", "producer", "film producer", "record producer"),
    ("politician", "diplomat", "statesman", "senator", "governor", "mayor", "legislator", "member of parliament"),
    ("lawyer", "attorney", "judge", "barrister", "jurist"),
    ("businessman", "businesswoman", "entrepreneur", "executive", "investor", "businessperson"),
    ("farmer", "rancher"),
    ("chef", "cook", "restaurateur"),
    ("physician", "doctor", "surgeon", "nurse"),
    ("teacher", "professor", "academic", "scholar", "lecturer", "educator"),
    ("physicist", "chemist", "biologist", "scientist", "mathematician", "astronomer", "researcher"),
    ("engineer", "inventor"),
    ("architect",),
    ("painter", "sculptor", "illustrator", "cartoonist", "photographer", "designer"),
    ("model", "fashion model"),
    ("comedian", "comic", "humorist"),
    ("dancer", "choreographer"),
    ("soldier", "officer", "general"),
    ("pilot", "aviator", "astronaut"),
    ("priest", "minister", "bishop", "cleric", "theologian"),
    ("economist",),
    ("philosopher",),
    ("historian",),
    ("psychologist", "psychiatrist"),
    (
        "footballer",
        "athlete",
        "boxer",
        "wrestler",
        "cricketer",
        "swimmer",
        "cyclist",
        "sprinter",
        "skater",
        "golfer",
        "racing driver",
        "driver",
        "coach",
        "player",
        "basketball player",
        "tennis player",
    ),
)
# drawn as a new value: plain, ungendered occupations only
DRAWN = (
    "actor",
    "singer",
    "songwriter",
    "drummer",
    "pianist",
    "novelist",
    "poet",
    "playwright",
    "journalist",
    "columnist",
    "film producer",
    "politician",
    "diplomat",
    "lawyer",
    "judge",
    "entrepreneur",
    "farmer",
    "chef",
    "physician",
    "surgeon",
    "nurse",
    "teacher",
    "professor",
    "physicist",
    "chemist",
    "biologist",
    "mathematician",
    "engineer",
    "architect",
    "painter",
    "sculptor",
    "photographer",
    "model",
    "comedian",
    "dancer",
    "soldier",
    "pilot",
    "astronaut",
    "priest",
    "economist",
    "philosopher",
    "historian",
    "psychologist",
    "footballer",
    "boxer",
    "wrestler",
    "cricketer",
    "swimmer",
    "golfer",
    "racing driver",
)
# a group of people is not one person: "Razorlight is an English band." made "... an English poet." is refuted, not
# open, so a claim naming one of these words is left alone
GROUP_WORDS = {"band", "group", "duo", "trio", "quartet", "orchestra", "ensemble", "choir"}
# spanning occupations: a claim of them is read, but none is drawn or used to pick a group
SPANNING = {"artist", "entertainer", "personality", "celebrity", "figure", "person", "professional"}
GROUP_OF = {word: index for index, group in enumerate(OCCUPATION_GROUPS) for word in group}

OCCUPATION = re.compile(
    r"^(?P<subject>[A-Z][^,.]{1,60}?) (?P<verb>is|was) (?P<article>an?) (?P<mods>(?:[A-Za-z-]+ ){0,3}?)"
    r"(?P<noun>[a-z]+(?:[ -][a-z]+)?)\.$"
)
ACTED = re.compile(
    r"^(?P<subject>[A-Z][^,.]{1,60}?) (?P<verb>starred|appeared|acted|has appeared|has starred)"
    r" in (?P<value>[A-Z][\w'&:-]*(?: (?:of|the|and|in|[A-Z0-9][\w'&:-]*)){0,6})\.$"
)
# a named subject: capitalised words, with the particles of names between them ("Ludwig van Beethoven")
NAMED = re.compile(r"^[A-Z][\w.'-]*(?: (?:[A-Z][\w.'-]*|de|van|von|der|da|di|du|del|la|le|bin|al))*$")
PRONOUNS = {"He", "She", "It", "They", "His", "Her", "Its", "Their"}
MAX_CLAIM_CHARS = 200
# at most this many pairs from one page (or, untitled, one subject), so that no page is drawn over and over
MAX_PER_PAGE = 3


def _stem(word: str) -> str:
    """A word's stem for the evidence test: "singer" -> "sing", "novelist" -> "novel", "actress" -> "act"."""
    for ending in ("ress", "ist", "er", "or", "ian", "ant"):
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


def names_group(group: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` names any word of ``group``, or a word sharing one's stem ("sings" for "singer")."""
    lowered = text.lower()
    for word in group:
        for part in word.split():
            if re.search(rf"\b{re.escape(_stem(part))}", lowered):
                return True
    return False


def occupation_edit(claim: str, evidence: str, rng: random.Random) -> str | None:
    """The claim with its occupation changed to one the evidence does not name, or None."""
    match = OCCUPATION.match(claim)
    if match is None or "professional" in match["mods"]:
        return None
    if GROUP_WORDS & set(f"{match['mods']} {match['noun']}".replace("-", " ").split()):
        return None
    noun = match["noun"]
    if noun not in GROUP_OF and noun not in SPANNING:
        return None
    own = {GROUP_OF[noun]} if noun in GROUP_OF else set()
    if noun in SPANNING:  # an artist may be of any art: draw only outside the arts
        own |= {GROUP_OF[w] for w in ("actor", "singer", "writer", "painter", "comedian", "dancer", "model")}
    choices = [
        word
        for word in DRAWN
        if GROUP_OF[word] not in own
        and not names_group(OCCUPATION_GROUPS[GROUP_OF[word]], evidence)
        and not names_group(OCCUPATION_GROUPS[GROUP_OF[word]], match["subject"])
    ]
    if not choices:
        return None
    new = rng.choice(choices)
    mods = match["mods"]
    first = (mods or new)[0].lower()
    article = "an" if first in "aeiou" else "a"
    return f"{match['subject']} {match['verb']} {article} {mods}{new}."


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z0-9']+", text) if len(w) > 3}


def acted_claim(claim: str) -> re.Match | None:
    """The match of a claim "NAME starred/appeared/acted in W.", its subject a name, or None ("His work appeared in
    The New York Times." names no actor, and what it appeared in is no work)."""
    match = ACTED.match(claim)
    if match is None or not NAMED.match(match["subject"]) or match["subject"].split()[0] in PRONOUNS:
        return None
    return match


def value_edit(match: re.Match, pool: list[str], evidence: str, rng: random.Random) -> str | None:
    """The claim with its work changed to one from ``pool`` that neither evidence nor subject names."""
    taken = _content_words(evidence) | _content_words(match["subject"]) | _content_words(match["value"])
    choices = [v for v in pool if v != match["value"] and not (_content_words(v) & taken) and _content_words(v)]
    if not choices:
        return None
    return f"{match['subject']} {match['verb']} in {rng.choice(choices)}."


def read_supports(paths: list[Path]) -> list[dict]:
    """The SUPPORTS rows of the pair files, in order, each (claim, evidence) once."""
    seen: set[tuple[str, str]] = set()
    rows = []
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                key = (row["claim"], row["evidence"])
                if row.get("label") == SUPPORTS and key not in seen and len(row["claim"]) <= MAX_CLAIM_CHARS:
                    seen.add(key)
                    rows.append(row)
    return rows


def pairs_of(rows: list[dict], rng: random.Random) -> tuple[list[dict], Counter]:
    """The NOT ENOUGH INFO pair and its SUPPORTS twin for each row a slot of which can take another value."""
    works = sorted({m["value"] for r in rows if (m := acted_claim(r["claim"]))})
    counts: Counter = Counter()
    per_page: Counter = Counter()
    out = []
    for row in rows:
        claim, evidence = row["claim"], row["evidence"]
        if match := OCCUPATION.match(claim):
            kind = "occupation"
        elif match := acted_claim(claim):
            kind = "work"
        else:
            continue
        page = row.get("title") or match["subject"]
        if per_page[page] >= MAX_PER_PAGE:
            counts[f"{kind} page drawn enough"] += 1
            continue
        if kind == "occupation":
            edit = occupation_edit(claim, evidence, rng)
        else:
            edit = value_edit(match, works, evidence, rng)
        counts[f"{kind} {'made' if edit else 'no value to draw'}"] += 1
        if edit is None:
            continue
        per_page[page] += 1
        base = {"title": row.get("title", ""), "evidence": evidence, "slot": kind}
        out.append({"claim": edit, **base, "label": NEI, "origin": "reader-other-value-nei"})
        out.append({"claim": claim, **base, "label": SUPPORTS, "origin": "reader-other-value-supports"})
    return out, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", type=Path, help="pair files whose SUPPORTS rows are read")
    parser.add_argument("--seed", type=int, default=46)
    parser.add_argument("--out", type=Path, required=True, help="folder for the train and validation files")
    args = parser.parse_args()
    rows = read_supports(args.pairs)
    pairs, counts = pairs_of(rows, random.Random(args.seed))
    args.out.mkdir(parents=True, exist_ok=True)
    parts: dict[str, list[dict]] = {"train": [], "validation": []}
    for nei, twin in zip(pairs[::2], pairs[1::2], strict=True):  # a pair and its twin go to one part, keyed on
        parts[part_for(twin["title"] or twin["claim"])] += [nei, twin]  # the page, or the claim as written
    for part, name in (("train", "pairs_train_other.jsonl"), ("validation", "pairs_validation_other.jsonl")):
        with (args.out / name).open("w", encoding="utf-8") as handle:
            for pair in parts[part]:
                handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    print(
        json.dumps(
            {
                "supports_read": len(rows),
                **dict(sorted(counts.items())),
                **{part: len(rows_) for part, rows_ in parts.items()},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
