"""Human review from the command line: `verify --review` and `mermaid-verifier review`.

An abstained verdict pauses the graph; its checkpoint is kept in ``<cache>/checkpoints.sqlite``.
With a person at the terminal the pause is answered at once; otherwise (a batch, a pipe) the claim
goes to the review queue and `mermaid-verifier review` works through it later, resuming each paused
graph from its checkpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import inspect
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import typer
from langgraph.types import Command
from pydantic import BaseModel
from rich.console import Console
from rich.text import Text

from mermaid_verifier import models
from mermaid_verifier.cli.render import show_request
from mermaid_verifier.errors import UsageError
from mermaid_verifier.models import Label, result_from_output
from mermaid_verifier.review import ReviewDecision, ReviewRequest, done, enqueue, pending

_LABELS = {"s": Label.SUPPORTS, "r": Label.REFUTES, "n": Label.NOT_ENOUGH_INFO}

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig


def reviewer_is_present() -> bool:
    """A person can answer: standard input and error are terminals."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def ask_reviewer(console: Console, request: ReviewRequest) -> ReviewDecision | None:
    """Show the uncertain verdict and ask what to do; ``None`` means stop reviewing (also when
    standard input ends before an answer: the claim stays in the queue)."""
    show_request(console, request)
    try:
        return _decision(typer.prompt("[a]ccept, [o]verride, [s]earch more, [q]uit", default="a").strip().lower()[:1])
    except typer.Abort:  # end of input or Ctrl-C at the prompt, which is left without its line end
        console.print("\nno answer; the claim stays in the review queue")
        return None


def _decision(choice: str) -> ReviewDecision | None:
    if choice == "q":
        return None
    if choice == "o":
        label = typer.prompt("label: [s]upports, [r]efutes, [n]ot enough info").strip().lower()[:1]
        if label not in _LABELS:
            raise UsageError(f"unknown label {label!r}: answer s, r or n")
        return ReviewDecision(action="override", label=_LABELS[label], note=typer.prompt("note", default=""))
    if choice == "s":
        return ReviewDecision(action="search_more")
    return ReviewDecision(action="accept")


def checkpoint_serializer():
    """LangGraph's serializer, told which of our types a paused graph's state holds (the records of
    ``mermaid_verifier.models``): they load without the "unregistered type" warning now, and still
    load once LangGraph blocks unregistered types."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    allowed = [
        (cls.__module__, cls.__name__)
        for _, cls in inspect.getmembers(models, inspect.isclass)
        if cls.__module__ == models.__name__ and issubclass(cls, BaseModel | enum.Enum)
    ]
    return JsonPlusSerializer(allowed_msgpack_modules=allowed)


@contextlib.asynccontextmanager
async def review_tools(settings) -> AsyncIterator[tuple[Any, Any]]:
    """The checkpointer that keeps paused graphs, and the store that holds the review queue."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from mermaid_verifier.memory.store import check_sqlite_file, open_local_store

    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    checkpoints = settings.cache_dir / "checkpoints.sqlite"
    check_sqlite_file(
        checkpoints, "move it aside to start with no paused reviews (the claims paused in it cannot be resumed)"
    )
    queue = open_local_store(
        settings.cache_dir / "review-queue",
        damaged_remedy="move its directory aside to start an empty review queue",
    )
    try:
        async with AsyncSqliteSaver.from_conn_string(str(checkpoints)) as saver:
            saver.serde = checkpoint_serializer()
            yield saver, queue
    finally:
        queue.close()


async def run_with_review(
    verifier,
    claim: str,
    queue,
    console: Console,
    interactive: bool,
    thread_id: str | None = None,
    resume: dict | None = None,
) -> tuple[dict, bool]:
    """Run (or resume) one claim, answering pauses while a reviewer is present.

    Returns the graph output and whether the claim was left in the review queue."""
    thread_id = thread_id or str(uuid.uuid4())
    config = {"configurable": {"thread_id": thread_id}}
    output = await verifier.ainvoke(Command(resume=resume) if resume else {"claim": claim}, config)
    while "__interrupt__" in output:
        request = ReviewRequest.model_validate(output["__interrupt__"][0].value)
        decision = ask_reviewer(console, request) if interactive else None
        if decision is None:
            await enqueue(queue, thread_id, claim)
            return output, True
        output = await verifier.ainvoke(Command(resume=decision.model_dump(mode="json")), config)
    await done(queue, thread_id)
    return output, False


def review_command_body(settings, console: Console, emit: Callable) -> None:
    from mermaid_verifier.graph import open_verifier

    async def body() -> None:
        async with review_tools(settings) as (saver, queue):
            waiting = await pending(queue)
            if not waiting:
                console.print("the review queue is empty")
                return
            async with open_verifier(settings, review=True, checkpointer=saver) as verifier:
                for number, queued in enumerate(waiting, 1):
                    config: RunnableConfig = {"configurable": {"thread_id": queued.thread_id}}
                    state = await verifier.aget_state(config)
                    interrupts = [i for task in state.tasks for i in task.interrupts]
                    if not interrupts:  # finished elsewhere, or its checkpoint is gone
                        await done(queue, queued.thread_id)
                        continue
                    console.print(Text(f"{number}/{len(waiting)}", style="dim"))
                    decision = ask_reviewer(console, ReviewRequest.model_validate(interrupts[0].value))
                    if decision is None:
                        return
                    output, left = await run_with_review(
                        verifier, queued.claim, queue, console, True, queued.thread_id, decision.model_dump(mode="json")
                    )
                    if not left:
                        emit(result_from_output(queued.claim, output))

    asyncio.run(body())
