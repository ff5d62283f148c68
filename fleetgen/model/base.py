"""Spec, the base of every spec model (frozen, keyword arguments only, remembers the user's line
that built it), and Engine."""

from __future__ import annotations

import os
import sys
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, PrivateAttr

# Frames in pydantic or anywhere in fleetgen/ (this package's parent) are not the user's call.
_SKIP_DIRS = (os.path.dirname(pydantic.__file__), os.path.dirname(os.path.dirname(__file__)))

Engine = Literal["argocd", "flux"]  # what reconciles a placement (exactly one per placement)


def _caller() -> tuple[str, int]:
    """File and line of the nearest frame outside pydantic and fleetgen: the user's call."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_SKIP_DIRS):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None or frame.f_code.co_filename.startswith("<frozen"):
        return ("", 0)  # built while importing fleetgen: no user call to point at
    return (frame.f_code.co_filename, frame.f_lineno)


class Spec(BaseModel):
    """Base of every spec model: frozen, unknown fields refused, remembers where it was built."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    _origin: tuple[str, int] = PrivateAttr(default=("", 0))

    def __init__(self, /, *args: Any, **data: Any) -> None:
        if args:
            name = type(self).__name__
            raise TypeError(
                f"{name} takes keyword arguments only (got {len(args)} positional "
                f"argument{'s' if len(args) > 1 else ''}); write {name}(name=..., ...)"
            )
        super().__init__(**data)

    def model_post_init(self, context: Any, /) -> None:
        self._origin = _caller()

    @property
    def origin(self) -> tuple[str, int]:
        """(file, line) of the constructor call that built this object."""
        return self._origin
