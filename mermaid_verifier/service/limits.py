"""The limits every way in over the network keeps (``serve``'s HTTP API and ``mcp --transport http``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    max_request_bytes: int = 1_000_000  # a request body past this is refused (413) as it streams in
    max_claims: int = 60  # claims a text may give
    max_concurrent: int = 4  # checks at once; beyond, refused (429, or a tool error)
    request_timeout_s: float = 300.0  # seconds one check may take

    def claims_refusal(self, claims: int) -> str | None:
        """Why a text that gives ``claims`` claims is refused, or None when it is within ``max_claims``."""
        if claims > self.max_claims:
            return f"the text gives {claims} claims; the limit is {self.max_claims} (check it in parts)"
        return None
