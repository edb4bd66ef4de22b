"""A diskcache ``Disk`` that only ever stores and reads text: no pickling, no unpickling.

diskcache pickles by default, and even ``JSONDisk`` falls back to ``pickle.load`` for rows stored in
pickle mode, so a pickled row planted in a shared directory would run code (CVE-2025-69872). The live
sources' response cache (:mod:`.source_cache`) subclasses it, naming the error a foreign row raises
(``data_error``) and what its keys and values are called in messages.
"""

from __future__ import annotations

import diskcache
from diskcache.core import MODE_RAW, MODE_TEXT, UNKNOWN


class JSONTextDisk(diskcache.Disk):
    """Serialisation for ``str`` keys and ``str`` values (JSON text) only."""

    data_error: type[Exception] = ValueError
    noun = "record"

    def put(self, key):
        if type(key) is not str:
            raise TypeError(f"{self.noun} keys are str, got {type(key).__name__}")
        return key, True

    def get(self, key, raw):
        if not raw or type(key) is not str:
            raise self.data_error(f"refusing to read a {self.noun} key that is not text (pickled?)")
        return key

    def store(self, value, read, key=UNKNOWN):
        if read or type(value) is not str:
            raise TypeError(f"{self.noun} values are JSON text")
        return super().store(value, read, key=key)

    def fetch(self, mode, filename, value, read):
        if mode not in (MODE_RAW, MODE_TEXT) or read:
            raise self.data_error(f"refusing to read a {self.noun} stored in mode {mode} (pickled?)")
        return super().fetch(mode, filename, value, read)
