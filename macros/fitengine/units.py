"""Units. GB means 10^9 bytes and GiB 2^30: the catalog always says which."""

GB = 10**9
GIB = 2**30
MIB = 2**20

_BYTES = {"GB": GB, "GiB": GIB, "MiB": MIB, "bytes": 1}


def to_bytes(value: float, unit: str) -> float:
    """Convert a memory figure in `unit` (GB, GiB, MiB or bytes) to bytes."""
    try:
        return value * _BYTES[unit]
    except KeyError:
        raise ValueError(f"unknown memory unit {unit!r}; expected one of {sorted(_BYTES)}") from None
