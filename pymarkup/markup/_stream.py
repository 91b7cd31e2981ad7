"""aiter_render(): the chunks of a page as an async iterator.

The walker is the one under iter_render() (``_core._async_stream``): it
renders until the buffer holds a chunk, or until it meets an awaitable or
an async iterable; this driver awaits that, gives the result back, and the
walk goes on where it stood. Only the awaiting happens here: every byte is
written by the C walker.
"""

from typing import Any, AsyncIterator, List

from . import _core

__all__ = ["aiter_render"]


async def _drive(stream: Any) -> AsyncIterator[bytes]:
    try:
        while True:
            step = stream._step()
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
        # them, innermost first, not left to the garbage collector.
        pending: List[Any] = stream._open_async_iterators()
        stream.close()
        for iterator in reversed(pending):
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()


def aiter_render(node: Any, /, chunk_size: int = 65536) -> AsyncIterator[bytes]:
    """Render like iter_render(), as an async iterator of UTF-8 bytes chunks.

    Children may also be awaitables (coroutines, futures, tasks) and async
    iterables: each is awaited, or iterated, where it stands, in document
    order. An ``async def`` function with no parameters given as a child is
    called and awaited when its place is reached. Everything else renders
    as with render(), and the chunks join into what render_bytes() gives
    for the same tree with the awaited values in place.
    """
    return _drive(_core._async_stream(node, chunk_size))
