"""Ending a finished program without the interpreter's teardown: exit handlers run, threads at work are waited for."""

import subprocess
import sys

import pytest

from mermaid_verifier.process_end import exit_code


def run_ending(body: str, code: int = 0, grace_s: float = 0.05) -> subprocess.CompletedProcess:
    """A Python process that registers an exit handler, runs ``body``, then ends as the programs do."""
    program = (
        "import atexit, sys, threading, time\n"
        "from mermaid_verifier.process_end import exit_without_teardown\n"
        "atexit.register(lambda: print('exit handler ran', flush=True))\n"
        f"{body}\n"
        f"exit_without_teardown({code}, grace_s={grace_s})\n"
        "print('normal exit', flush=True)\n"
    )
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)


def test_a_finished_program_ends_at_once_with_its_code_after_its_exit_handlers():
    done = run_ending("sys.stdout.write('answer, not yet flushed')", code=3)
    assert done.returncode == 3, done.stderr
    assert done.stdout == "answer, not yet flushedexit handler ran\n"  # flushed; nothing after the call ran


def test_idle_threads_are_given_their_moment_and_do_not_keep_the_process():
    done = run_ending("threading.Thread(target=lambda: time.sleep(0.01)).start()", grace_s=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["exit handler ran"]


def test_a_thread_still_at_work_keeps_the_normal_exit_which_waits_for_it():
    done = run_ending("threading.Thread(target=lambda: (time.sleep(0.5), print('index saved', flush=True))).start()")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["normal exit", "index saved", "exit handler ran"]


@pytest.mark.parametrize(
    ("code", "status", "said"), [(None, 0, ""), (0, 0, ""), (2, 2, ""), ("bad input", 1, "bad input\n")]
)
def test_exit_codes_follow_pythons_rules(code, status, said, capsys):
    assert exit_code(SystemExit(code)) == status
    assert capsys.readouterr().err == said
