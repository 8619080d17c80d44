"""What the serving model answers with: one step's time and its parts, and one replica's steady
state under load (macros/fitengine/serving.py works both out)."""

from __future__ import annotations

from typing import NamedTuple


class Steady(NamedTuple):
    """One replica's steady state: what each user sees, what the replica produces (a tuple:
    thousands are made per answer).

    `admitted`: requests in flight; `tpot_s`: the time between two tokens of one answer;
    `ttft_s`: from a request sent to its first token (`queue_s` of it waiting to be admitted);
    `total_tok_s`: output tokens per second of the replica; `prefill_share`: the share of its
    time the prompts take; `cycle_s`: one admitted request's time from sent to answered, once
    admitted (a user beyond the admitted waits that long for every `admitted` ahead).
    """

    admitted: int
    tpot_s: float
    ttft_s: float
    queue_s: float
    total_tok_s: float
    prefill_share: float
    bound: str
    communication_s: float
    cycle_s: float


class Step(NamedTuple):
    """One step's time and its parts, in seconds (a tuple: thousands are made per answer)."""

    seconds: float
    memory: float
    compute: float
    communication: float
    fixed: float

    @property
    def bound(self) -> str:
        """What limits the step: memory, compute or communication (the first of equals)."""
        memory, compute, communication = self.memory, self.compute, self.communication
        if memory >= compute:
            return "memory" if memory >= communication else "communication"
        return "compute" if compute >= communication else "communication"
