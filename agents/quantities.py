"""Numbers read as quantities: a value with its scale word and unit, and what the claim says of it ("about",
"over", "under", a range), so that "about 8,849 metres" is found in "8,848.86 m" and "over 3 million" in
"3,200,000".

A claim's quantity is present in a passage when a quantity of the passage, in the same dimension (lengths in
metres, masses in kilograms; a bare number matches a bare number or any unit), is
* the claim's value written to the claim's precision (8,849 is 8,848.86 rounded; 1.5 million is 1,480,000 to
  one decimal of millions), or within 5 % of it where the claim hedges ("about", "around", "nearly", "roughly",
  "approximately", "some", "almost");
* above it for "over" / "more than" / "at least", below it for "under" / "less than" / "fewer than" / "at most"
  (a quantity of the same order of magnitude: "under 3 million" is not said of a year);
* inside a range the claim gives ("between 5 and 7", "5–7").
Years are numbers like any other: 1879 is only 1879.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
# unit -> (dimension, factor to the dimension's base unit)
UNITS = {
    "mm": ("length", 0.001), "millimetre": ("length", 0.001), "millimeter": ("length", 0.001),
    "cm": ("length", 0.01), "centimetre": ("length", 0.01), "centimeter": ("length", 0.01),
    "m": ("length", 1.0), "metre": ("length", 1.0), "meter": ("length", 1.0),
    "km": ("length", 1000.0), "kilometre": ("length", 1000.0), "kilometer": ("length", 1000.0),
    "in": ("length", 0.0254), "inch": ("length", 0.0254), "inches": ("length", 0.0254),
    "ft": ("length", 0.3048), "foot": ("length", 0.3048), "feet": ("length", 0.3048),
    "yd": ("length", 0.9144), "yard": ("length", 0.9144),
    "mi": ("length", 1609.344), "mile": ("length", 1609.344),
    "g": ("mass", 0.001), "gram": ("mass", 0.001), "kg": ("mass", 1.0), "kilogram": ("mass", 1.0),
    "t": ("mass", 1000.0), "tonne": ("mass", 1000.0), "lb": ("mass", 0.45359237), "pound": ("mass", 0.45359237),
    "km2": ("area", 1e6), "sq km": ("area", 1e6), "square kilometre": ("area", 1e6),
    "square kilometer": ("area", 1e6), "square mile": ("area", 2589988.110336), "sq mi": ("area", 2589988.110336),
    "%": ("percent", 1.0), "percent": ("percent", 1.0), "per cent": ("percent", 1.0),
}  # fmt: skip
ABOUT = ("about", "around", "approximately", "roughly", "nearly", "almost", "some", "circa", "approx", "c.", "~")
ABOVE = ("over", "more than", "above", "at least", "upwards of", "in excess of", "exceeding")
BELOW = ("under", "less than", "fewer than", "below", "at most", "up to")
APPROXIMATE_SHARE = 0.05

_UNIT_PATTERN = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
_NUMBER = r"\d[\d,]*(?:\.\d+)?|\d*\.\d+"
_QUANTITY = re.compile(
    rf"(?<![\w.])(?P<value>{_NUMBER})(?:\s*(?:-|–|—|to|and)\s*(?P<upper>{_NUMBER}))?"
    rf"(?:\s*(?P<scale>{'|'.join(SCALES)}))?"
    rf"(?:\s*(?P<unit>{_UNIT_PATTERN})(?:e?s)?(?![\w]))?",
    re.IGNORECASE,
)
_BEFORE = re.compile(r"([\w.~%]+(?:\s+[\w.~]+)?)\s*$")


@dataclass(frozen=True)
class Quantity:
    """A number as written: its value (scale word and unit applied), the dimension of its unit, the step its
    last written digit stands for (its precision), what is said of it, and the text it was read from."""

    value: float
    number: str  # the digits as written ("8,849")
    dimension: str | None
    step: float
    bound: str | None  # "about", "above", "below", "range", or None
    upper: float | None
    text: str
    upper_number: str | None = None  # the range's upper end as written
    span: tuple[int, int] = (0, 0)  # where ``text`` stands in the text read
    cue: str = ""  # the words that bound it as written ("about", "more than")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def _bound(before: str) -> str | None:
    words = before.lower().split()
    tail = " ".join(words[-2:])
    for name, cues in (("above", ABOVE), ("below", BELOW), ("about", ABOUT)):
        if any(tail == cue or tail.endswith(" " + cue) or (words and words[-1] == cue) for cue in cues):
            return name
    return None


def _cue(before: str, bound: str) -> str:
    """The words of ``before`` that bound the number ("more than", "about")."""
    cues = {"about": ABOUT, "above": ABOVE, "below": BELOW}[bound]
    lowered = before.lower()
    found = next((c for c in sorted(cues, key=len, reverse=True) if lowered.endswith(c)), "")
    return before[len(before) - len(found) :] if found else ""


def quantities(text: str) -> list[Quantity]:
    """Every number of ``text`` as a quantity, in order."""
    out = []
    for match in _QUANTITY.finditer(text):
        raw = match.group("value")
        if raw.endswith(","):
            raw = raw.rstrip(",")
        scale = SCALES.get((match.group("scale") or "").lower(), 1.0)
        unit = (match.group("unit") or "").lower()
        unit = unit if unit in UNITS else unit.rstrip("s") if unit.rstrip("s") in UNITS else ""
        if unit == "in":  # "in" after a number is far more often the preposition ("1879 in Ulm")
            unit = ""
        dimension, factor = UNITS.get(unit, (None, 1.0))
        value = _number(raw) * scale * factor
        step = 10 ** -_decimals(raw) * scale * factor
        upper = match.group("upper")
        before = _BEFORE.search(text[: match.start()])
        bound = "range" if upper else _bound(before.group(1) if before else "")
        end = match.end() if unit else max(match.end(g) for g in ("value", "upper", "scale") if match.group(g))
        cue = _cue(before.group(1), bound) if before and bound in {"about", "above", "below"} else ""
        out.append(
            Quantity(
                value=value,
                number=raw,
                dimension=dimension,
                step=step,
                bound=bound,
                upper=_number(upper) * scale * factor if upper else None,
                text=text[match.start() : end],
                upper_number=upper,
                span=(match.start(), end),
                cue=cue,
            )
        )
    return out


def holds(claim: Quantity, passage: Quantity) -> bool:
    """Whether the passage's quantity is what the claim says of its own (module docstring)."""
    if claim.dimension and passage.dimension and claim.dimension != passage.dimension:
        return False
    value = passage.value
    if passage.upper is not None and claim.bound != "range":  # a range in the passage: its ends
        return any(holds(claim, replace(passage, value=end, upper=None, bound=None)) for end in (value, passage.upper))
    if claim.bound in {"above", "below"}:  # of the same order of magnitude: "under 3 million" is not "in 2010"
        comparable = claim.value and 0.1 <= value / claim.value <= 10
        return bool(comparable) and (value > claim.value if claim.bound == "above" else value < claim.value)
    if claim.bound == "range" and claim.upper is not None:
        return claim.value <= value <= claim.upper
    if claim.bound == "about":
        return abs(value - claim.value) <= APPROXIMATE_SHARE * abs(claim.value) or _rounds_to(value, claim)
    return _rounds_to(value, claim)


def _rounds_to(value: float, claim: Quantity) -> bool:
    """``value`` written to the claim's precision is the claim's value (8,848.86 to whole metres is 8,849)."""
    return abs(value - claim.value) <= claim.step / 2 + 1e-9 * max(1.0, abs(claim.value))


def found_in(claim: Quantity, passage_quantities: list[Quantity]) -> Quantity | None:
    """The passage's quantity that holds the claim's, if any."""
    return next((q for q in passage_quantities if holds(claim, q)), None)


def aligned(claim: str, passage: str) -> str:
    """``passage`` with each quantity that holds one of the claim's (``holds``) written as the claim writes it,
    with its bound ("8,848.86 m" -> "about 8,849 metres" for "about 8,849 metres high"; "3,200,000" -> "over 3
    million" for "over 3 million"): what the reader is given to read, so that a value and its rounding, its bound or
    its unit read as the same value. The passage shown stays as written."""
    wanted = [q for q in quantities(claim) if q.bound != "range"]
    if not wanted:
        return passage
    out, last = [], 0
    for stated in quantities(passage):
        if stated.upper is not None:
            continue
        same = next((c for c in wanted if holds(c, stated)), None)
        if same is None or (same.text == stated.text and not same.cue):
            continue
        start, end = stated.span
        written = f"{same.cue} {same.text}" if same.cue else same.text
        out += [passage[last:start], written]
        last = end
    return "".join(out) + passage[last:]
