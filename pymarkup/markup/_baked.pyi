from typing import Any, Callable, Generic, Literal, overload

from typing_extensions import ParamSpec

from ._core import SafeString

__all__ = ["baked"]

_P = ParamSpec("_P")

class BakedFunction(Generic[_P]):
    """What @baked returns: the builder's signature, returning a SafeString."""

    __wrapped__: Callable[_P, Any]
    __name__: str
    __qualname__: str
    slot_count: int
    static_size: int
    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> SafeString: ...

@overload
def baked(
    func: Callable[_P, Any], *, missing: Literal["error", "empty"] = ...
) -> BakedFunction[_P]: ...
@overload
def baked(
    func: None = ..., *, missing: Literal["error", "empty"] = ...
) -> Callable[[Callable[_P, Any]], BakedFunction[_P]]: ...
