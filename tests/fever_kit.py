"""Claims files for batch-run tests."""

from __future__ import annotations

import json
from pathlib import Path


def write_claims(path: Path, count: int) -> Path:
    lines = []
    for i in range(count):
        claim, label, evidence = (
            (KUBRICK, "SUPPORTS", [[[None, None, "Stanley_Kubrick", 1]]])
            if i % 2 == 0
            else (EVEREST, "NOT ENOUGH INFO", [[[None, None, None, None]]])
        )
        lines.append(json.dumps({"id": f"c{i}", "claim": claim, "label": label, "evidence": evidence}))
    path.write_text("\n".join(lines) + "\n")
    return path


KUBRICK = "Stanley Kubrick directed 2001: A Space Odyssey."

EVEREST = "Mount Everest is in the Himalayas."
