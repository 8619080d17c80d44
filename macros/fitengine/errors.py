"""The one exception the engine raises: bad input, said in words a reader can act on."""


class EngineError(ValueError):
    """A workload or model description the engine cannot use; the message names what and where."""
