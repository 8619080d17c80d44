"""Per-token APIs against a rented node (catalog/api_prices.yaml, typed in the engine's Catalog):
the API's prices as read, and the break-even, with its search over users (the NVLink and
quantization guides).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from macros.fitengine import (
    NodeFit,
)
from macros.fitengine.catalog import ApiPrice
from macros.fitengine.units import month_seconds
from macros.fitengine.workloads import MAX_CONCURRENCY
from macros.guides.base import GuideBase, _table
from macros.render.markup import code


class ApiBreakeven(GuideBase):
    """Per-token APIs beside a rented node: their prices as read, and where the node costs less."""

    MACROS = ("api_price", "api_cost", "api_read", "api_source", "api_breakeven", "api_breakeven_table")

    def api_price(self, price_id: str, part: str = "output") -> str:
        """What the API charges per million `input` or `output` tokens, as the provider wrote it."""
        price = self._api(price_id)
        rates = {"input": price.input_usd_per_mtok, "output": price.output_usd_per_mtok}
        if part not in rates:
            raise ValueError(f"api_price part {part!r}: expected 'input' or 'output'")
        return self.fmt.usd(rates[part], cents=True)

    def api_cost(self, price_id: str) -> str:
        """The API's bill per million output tokens, the prompts of the engine's default request included."""
        return self.fmt.usd(self._api_per_output_mtok(price_id), cents=True)

    def api_read(self, price_id: str) -> str:
        """The day the price was read, written the locale's way (2 décembre 2026, December 2, 2026)."""
        import datetime

        from babel.dates import format_date

        return format_date(datetime.date.fromisoformat(self._api(price_id).read), "long", locale=self.locale)

    def api_source(self, price_id: str) -> str:
        """The page the price was read on, cited as text."""
        return self._cite(self._api(price_id).url)

    def api_breakeven(self, price_id: str, fmt_id: str, node_id: str, part: str = "tokens") -> str:
        """One figure of the break-even: `tokens` (millions a month), `rate` (tok/s) or `users`."""
        tokens, rate, users, peak, at = self._breakeven(price_id, fmt_id, node_id)
        if part == "tokens":
            return self.fmt.number(tokens)
        if part == "rate":
            return self._tok(rate)
        return self._be_users(users, peak, at)

    def _be_users(self, users: int, peak: float, at: NodeFit | None) -> str:
        """The users a break-even takes, or why the node never reaches it within the target."""
        if not users or at is None:
            return self.t["be_never"].format(rate=self._tok(peak))
        if not at.meets_target:
            return self.t["be_never_target"].format(users=self.users(users), speed=self._tok(at.decode_tok_s_per_user))
        return self.fmt.number(users)

    def api_breakeven_table(self, price_id: str, fmt_id: str, *node_ids: str) -> str:
        """Where each node starts costing less than the API: tokens a month, the rate, the users it takes."""
        t, c = self.t, self.catalog
        rows = []
        for node_id in node_ids:
            tokens, rate, users, peak, at = self._breakeven(price_id, fmt_id, node_id)
            rows.append(
                [
                    code(node_id),
                    f"{self.fmt.usd(c.node(node_id).price_month_usd)}{t['per_month']}",
                    self.fmt.number(tokens),
                    self._tok(rate),
                    self._be_users(users, peak, at),
                ]
            )
        return _table([t["node"], t["price_month"], t["be_tokens"], t["be_rate"], t["be_users"]], rows)

    def _api(self, price_id: str) -> ApiPrice:
        return self.catalog.api_prices[price_id]

    def _api_per_output_mtok(self, price_id: str) -> float:
        """Input and output price folded into one per million output tokens, at the default request's lengths."""
        a = self.catalog.assumptions
        return self._api(price_id).per_output_mtok(a.default_input_tokens, a.default_output_tokens)

    def _breakeven(self, price_id: str, fmt_id: str, node_id: str) -> tuple[float, float, int, float, NodeFit | None]:
        """Millions of output tokens a month above which the node costs less than the API for the
        same workload (its prompts billed at the API's input rate), the average tok/s that is, the
        fewest users at once whose node total reaches it (0: none does), the node's highest total,
        and the node's answer at those users (None when none reaches it)."""
        c = self.catalog
        model_id = self._api(price_id).model
        node = c.node(node_id)
        tokens = node.price_month_usd / self._api_per_output_mtok(price_id)
        rate = tokens * 1e6 / month_seconds(c.assumptions.hours_per_month)
        fit = self._fit(model_id, fmt_id)[node_id]
        if fit.verdict == "none":
            raise ValueError(f"{model_id} in {fmt_id} does not fit {node_id}: it has no break-even with an API")
        users, total = self._fewest_users(model_id, fmt_id, node_id, MAX_CONCURRENCY, rate)
        return tokens, rate, users, total, self._one(model_id, fmt_id, node_id, users) if users else None

    def _fewest_users(self, model_id: str, fmt_id: str, node_id: str, most: int, rate: float) -> tuple[int, float]:
        """The fewest users (1 to `most`) whose node total reaches `rate` and that total; or 0
        and the highest total when none does.

        Asking each count in turn took hundreds of engine calls a table; this halves ranges on
        two properties of the engine's fit (macros/fitengine/fit.py), checked as it reads:
        - as users grow, the layout chosen moves from the one that serves few users fastest to
          ones with more replicas, and does not come back: the same layout (and replicas) at
          both ends of a range means the same layout throughout;
        - on one layout, one more user adds one to a single replica's batch b, whose total is
          output / (output x step(b) / b + prefill); a decode step's time per sequence,
          step(b) / b, does not grow with b (memory read, compute, collectives and fixed cost
          are each a constant plus a part at most proportional to b), so the total does not fall.
        When a total read is below one of fewer users on the same layout, it asks every count.
        """
        fits: dict[int, NodeFit] = {}

        def one(users: int) -> NodeFit:
            if users not in fits:
                fits[users] = self._one(model_id, fmt_id, node_id, users)
            return fits[users]

        def total(users: int) -> float:
            return one(users).decode_tok_s_total or 0.0

        def layout(users: int) -> tuple[Any, ...]:
            r = one(users)
            return (r.verdict, r.tensor_parallel, r.pipeline_parallel, r.expert_parallel, r.replicas)

        def first(low: int, high: int) -> int | None:
            """The fewest users in [low, high] whose total reaches the rate."""
            if layout(low) != layout(high):
                middle = (low + high) // 2
                return first(low, middle) or first(middle + 1, high)
            if total(high) < rate:
                return None
            while low < high:  # one layout: the totals do not fall, halve the range
                middle = (low + high) // 2
                if total(middle) >= rate:
                    high = middle
                else:
                    low = middle + 1
            return low

        if most < 1:
            return 0, 0.0
        found = first(1, most)
        by_layout: dict[tuple[Any, ...], list[float]] = {}
        for users in sorted(fits):
            by_layout.setdefault(layout(users), []).append(total(users))
        if any(later < earlier for read in by_layout.values() for earlier, later in pairwise(read)):
            # Not what the engine was shown to do: read every count, as without the search.
            found = next((u for u in range(1, most + 1) if total(u) >= rate), None)
            if found is None:
                return 0, max(total(u) for u in range(1, most + 1))
        if found is None:
            # Each layout's highest total is at the end of its range, and every range's end was read.
            return 0, max(total(u) for u in fits)
        return found, total(found)
