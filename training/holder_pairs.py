"""Holder pairs: a single-valued slot ("the capital of Y", "the first novel in Y", "directed by D") that the passage
gives to one subject, claimed of another.

"Toronto is the capital of Canada." against "Ottawa is the capital city of Canada." is refuted: a slot only one
thing can hold is held by another. So is "Tom Hanks directed Cast Away." against "Cast Away is a 2000 film directed
by Robert Zemeckis and starring Tom Hanks": the claimed name is in the passage, in another role. The other-subject
NOT ENOUGH INFO pairs teach that a passage about X says nothing of Z; without this shape the reader reads such a
refutation as silence, or, where the name is present, as support. From every sentence of the shared training text
that gives such a slot to a named holder ("X is/was the ROLE of/in Y", "Its ROLE is X", "X, the ROLE of Y", "W is
a film directed by D", "W is a novel by A"):

* ``reader-holder-supports`` -- the slot claimed of its holder, in each of its forms ("X is the capital of Y.",
  "The capital of Y is X."; "D directed W.", "W was directed by D.") -> SUPPORTS, the twins that keep the slot's
  words from deciding alone;
* ``reader-holder-refutes-named`` -- claimed of Z, a name of the holder's kind the passage gives after the slot,
  in another role (a largest city, an actor) -> REFUTES;
* ``reader-holder-refutes`` -- claimed of Z, a holder of a slot of the same kind elsewhere in the text that the
  passage does not name -> REFUTES;
* ``reader-holder-nei`` -- a loose claim about that same Z that many things can make true ("Z is a novel in Y"
  against "X is the first novel in Y"; "Z starred in W" against a film's directors) -> NOT ENOUGH INFO;
* ``reader-holder-loose-supports`` -- the loose claim about a name the passage makes it true of ("Tom Hanks starred
  in Cast Away." against "… directed by Robert Zemeckis and starring Tom Hanks") -> SUPPORTS, its twin;
* ``reader-holder-nei-place`` -- the holder's slot of another place or work of the kind ("Toronto is the capital of
  Canada." against "Toronto is the capital city of the Canadian province of Ontario.", "Robert Zemeckis directed
  Jaws." against Cast Away's sentence) -> NOT ENOUGH INFO: the passage does not say.

The slots kept are the ones only one thing (or the listed makers together) can hold: a capital, a county seat, an
office held now ("is the mayor of"; not "was"), an ordinal ("the second Duke of Florence", "the only child of"), a
superlative ("the largest city", "the highest point"), or the maker of a work (directed, written, composed,
designed, developed, created, published or painted by; "a novel by"). A superlative qualified after its place ("the
first race in Switzerland since 1954") is left out. Another subject is never a co-holder, a name written before the
slot (an alias: "Mumbai, also known as Bombay, is …"), a name sharing the holder's last word ("Christopher B.
Landon"), or a holder of a slot of the same place.

Text comes from the corpus pages allowed for training and from the evidence of the shared training files (Wikipedia
and web text with a licence a shipped model may learn from; ANLI is left out), plus the claims of their SUPPORTS
rows; pages and names that held-out evaluations touch are dropped as in ``build_pairs.py``. Slots whose place (or
work) hashes into ``VALIDATION_BUCKETS`` are written to ``pairs_validation_holder.jsonl`` for measuring, never for
training: the measured pairs ask of places and works training never saw.

    python -m training.holder_pairs --shared ../shared/data --work training/work --seed 13
"""

from __future__ import annotations

import collections
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language

from mermaid_verifier.agents.spacy_pipeline import load_pipeline
from mermaid_verifier.evaluation.datasets import hash_bucket
from mermaid_verifier.names import without_disambiguator
from mermaid_verifier.tools.corpus_index import Passage
from training.build_pairs import builder_parser, corpus_and_held_out, names_pattern, shared_rows, write_parts
from training.edits import mentions, plain_text
from training.reader_cases import MAX_CHARS, NEI, REFUTES, SUPPORTS, by_page, make_pair

_ORDINAL = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|only"
_SUPERLATIVE = (
    r"oldest|youngest|eldest|tallest|highest|longest|largest|biggest|smallest|deepest|busiest|earliest|"
    r"most populous|most visited|least populous|best-selling|highest-grossing|longest-running|longest-serving"
)
_MODIFIER = rf"(?:(?:{_ORDINAL})(?:[- ](?:{_SUPERLATIVE}|most [a-z]+|best))?|{_SUPERLATIVE})"
_NOUN = r"(?: [a-z][a-z-]*){0,3}?"
_OFFICE = (  # held by one at a time: taken only in the present tense ("was the mayor of" does not exclude others)
    r"(?:current |incumbent |reigning )?(?:president|vice president|prime minister|chief executive officer|CEO|"
    r"chairman|chairperson|mayor|governor|head coach|king|queen|monarch|premier|chancellor|first minister)"
)
_SEAT = r"county seat|seat|administrative (?:centre|center)|largest city and county seat"
_CAPITAL = r"capital(?: and (?:the )?(?:largest|most populous) city)?"
_ROLE = rf"(?P<role>(?P<mod>{_MODIFIER}|{_CAPITAL}|{_OFFICE}|{_SEAT})(?P<noun>{_NOUN}))"
_PROPER = r"[A-Z][\w.'’&-]*"
_NAME = rf"(?:The )?[A-Z0-9][\w.'’&-]*(?:(?: (?:of|the|and|de|la))* (?:{_PROPER}|[0-9]+)){{0,5}}"
_LINK = r"of|the|and|de|du|la|upon|on|state|province|county|region|district|borough|city|kingdom|republic|empire"
_PLACE = (  # ends on a name, or on a series' noun: "the U.S. state of Ohio", "the Gears of War series"
    rf"(?:the )?{_PROPER}(?:(?: (?:{_LINK}))* {_PROPER})*(?: (?:series|franchise|saga|trilogy|dynasty|family))?"
)
# A name ends at a mark, or at a word that starts another phrase; "the last county in Massachusetts to do so", "the
# first race in Switzerland since 1954" or "the third largest party in the Spanish parliament" are not taken.
_NEXT = r"and|with|from|by|after|behind|in|on|at|as|which|who|where|while|until|during|located|named|home|near"
_STOP = rf"(?=\.?(?:[,;:(]|\s+(?:{_NEXT})\b|\s*$))"
_VERB = r"(?P<verb>is|was)"
# "X is the ROLE of Y", "X (1519 - 1574) was the second Duke of Florence"
HOLDER_FIRST = re.compile(
    rf"^(?P<holder>{_NAME}|It|He|She)(?: \([^)]*\)| \[[^\]]*\])*(?:, [^,]{{1,60}},)? {_VERB} (?:also |currently |now |still )?the {_ROLE} "
    rf"(?P<prep>of|in) (?P<place>{_PLACE}){_STOP}"
)
# "Its capital is Ottawa", "The capital of Canada is Ottawa", "His youngest son was Esarhaddon"
ROLE_FIRST = re.compile(
    rf"^(?P<det>Its|Their|His|Her|The) {_ROLE}(?: (?P<prep>of|in) (?P<place>{_PLACE}))? {_VERB} "
    rf"(?P<holder>{_NAME}){_STOP}"
)
# "Nuuk, the capital of Greenland", "Bonn, then the capital of the Electorate of Cologne"
APPOSITIVE = re.compile(
    rf"(?:^|(?<=[\s(]))(?P<holder>{_PROPER}(?: (?:{_PROPER}|of|de|la|upon|on)){{0,4}}), "
    rf"(?P<verb>then |now |also )?the {_ROLE} (?P<prep>of|in) (?P<place>{_PLACE}){_STOP}"
)
# "Cast Away is a 2000 American film directed by Robert Zemeckis", "Moby-Dick is an 1851 novel by Herman Melville"
_MAKER = rf"{_PROPER}(?: (?:{_PROPER}|de|van|von|der|da|di|del|bin|al))*"
_DESCRIBED = (  # "by American writer Herman Melville", "by the British band Queen"
    r"(?:the )?(?:[A-Z][a-z]+(?:-[A-Z][a-z]+)? )*(?:[a-z]+ )?(?:writer|author|novelist|director|filmmaker|composer|"
    r"poet|playwright|artist|painter|journalist|screenwriter|cartoonist|illustrator|musician|singer|band|company|"
    r"studio|developer|publisher)"
)
AGENT_VERBS = {  # a maker's slot: active and passive verb
    "directed": ("directed", "directed"),
    "written": ("wrote", "written"),
    "composed": ("composed", "composed"),
    "designed": ("designed", "designed"),
    "developed": ("developed", "developed"),
    "created": ("created", "created"),
    "published": ("published", "published"),
    "painted": ("painted", "painted"),
}
WORK_MAKER = {"novel": "written", "novella": "written", "book": "written", "play": "written", "poem": "written"}
WORK_MAKER |= {"short story": "written", "opera": "composed", "symphony": "composed", "painting": "painted"}
MADE_BY = re.compile(
    rf"^(?P<work>{_NAME}|It)(?: \([^)]*\))?(?:, [^,]{{1,60}},)? (?:is|was) (?:an?|the) (?P<desc>[^.;()]{{0,120}}?)\b"
    rf"(?:(?P<verb>{'|'.join(AGENT_VERBS)}) by|(?P<noun>{'|'.join(WORK_MAKER)}) by) (?:{_DESCRIBED} )?"
    rf"(?P<makers>{_MAKER}(?:(?:, and |, | and ){_MAKER})*)(?=\.?(?:[,;:(]|\s+[a-z]|\s*$))"
)
CAST = re.compile(rf"\b(?:starring|stars|co-starring) (?P<cast>{_MAKER}(?:(?:, and |, | and ){_MAKER})*)")
PRONOUNS = {"It", "He", "She"}
VALIDATION_BUCKETS = range(0, 15)  # slots whose place (or work) hashes here are kept for measuring
OTHERS = 2  # other subjects drawn for each slot from holders of its kind
NAMED = {"GPE", "LOC", "FAC", "ORG", "PERSON", "NORP", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW"}  # kinds of holder
EVIDENCE_ORIGINS = {  # file -> origins whose evidence is real Wikipedia or web text (ANLI: non-commercial, left out)
    "fever_gold_pairs.jsonl": {"fever-shared-task-dev-gold"},
    "claim_evidence_pairs.jsonl": {
        "climate-fever",
        "feverous",
        "sufficientfacts-hover-original",
        "sufficientfacts-vitaminc-original",
        "factcheck-bench",
    },
    "contrastive_pairs.jsonl": {"vitaminc_real", "fool_me_twice_dev"},
}


@dataclass(frozen=True)
class Slot:
    """One single-valued slot a text fills: ``holder`` holds it (with ``co_holders``, who share it), ``place`` is what
    it is a slot of. ``forms`` are ways to claim it of someone ("{} is the capital of Canada.", "The capital of Canada
    is {}."); ``loose`` is a claim many could make true ("{} is a city of Canada."), or None."""

    holder: str
    co_holders: tuple[str, ...]
    forms: tuple[str, ...]
    loose: str | None
    loose_holders: tuple[str, ...]  # names the passage makes the loose claim true of (a film's cast)
    kind: str  # what holds the slot ("city", "novel", "directed"): other subjects are drawn from holders of its kind
    place: str
    title: str
    passage: str  # the text the pair shows (the sentence, or the row's evidence it came from)
    role_end: int  # where, in ``passage``, the slot's words end: a subject named after it is named in another role

    def claim(self, holder: str, rng: random.Random, place: str | None = None) -> str:
        return rng.choice(self.forms).format(h=holder, p=place or self.place)

    def loose_claim(self, holder: str) -> str | None:
        return None if self.loose is None else self.loose.format(h=holder, p=self.place)


def _braced(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _sentence(text: str) -> str:
    return text.removesuffix(".") + "."


def _noun(match: re.Match) -> str:
    noun = match["noun"].strip()
    if match["mod"].startswith("capital"):
        return "city"
    if re.fullmatch(_OFFICE + "|" + _SEAT, match["mod"]):
        return ""  # "Z is a mayor of Y" is no claim a passage leaves open
    first = noun.split()[0] if noun else ""
    if not noun or noun.endswith(("ed", "ing", "est")) or first.endswith("est") or first in {"and", "or", "most"}:
        return ""
    return noun


def _trimmed(name: str) -> str:
    return name if re.search(r"(?:\b[A-Z]\.)+$", name) else name.removesuffix(".")


def find_slot(sentence: str, title: str, passage: str, claimed: bool = False) -> Slot | None:
    """The single-valued slot ``sentence`` gives to a named holder, if it gives one (module doc). ``claimed``: the
    sentence is a claim ``passage`` supports, not a sentence of it."""
    base = without_disambiguator(title) if title else ""
    at = 0 if claimed else passage.find(sentence)
    if at < 0:
        return None
    first = claimed or at == 0  # "It" is the page's subject only where nothing comes before it
    if found := _agent_slot(sentence, base if first else "", passage, at, claimed):
        return found
    if match := HOLDER_FIRST.match(sentence):
        holder = match["holder"].strip()
        if holder in PRONOUNS:
            if not base or not first:
                return None
            holder = base
        place = match["place"].strip()
    elif match := ROLE_FIRST.match(sentence):
        holder = match["holder"].strip()
        if match["det"] == "The":
            if not match["place"]:
                return None
            place = match["place"].strip()
        else:
            if not base or match["place"] or not first:
                return None
            place = base
    elif (match := APPOSITIVE.search(sentence)) and not re.search(r"\bof (?:the )?$", sentence[: match.start()]):
        holder, place = match["holder"].strip(), match["place"].strip()  # "a sloop of the Navy, the second ship" no
    else:
        return None
    if re.fullmatch(_OFFICE, match["mod"]) and (match["noun"] or match["verb"] in {"was", "then "}):
        return None
    place, holder = _trimmed(place), _trimmed(holder)
    if holder.lower() in place.lower() or place.lower() in holder.lower() or len(holder) < 2:
        return None
    if len(place.split()) > 9 or len(holder.split()) > 7:
        return None
    verb = "was" if match["verb"] in {"was", "then "} else "is"
    role, prep, noun = match["role"].strip(), match["prep"] or "of", _noun(match)
    article = "an" if noun[:1] in {"a", "e", "i", "o", "u"} else "a"
    slot_words = _braced(f"{role} {prep}")
    return Slot(
        holder=holder,
        co_holders=(holder,),
        forms=(_sentence(f"{{h}} {verb} the {slot_words} {{p}}"), _sentence(f"The {slot_words} {{p}} {verb} {{h}}")),
        loose=_sentence(f"{{h}} {verb} {article} {_braced(f'{noun} {prep}')} {{p}}") if noun else None,
        loose_holders=(),
        kind=(noun or role).split()[-1],
        place=place,
        title=title,
        passage=passage,
        role_end=len(passage) if claimed else at + match.end("role"),  # a claim's slot: no other subject named
    )


def _agent_slot(sentence: str, base: str, passage: str, at: int, claimed: bool) -> Slot | None:
    """The maker of a work ("Cast Away is a 2000 film directed by Robert Zemeckis", "Moby-Dick is a novel by Herman
    Melville"): one slot, shared by the makers the sentence lists."""
    match = MADE_BY.match(sentence)
    if match is None:
        return None
    work = match["work"].strip()
    if work in PRONOUNS:
        if not base:
            return None
        work = base
    work = _trimmed(work)
    makers = _names(match["makers"])
    if not makers or len(work.split()) > 8 or any(len(m.split()) > 5 for m in makers):
        return None
    done = match["verb"] or WORK_MAKER[match["noun"]]
    active, passive = AGENT_VERBS[done]
    film = re.search(r"\b(?:film|movie|documentary|sitcom|television series|miniseries)\b", match["desc"] or "")
    return Slot(
        holder=makers[0],
        co_holders=makers,
        forms=(f"{{h}} {active} {{p}}.", f"{{p}} was {passive} by {{h}}."),
        loose="{h} starred in {p}." if film else None,
        loose_holders=_cast(passage) if film else (),
        kind=done,
        place=work,
        title=base,
        passage=passage,
        role_end=len(passage) if claimed else at + match.end("makers"),
    )


def _cast(passage: str) -> tuple[str, ...]:
    """The names a passage says star in its film ("… and starring Tom Hanks, Helen Hunt, and Nick Searcy")."""
    found = CAST.search(passage)
    return _names(found["cast"]) if found else ()


def _names(listed: str) -> tuple[str, ...]:
    """The names of a list as a sentence writes it ("A, B, and C", "A and B")."""
    return tuple(_trimmed(m) for m in re.split(r",? and |, ", listed.strip()) if m)


def sentences_of(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])(?<!\b[A-Z]\.)\s+(?=[A-Z])", text) if s]


def slots_in(items: list[tuple[str, str, str | None]]) -> list[Slot]:
    """Every slot in the (title, text, claim the text supports or None) items given, each slot once."""
    seen, out = set(), []
    for title, text, claim in items:
        passage = plain_text(text)
        if len(passage) > MAX_CHARS:
            continue
        found = [find_slot(s, title, passage) for s in sentences_of(passage)]
        if claim is not None:
            found.append(find_slot(plain_text(claim), title, passage, claimed=True))
        for slot in found:
            if slot is not None and (slot.holder, slot.forms, slot.place) not in seen:
                seen.add((slot.holder, slot.forms, slot.place))
                out.append(slot)
    return out


def _holder_label(nlp_ents: tuple[tuple[str, str, int], ...], holder: str) -> str | None:
    for label, text, _ in nlp_ents:
        if text == holder or holder.endswith(text) or text.endswith(holder):
            return label
    return None


def _mentioned(name: str, text: str) -> bool:
    return mentions(text.lower(), name)


def holder_pairs(slots: list[Slot], nlp: Language, rng: random.Random) -> list[dict]:
    """The supporting twin, the refuting pairs and the loose NOT ENOUGH INFO pair of every slot (module doc)."""
    texts = sorted({s.passage for s in slots} | {s.holder for s in slots})
    ents = {
        text: tuple((e.label_, e.text, e.start_char) for e in doc.ents)
        for text, doc in zip(texts, nlp.pipe(texts, batch_size=256))
    }
    labels = {}
    for slot in slots:
        labels[slot] = _holder_label(ents[slot.passage], slot.holder) or _holder_label(ents[slot.holder], slot.holder)
    by_kind = collections.defaultdict(set)  # holders of such slots, by kind: the other subjects a claim may name
    places = collections.defaultdict(set)  # the places each holder holds a slot of: an alias may hold the same
    places_of = collections.defaultdict(set)  # the places of each kind of slot
    for slot in slots:
        places_of[slot.kind].add(slot.place)
        for holder in slot.co_holders:
            places[holder].add(slot.place.lower())
        if labels[slot] in NAMED:
            by_kind[labels[slot], slot.kind].update(slot.co_holders)
    out = []
    for slot in slots:
        label = labels[slot]
        if label not in NAMED:
            continue
        passage = Passage("holder", "holder", None, slot.title, slot.passage, "holder")

        def another(name: str, s: Slot = slot) -> bool:
            """Not a holder of the slot, nor a shorter or longer form of one ("Christopher B. Landon"), nor its
            place."""
            last = name.split()[-1].lower()
            return not any(
                _mentioned(name, h) or _mentioned(h, name) or h.split()[-1].lower() == last for h in s.co_holders
            ) and not (_mentioned(name, s.place) or _mentioned(s.place, name))

        for form in slot.forms:  # each way of claiming it: the slot's words alone never decide
            out.append(
                make_pair(form.format(h=slot.holder, p=slot.place), [passage], SUPPORTS, "reader-holder-supports")
            )
        named = sorted(
            {
                text
                for lab, text, start in ents[slot.passage]
                if lab == label
                and start >= slot.role_end
                and another(text)
                and not re.search(r"\([^)]*$", slot.passage[:start])  # not inside parentheses (an alias)
            }
        )
        if named and slot.kind in AGENT_VERBS:  # a second "directed" or "co-wrote" may name another maker
            active, passive = AGENT_VERBS[slot.kind]
            said = re.findall(rf"\b(?:co-)?(?:{active}|{passive}|co-{active[:-1]})", slot.passage.lower())
            named = named if len(said) == 1 else []
        for other in rng.sample(named, min(OTHERS, len(named))):  # the shape a reader misses most: every form
            for form in slot.forms:
                claim = form.format(h=other, p=slot.place)
                out.append(make_pair(claim, [passage], REFUTES, "reader-holder-refutes-named"))
        elsewhere = sorted(
            h
            for h in by_kind[label, slot.kind]
            if another(h) and not _mentioned(h, slot.passage) and slot.place.lower() not in places[h]
        )
        for n, other in enumerate(rng.sample(elsewhere, min(OTHERS, len(elsewhere)))):
            out.append(make_pair(slot.claim(other, rng), [passage], REFUTES, "reader-holder-refutes"))
            if n == 0 and (claim := slot.loose_claim(other)) is not None:  # one a slot: as many as its twins
                out.append(make_pair(claim, [passage], NEI, "reader-holder-nei"))
        # the loose claim's twin: made true by a name the passage gives ("Tom Hanks starred in Cast Away."), so
        # the loose wording alone never decides
        cast = [h for h in slot.loose_holders if another(h)]
        for actor in rng.sample(cast, min(OTHERS, len(cast))):
            out.append(make_pair(slot.loose_claim(actor), [passage], SUPPORTS, "reader-holder-loose-supports"))
        # the holder's slot of another place: "Toronto is the capital of Canada." against "Toronto is the capital
        # city of the Canadian province of Ontario." The passage does not say; a city may be the capital of two
        elsewhere = sorted(
            w
            for w in places_of[slot.kind]
            if not (_mentioned(w, slot.passage) or _mentioned(w, slot.place) or _mentioned(slot.place, w))
            and w.lower() not in places[slot.holder]
        )
        if elsewhere:
            claim = slot.claim(slot.holder, rng, place=rng.choice(elsewhere))
            out.append(make_pair(claim, [passage], NEI, "reader-holder-nei-place"))
    return [{k: v for k, v in p.items() if k != "pages"} for p in out]


def part_of(slot: Slot) -> str:
    """ "validation" where the slot's place hashes into ``VALIDATION_BUCKETS``: every slot of a place falls in one
    part, so the measured pairs ask of places training never saw."""
    return "validation" if hash_bucket(slot.place.lower().removeprefix("the ")) in VALIDATION_BUCKETS else "train"


def evidence_rows(shared: Path) -> list[dict]:
    """Distinct (claim, evidence, title) rows of the shared training files whose evidence is Wikipedia or web text
    under a licence a shipped model may learn from, whatever their label: a slot is read from the evidence alone."""
    seen, out = set(), []
    for row, title in shared_rows(shared, EVIDENCE_ORIGINS):
        if (title, row["evidence"]) not in seen:
            seen.add((title, row["evidence"]))
            supported = row["claim"] if row["label"] == SUPPORTS else None
            out.append({"claim": row["claim"], "evidence": row["evidence"], "title": title, "supports": supported})
    return out


def main() -> None:
    parser = builder_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    nlp = load_pipeline()
    index, _, kept_out = corpus_and_held_out(args.shared)
    allowed = {p.page for p in index.passages} - kept_out.pages
    names = names_pattern(kept_out.titles)
    items = [
        (p.title, p.text, None) for page, ps in sorted(by_page(index.passages).items()) if page in allowed for p in ps
    ]
    items += [
        (r["title"], r["evidence"], r["supports"])
        for r in evidence_rows(args.shared)
        if r["title"] not in kept_out.titles and (names is None or not names.search(r["claim"] + " " + r["evidence"]))
    ]
    slots = [s for s in slots_in(items) if names is None or not names.search(s.holder + " " + s.place)]
    print(f"slots {len(slots)} in {len(items)} texts, {time.monotonic() - started:.0f} s")
    write_parts(args.work, "holder", slots, part_of, lambda chosen, rng: holder_pairs(chosen, nlp, rng), args.seed)
    print(f"holder pairs written in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
