"""Ending a finished command-line process at once, without the interpreter's teardown.

After a run everything the program opened is already closed by its context managers, yet CPython still frees
every object one by one on the way out: the parser, the stance model, the compiled graph, a corpus server's index
(about a second in all for a ``verify`` of one claim on a 2-core AVX2 machine). :func:`exit_without_teardown` does
what the normal exit does that matters, in the same order (wait for the threads still at work, run the exit
handlers, flush the standard streams), and then ends the process with its exit code.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import time


def working_threads() -> list[threading.Thread]:
    """The threads besides this one that the interpreter would wait for on its way out."""
    current = threading.current_thread()
    return [t for t in threading.enumerate() if t is not current and not t.daemon and t.is_alive()]


def exit_code(stop: SystemExit) -> int:
    """The status Python gives a ``SystemExit``: None is 0, an int is itself, anything else is printed and is 1."""
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code
    with contextlib.suppress(OSError, ValueError):
        print(stop.code, file=sys.stderr)
    return 1


def exit_without_teardown(code: int = 0, grace_s: float = 0.2) -> None:
    """End the process now with ``code`` when no other thread is at work. Threads that are idle get ``grace_s``
    to end (a worker pool's threads, told their loop has gone); if one is still working (an index being built
    for the next run, a file being written), this returns and the caller's normal exit waits for it, as before.
    Call it only from a program's entry point, once the program is done: it never returns otherwise."""
    deadline = time.monotonic() + grace_s
    for thread in working_threads():
        thread.join(max(0.0, deadline - time.monotonic()))
    if working_threads():
        return
    atexit._run_exitfuncs()  # logging's flush, multiprocessing's children, a caller's own handlers
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the reader went away or the stream is closed
            stream.flush()
    os._exit(code)
