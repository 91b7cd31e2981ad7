"""aiter_render(): the chunks of a page as an async iterator.

The walker is the one under iter_render() (``_core._async_stream``): it
renders until the buffer holds a chunk, or until it meets an awaitable or
an async iterable; this driver awaits that, gives the result back, and the
walk goes on where it stood. Only the awaiting happens here: every byte is
written by the C walker.
"""

from typing import Any, AsyncIterator, Awaitable, Callable, List, Optional

from . import _core

__all__ = ["aiter_render"]

RunSync = Callable[[Callable[[], Any]], Awaitable[Any]]


async def _drive(stream: Any, run_sync: Optional[RunSync]) -> AsyncIterator[bytes]:
    try:
        while True:
            step = stream._step() if run_sync is None else await run_sync(stream._step)
            if step is None:
                return
            if type(step) is bytes:
                yield step
                continue
            is_anext, awaited = step
            if not is_anext:
                stream._give(await awaited)
                continue
            try:
                item = await awaited.__anext__()
            except StopAsyncIteration:
                stream._give_end()
            else:
                stream._give(item)
    finally:
        # Stopped early (an error, or the consumer went away): the async
        # generators being walked are closed here, in the task that ran
        # them, innermost first, not left to the garbage collector. Each is
        # closed even if closing another fails; the first such error is
        # raised after them.
        pending: List[Any] = stream._open_async_iterators()
        stream.close()
        failure: Optional[BaseException] = None
        for iterator in reversed(pending):
            aclose = getattr(iterator, "aclose", None)
            if aclose is None:
                continue
            try:
                await aclose()
            except BaseException as exc:
                failure = failure or exc
        if failure is not None:
            raise failure


def aiter_render(
    node: Any, /, chunk_size: int = 65536, *, run_sync: Optional[RunSync] = None
) -> AsyncIterator[bytes]:
    """Render like iter_render(), as an async iterator of UTF-8 bytes chunks.

    Children may also be awaitables (coroutines, futures, tasks) and async
    iterables: each is awaited, or iterated, where it stands, in document
    order. An ``async def`` function with no parameters given as a child is
    called and awaited when its place is reached. Everything else renders
    as with render(), and the chunks join into what render_bytes() gives
    for the same tree with the awaited values in place.

    The rendering between two awaits (the C walker, and the generators and
    callables it takes, which may block on a database) runs in the event
    loop, unless ``run_sync`` is given: an async function that runs a
    no-argument callable elsewhere and returns its result, such as
    ``anyio.to_thread.run_sync``, ``asyncio.to_thread`` or Django's
    ``sync_to_async``. The framework modules pass their framework's own.
    """
    return _drive(_core._async_stream(node, chunk_size), run_sync)
