"""An encyclopedia article's HTML (a Kiwix ZIM's Wikipedia pages, as mwoffliner writes them) as sentences.

:func:`read_article` keeps what a reader of the page reads as its statements, in page order:

* the paragraphs and list items of the body, split into sentences by the same rules as the live Wikipedia
  server's plain text (:func:`split_paragraph`); reference marks (``[1]``), edit links, hidden spans,
  navigation boxes, hatnotes ("For other uses, see …"), figures and maintenance boxes are left out, and
  nothing from "See also" / "References" / "External links" and similar back matter on;
* the infobox rows that state a fact — born, died, capital, population and the like (:data:`INFOBOX_FACTS`) —
  each as a sentence about the page's subject ("Barack Obama was born August 4, 1961 Honolulu, Hawaii,
  U.S."), where they stand on the page (before the lead).

It also says whether the page is a disambiguation page and, if so, which pages it lists. Parsing is lxml's
HTML parser (BSD-3-Clause), fast enough for a page in a few milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote

# Headings from which on a page holds no statements of its own (compared case-folded).
STOP_SECTIONS = frozenset(
    {
        "see also",
        "references",
        "external links",
        "notes",
        "further reading",
        "bibliography",
        "sources",
        "citations",
        "footnotes",
        "notes and references",
        "works cited",
    }
)

# Infobox labels that state a fact about the subject, and the sentence each becomes ({s}: the subject, {v}:
# the value). Labels are compared case-folded, without a trailing "(s)".
INFOBOX_FACTS: dict[str, str] = {
    "born": "{s} was born {v}.",
    "died": "{s} died {v}.",
    "resting place": "{s}'s resting place is {v}.",
    "nationality": "{s}'s nationality is {v}.",
    "citizenship": "{s}'s citizenship is {v}.",
    "occupation": "{s}'s occupation is {v}.",
    "spouse": "{s}'s spouse is {v}.",
    "children": "{s}'s children: {v}.",
    "parent": "{s}'s parents: {v}.",
    "alma mater": "{s}'s alma mater is {v}.",
    "political party": "{s}'s political party is {v}.",
    "capital": "The capital of {s} is {v}.",
    "largest city": "The largest city of {s} is {v}.",
    "capital and largest city": "The capital and largest city of {s} is {v}.",
    "official languages": "The official languages of {s} are {v}.",
    "official language": "The official language of {s} is {v}.",
    "population": "The population of {s} is {v}.",
    "currency": "The currency of {s} is {v}.",
    "founded": "{s} was founded {v}.",
    "founder": "{s}'s founder is {v}.",
    "headquarters": "{s}'s headquarters are in {v}.",
    "location": "{s} is located in {v}.",
    "country": "{s} is in {v}.",
    "genre": "{s}'s genre is {v}.",
    "released": "{s} was released {v}.",
    "release date": "{s} was released {v}.",
    "directed by": "{s} was directed by {v}.",
    "written by": "{s} was written by {v}.",
    "author": "{s}'s author is {v}.",
    "language": "{s}'s language is {v}.",
    "area": "The area of {s} is {v}.",
    "elevation": "The elevation of {s} is {v}.",
    "established": "{s} was established {v}.",
    "years active": "{s} was active {v}.",
}

_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st mt ft vs etc approx no nos vol fig inc ltd co corp gen col lt sgt capt gov sen "
    "rep rev hon ca cf al jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*\s+")
_OPENERS = "\"'“‘([¿¡"
_REFERENCE_MARK = re.compile(r"\[(?:\d+|[a-z]|note \d+|citation needed|clarification needed)\]", re.IGNORECASE)

# Elements whose text is never a statement of the page: scripts, reference marks, edit links, navigation and
# maintenance boxes, hatnotes, figures, the table of contents, hidden spans.
_DROP_XPATH = (
    "//script | //style | //noscript | //template | //sup[contains(concat(' ', normalize-space(@class), ' '),"
    " ' reference ')] | //*[contains(@class, 'mw-editsection')] | //*[contains(@class, 'navbox')]"
    " | //*[contains(@class, 'hatnote')] | //*[contains(@class, 'ambox')] | //*[contains(@class, 'metadata')]"
    " [not(contains(@class, 'dmbox'))] | //figure | //*[contains(@class, 'thumb ')] | //*[@id='toc']"
    " | //*[contains(@class, 'mw-references-wrap')] | //ol[contains(@class, 'references')]"
    " | //*[contains(@style, 'display:none') or contains(@style, 'display: none')] | //*[contains(@class, 'noprint')]"
)
_BLOCKS = {"p", "li", "dd", "h2", "h3", "h4", "h5", "h6"}


@dataclass
class Article:
    """What an article's HTML says: its sentences in page order, and whether it is a disambiguation page."""

    title: str
    sentences: list[str] = field(default_factory=list)
    disambiguation: bool = False
    options: list[str] = field(default_factory=list)  # for a disambiguation page: the link targets it lists


def collapse(text: str) -> str:
    return " ".join(text.split())


def _is_abbreviation(token: str) -> bool:
    word = token.lstrip(_OPENERS).casefold()
    if len(word) == 1 and word.isalpha():
        return True  # an initial: "J. R. R. Tolkien"
    if re.fullmatch(r"(?:[a-z]\.)+[a-z]", word):
        return True  # "U.S", "e.g", "i.e"
    return word in _ABBREVIATIONS


def split_paragraph(paragraph: str) -> list[str]:
    """One paragraph of prose as sentences: a boundary is ``.``, ``!`` or ``?`` (closing quotes and brackets
    kept) followed by a space and a capital, a digit or an opening quote, except after an initial or a
    common abbreviation ("Dr.", "U.S.", "Jan.")."""
    sentences, start = [], 0
    for match in _BOUNDARY.finditer(paragraph):
        following = paragraph[match.end() : match.end() + 1]
        if not following or not (following.isupper() or following.isdigit() or following in _OPENERS):
            continue
        if paragraph[match.start()] == ".":
            before = paragraph[start : match.start()].split()
            if before and _is_abbreviation(before[-1]):
                continue
        sentences.append(paragraph[start : match.end()].strip())
        start = match.end()
    tail = paragraph[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def _classes(element) -> str:
    return f" {element.get('class') or ''} ".casefold()


def _text(element) -> str:
    return collapse(_REFERENCE_MARK.sub("", element.text_content()))


def _infobox_label(label: str) -> str:
    label = re.sub(r"\(s\)$", "", collapse(label).casefold()).strip(" :")
    return label


def infobox_sentences(table, subject: str) -> list[str]:
    """The rows of an infobox that state a fact (:data:`INFOBOX_FACTS`), each as a sentence about ``subject``."""
    sentences = []
    for row in table.iter("tr"):
        header = row.find("th")
        data = row.find("td")
        if header is None or data is None:
            continue
        template = INFOBOX_FACTS.get(_infobox_label(_text(header)))
        if template is None:
            continue
        for br in data.iter("br"):  # line breaks separate parts of a value ("August 4, 1961 / Honolulu")
            br.tail = " " + (br.tail or "")
        for block in data.iter("div", "li"):
            block.tail = " " + (block.tail or "")
        value = _text(data).strip(" .;,")
        if value:
            sentences.append(template.format(s=subject, v=value))
    return sentences


def _is_disambiguation(root, title: str, sentences: list[str]) -> bool:
    if title.endswith("(disambiguation)"):
        return True
    if root.xpath("//*[@id='disambigbox'] | //*[contains(@class, 'dmbox-disambig')] | //*[@id='disambig']"):
        return True
    lead = " ".join(sentences[:2]).casefold()
    return bool(re.search(r"\bmay (?:also )?refer to\b", lead))


def _link_targets(root) -> list[str]:
    """The pages the list items link to (first link of each item), as ZIM paths, in page order."""
    targets: list[str] = []
    for item in root.iter("li"):
        for link in item.iter("a"):
            href = (link.get("href") or "").split("#", 1)[0]
            if not href or "://" in href or href.startswith(("mailto:", "/")):
                continue
            path = unquote(href.removeprefix("./").removeprefix("../").removeprefix("A/"))
            if path and path not in targets:
                targets.append(path)
            break
    return targets


def plain_article(text: str, title: str) -> Article:
    """A plain-text article (``text/plain`` in a ZIM): each non-empty line a paragraph, split into sentences."""
    sentences = [s for line in text.splitlines() if (paragraph := collapse(line)) for s in split_paragraph(paragraph)]
    return Article(title, sentences=sentences)


def read_article(html: str | bytes, title: str) -> Article:
    """The statements of one article's HTML, in page order (see the module's description)."""
    import lxml.html
    from lxml import etree

    if not html.strip():
        return Article(title)
    try:
        root = lxml.html.fromstring(html)
    except (etree.ParserError, ValueError):
        return Article(title)
    for element in root.xpath(_DROP_XPATH):
        if element.getparent() is not None:
            element.drop_tree()  # lxml.html keeps the text that followed it
    sentences: list[str] = []
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        tag = element.tag.casefold()
        if tag == "table" and "infobox" in _classes(element):
            sentences += infobox_sentences(element, title)
            continue
        if tag not in _BLOCKS:
            continue
        if tag.startswith("h"):
            if _text(element).casefold() in STOP_SECTIONS:
                break
            continue
        if _inside(element, {"table", "nav"}) or (tag == "p" and _inside(element, {"li"})):
            continue  # table cells and navigation are not prose; a paragraph in a list item is read with it
        if tag in {"li", "dd"} and _has_block_child(element):
            continue  # a list item holding a nested list: its items are read one by one
        text = _text(element)
        if text:
            sentences += split_paragraph(text)
    disambiguation = _is_disambiguation(root, title, sentences)
    return Article(
        title,
        sentences=sentences,
        disambiguation=disambiguation,
        options=_link_targets(root) if disambiguation else [],
    )


def _inside(element, tags: set[str]) -> bool:
    parent = element.getparent()
    while parent is not None:
        if isinstance(parent.tag, str) and parent.tag.casefold() in tags:
            return True
        parent = parent.getparent()
    return False


def _has_block_child(element) -> bool:
    return any(isinstance(c.tag, str) and c.tag.casefold() in {"ul", "ol", "dl"} for c in element)
