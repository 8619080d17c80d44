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


SECONDS_PER_HOUR = 3600


def hourly(monthly: float, hours_per_month: float) -> float:
    """A monthly amount (a node's price) per hour billed: the one conversion from month to hour."""
    return monthly / hours_per_month


def month_seconds(hours_per_month: float) -> float:
    """The seconds billed in a month: a rate per second times this is the month's amount."""
    return hours_per_month * SECONDS_PER_HOUR
