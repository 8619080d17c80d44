"""The one exception the engine raises: bad input, said in words a reader can act on."""


class EngineError(ValueError):
    """A workload or model description the engine cannot use; the message names what and where."""


def shown(value: object, limit: int = 40) -> str:
    """A value as a message may quote it: short, and never the whole of a long or huge value."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        if abs(value) < 10**15:
            return str(value)
        return f"a whole number of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, str):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    return f"a {type(value).__name__}"
