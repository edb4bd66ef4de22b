"""The stance model loaded in the background while a cold `verify` imports the graph."""

import asyncio
import threading

import pytest

from mermaid_verifier.errors import ModelError
from mermaid_verifier.stance import StanceForUncheckedJudge, StanceModel, loading_in_background, stance_model


class CountingModel(StanceModel):
    """Counts its loads; each one takes a moment, on a worker thread, and can be made to fail."""

    def __init__(self, failure: str | None = None):
        super().__init__()
        self.loads, self.threads, self.failure = 0, set(), failure

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            self.loads += 1
            self.threads.add(threading.current_thread().name)
            if self.failure:
                raise ModelError(self.failure)
            self._session = object()


async def test_the_model_loads_once_on_a_worker_thread_and_the_warm_up_finds_it_loaded():
    model = CountingModel()
    async with loading_in_background(model) as loading:
        assert loading is model
        await asyncio.to_thread(model.load)  # what Resources.warm_up does
    assert model.loads == 1
    assert threading.main_thread().name not in model.threads


async def test_a_failed_early_load_is_raised_by_the_warm_up_with_its_message():
    model = CountingModel(failure="stance model not found in /nowhere")
    with pytest.raises(ModelError, match="not found in /nowhere"):
        async with loading_in_background(model):
            await asyncio.to_thread(model.load)
    assert model.loads == 2  # the early load's failure is left to the warm-up, which reports it


async def test_leaving_early_waits_for_the_load_it_started():
    model = CountingModel()
    with pytest.raises(RuntimeError):
        async with loading_in_background(model):
            raise RuntimeError("the run stopped before the warm-up")
    assert model.loads == 1 and model._session is not None


@pytest.mark.parametrize(("checked", "kind"), [(True, StanceModel), (False, StanceForUncheckedJudge)])
def test_the_run_reads_with_the_checked_model_unless_no_verdict_rests_on_it(checked, kind):
    assert type(stance_model(checked)) is kind
