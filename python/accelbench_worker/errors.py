"""What goes wrong, as the harness is told of it: bad input (one line, exit status 2, nothing
measured), a diverged loss, and the one-line texts of exceptions. Standard library only."""

from __future__ import annotations


class BadInput(Exception):
    """The user's module, factory or description is wrong: one line, exit status 2."""


class Diverged(Exception):
    """The loss became NaN or Inf."""


def first_line(e: BaseException, limit: int = 400) -> str:
    lines = str(e).strip().splitlines()
    line = lines[0] if lines else type(e).__name__
    return line[:limit] + ("..." if len(line) > limit else "")


def user_error_line(e: BaseException) -> str:
    """The first line of what the user's code raised, at most 300 characters ('' when empty)."""
    text = str(e).strip().splitlines()
    line = text[0] if text else ""
    return line[:300] + ("..." if len(line) > 300 else "")


def says_out_of_memory(e: BaseException) -> bool:
    import torch
    oom = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    text = str(e)
    return (oom is not None and isinstance(e, oom)) or "out of memory" in text or "can't allocate memory" in text
