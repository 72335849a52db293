"""One-line messages from exceptions: what operators and handlers show instead of a traceback."""


def one_line(exc):
    """The exception's first message line; its type name too when it is not one of ours (an unexpected error)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, (RuntimeError, ValueError, KeyError, OSError)) and text:
        return text
    return f"unexpected {type(exc).__name__}: {text}" if text else f"unexpected {type(exc).__name__}"
