"""Plain text of a PubMed XML element with its inline markup kept readable.

PubMed titles and abstracts carry HTML-like inline markup (``<i>``, ``<b>``, ``<u>``, ``<sup>``,
``<sub>``) and MathML (``<mml:math>``). Reading only the element's text would turn ``10<sup>-3</sup>``
into "10-3" and a formula into a run of its leaves. Here:

* ``<i>``, ``<b>``, ``<u>`` keep their text;
* super- and subscripts become Unicode ones where every character has one (``h⁻¹``, ``CO₂``,
  ``Ca²⁺``), else ``^x`` / ``_x`` with the script in parentheses when it is more than one token;
  marks set high (``®``, ``*``, ``†``) stay as they are;
* MathML is written out linearly: scripts as above, fractions ``(a)/(b)``, roots ``sqrt(x)``, accents
  as combining marks (``V̇``), prescripts before their base (``³He``); a ``<math alttext>`` is used as
  given.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

MATHML = "{http://www.w3.org/1998/Math/MathML}"

_SUPERSCRIPTS = str.maketrans("0123456789+-−=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ")
_SUBSCRIPTS = str.maketrans("0123456789+-−=()", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎")
_SUPERSCRIPTABLE = frozenset(map(chr, _SUPERSCRIPTS))  # the characters that have a Unicode superscript
_SUBSCRIPTABLE = frozenset(map(chr, _SUBSCRIPTS))
_MARKS = frozenset("®™©*†‡§¶'′″°")  # set high, but not exponents
_ACCENTS = {".": "\u0307", "˙": "\u0307", "·": "\u0307", "¨": "\u0308", "¯": "\u0304", "‾": "\u0304",
            "^": "\u0302", "ˆ": "\u0302", "~": "\u0303", "˜": "\u0303", "→": "\u20d7"}  # fmt: skip
_SPACED_OPERATORS = frozenset("+=<>≤≥≈±×÷∼~/")


def inline_text(element: ET.Element) -> str:
    """The text of ``element`` and everything inside it (not its tail), markup written as above."""
    return re.sub(r"\s+", " ", _inline(element)).strip()


def superscript(text: str) -> str:
    text = _squash(text)
    if not text or set(text) <= _MARKS:
        return text
    if set(text) <= _SUPERSCRIPTABLE:
        return text.translate(_SUPERSCRIPTS)
    return "^" + _group(text)


def subscript(text: str) -> str:
    text = _squash(text)
    if not text:
        return text
    if set(text) <= _SUBSCRIPTABLE:
        return text.translate(_SUBSCRIPTS)
    return "_" + _group(text)


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _group(text: str) -> str:
    """A script, numerator or denominator: bare when it is one token, else in parentheses."""
    return text if re.fullmatch(r"[\w.]+|[+\-−]?[\w.]+", text) else f"({text})"


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _inline(element: ET.Element) -> str:
    if isinstance(element.tag, str) and element.tag.startswith(MATHML):
        return " " + _math(element) + " "
    inner = (element.text or "") + "".join(_inline(child) + (child.tail or "") for child in element)
    name = _local(element.tag)
    if name == "sup":
        return superscript(inner)
    if name == "sub":
        return subscript(inner)
    return inner


def _math(element: ET.Element) -> str:
    """One MathML element as linear text."""
    name = _local(element.tag)
    if name == "math" and element.get("alttext"):
        return _squash(element.get("alttext", ""))
    parts = [_math(child) for child in element if _local(child.tag) not in ("annotation", "annotation-xml")]
    if name in ("msup", "msub", "msubsup") and parts:
        base, scripts = parts[0], parts[1:]
        if name in ("msub", "msubsup"):
            base += subscript(scripts.pop(0)) if scripts else ""
        return base + "".join(superscript(s) for s in scripts)
    if name == "mfrac" and len(parts) == 2:
        return f"{_group(parts[0])}/{_group(parts[1])}"
    if name == "msqrt":
        return f"sqrt({''.join(parts)})"
    if name == "mroot" and len(parts) == 2:
        return f"root{_group(parts[1])}({parts[0]})"
    if name in ("mover", "munder", "munderover") and parts:
        return parts[0] + "".join(_ACCENTS.get(p, "") or superscript(p) for p in parts[1:])
    if name == "mmultiscripts":
        return _multiscripts(element)
    if name in ("none", "mprescripts"):
        return ""
    if name == "semantics":
        return parts[0] if parts else ""
    text = _squash(element.text or "")
    if name == "mtext" and element.text and not text:
        return " "
    if name == "mo" and text in _SPACED_OPERATORS:
        text = f" {text} "
    return text + "".join(parts)


def _multiscripts(element: ET.Element) -> str:
    """<mmultiscripts> base (sub sup)* [<mprescripts/> (presub presup)*] -> ³He, X₁²."""
    children = list(element)
    split = next((i for i, c in enumerate(children) if _local(c.tag) == "mprescripts"), len(children))
    base = _math(children[0]) if children else ""

    def scripts(pairs: list[ET.Element]) -> str:
        written = ""
        for i in range(0, len(pairs) - 1, 2):
            written += subscript(_math(pairs[i])) + superscript(_math(pairs[i + 1]))
        return written

    return scripts(children[split + 1 :]) + base + scripts(children[1:split])
