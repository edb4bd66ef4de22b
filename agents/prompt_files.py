"""Prompt files: ``prompts/<agent>.md``, split into sections by ``## <name>`` heading lines (``## system``,
``## user``, ``## repair``); each section is a ``str.format`` template, so literal braces are written
``{{`` and ``}}``. A file of the same name in ``MERMAID_PROMPTS_DIR`` replaces the bundled one. Missing
sections and unknown placeholders are reported when the agent is built.
"""

from __future__ import annotations

import logging
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mermaid_verifier.errors import ConfigError

logger = logging.getLogger(__name__)

_SECTION = re.compile(r"^##[ \t]+(\w+)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Prompt:
    """One agent's prompt file, split into ``str.format`` sections."""

    name: str
    source: str
    sections: dict[str, str]

    def render(self, section: str, **values: Any) -> str:
        return self.sections[section].format(**values)


def load_prompt(name: str, placeholders: Mapping[str, set[str]], prompts_dir: Path | None = None) -> Prompt:
    """``prompts/<name>.md`` (or its replacement in ``prompts_dir``), checked against the sections and
    placeholders the agent fills in: ``placeholders`` maps each required section to its allowed fields."""
    override = Path(prompts_dir) / f"{name}.md" if prompts_dir else None
    if override is not None and override.is_file():
        source, text = str(override), override.read_text(encoding="utf-8")
    else:
        source = f"bundled prompts/{name}.md"
        text = (resources.files("mermaid_verifier.prompts") / f"{name}.md").read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    sections = {parts[i].lower(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    for section, allowed in placeholders.items():
        if not sections.get(section):
            raise ConfigError(f"prompt {source}: missing or empty section '## {section}'")
        try:
            used = {
                re.split(r"[.\[]", field)[0]
                for _, field, _, _ in string.Formatter().parse(sections[section])
                if field is not None
            }
        except ValueError as exc:
            raise ConfigError(
                f"prompt {source}, section {section}: {exc} (write literal braces as {{{{ and }}}})"
            ) from exc
        unknown = used - set(allowed)
        if "" in unknown:
            raise ConfigError(f"prompt {source}, section {section}: positional '{{}}' placeholder; use a name")
        if unknown:
            raise ConfigError(
                f"prompt {source}, section {section}: unknown placeholder(s) "
                f"{', '.join(sorted(unknown))}; allowed: {', '.join(sorted(allowed)) or 'none'}"
            )
    return Prompt(name, source, sections)
