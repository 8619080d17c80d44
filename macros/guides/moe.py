"""The mixture-of-experts guide (docs/<locale>/guides/melange-d-experts.md, mixture-of-experts.md):
MoE models' total and active parameters, their formats, expert parallelism, the KV cache.
"""

from __future__ import annotations

from macros.fitengine import (
    GB,
    NodeFit,
    group_link,
    weight_bytes,
)
from macros.guides.base import GuideBase, _table
from macros.render.markup import code, markup


class MoeGuide(GuideBase):
    """The mixture-of-experts guide's tables: MoE models, their formats, expert parallelism, KV cache."""

    MACROS = ("runtime_reserve", "moe_table", "moe_format_table", "cheapest_node", "expert_table", "kv_table")

    def runtime_reserve(self, model_id: str, gpu_id: str, split: bool = False) -> str:
        """What the model's default runtime keeps on each card of `gpu_id` besides weights and KV cache."""
        from macros.fitengine.sizing import card_reserve_bytes

        c = self.catalog
        model, gpu = c.llms[model_id], c.gpus[gpu_id]
        runtime = c.runtimes[c.formats[model.native_format].runtime]
        return self.fmt.unit(card_reserve_bytes(model.architecture, runtime, gpu, split) / 2**30, "GiB", 1)

    def moe_table(self, *model_ids: str, fmt_id: str | None = None, users: int = 1) -> str:
        """MoE models, each in `fmt_id` or in the format it is published in: total parameters pick
        the machine, active ones (the output head included, read at every token) the speed; the
        cheapest node that serves `users` users within the target."""
        t, c = self.t, self.catalog
        rows = []
        for model_id in model_ids:
            model = c.llms[model_id]
            fmt = c.formats[fmt_id or model.native_format]
            p = model.params
            fits = self._fit_all(model_id, fmt.id, concurrency=users)
            rows.append(
                [
                    model.name,
                    self.fmt.number(p.total / 1e9, 1) + t["billion"],
                    self.fmt.number(p.active / 1e9, 1) + t["billion"],
                    fmt.name,
                    self.fmt.unit(weight_bytes(p, fmt) / GB, "GB"),
                    self._cheapest(fits, single=False),
                ]
            )
        header = [
            t["model"],
            t["total_params"],
            t["active_params"],
            t["format"],
            t["weights"],
            self._at(t["cheapest_any"], users),
        ]
        return _table(header, rows)

    def moe_format_table(self, model_id: str, *fmt_ids: str, users: int = 1) -> str:
        """An MoE model in each format: the cheapest node that serves `users` users within the
        target, its layout, speed and price."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        rows = []
        for fmt_id in fmt_ids:
            fmt = c.formats[fmt_id]
            fits = self._fit_all(model_id, fmt_id, concurrency=users)
            best = self._cheapest_fit(fits)
            if best is None:
                # No node serves them all within the target: the one that serves the most within
                # it (the cheapest of those), with its layout, speed and best price, so the row
                # says how far the format falls short rather than nothing.
                best = self._most_within(fits)
                where = (
                    markup(
                        "{}",
                        t["none_within_most"].format(most=self.users(best.max_users_at_target), node=best.node),
                    )
                    if best
                    else t["none_fits"]
                )
            else:
                where = markup("{} · {}{}", code(best.node), self.fmt.usd(best.price_month_usd), t["per_month"])
            rows.append(
                [
                    fmt.name,
                    self.fmt.unit(weight_bytes(model.params, fmt) / GB, "GB"),
                    where,
                    self._layout(best) if best else "—",
                    self._tok(best.decode_tok_s_per_user) if best else "—",
                    self._best(best) if best else "—",
                ]
            )
        header = [
            t["format"],
            t["weights"],
            self._at(t["cheapest_any"], users),
            t["layout"],
            f"{t['floor_allreduce']}, {self.users(users)}",
            t["best_per_mtok"],
        ]
        return _table(header, rows)

    def cheapest_node(self, model_id: str, fmt_id: str, users: int = 1) -> str:
        """The cheapest node that serves `users` users of the model in the format within the target, with its monthly price."""
        return self._cheapest(self._fit_all(model_id, fmt_id, concurrency=users), single=False)

    def expert_table(self, model_id: str, fmt_id: str, users: int, *node_ids: str) -> str:
        """Tensor parallelism alone against experts spread whole over the cards (expert parallelism),
        beside tensor parallelism and beside data-parallel attention (one rank per card)."""
        t, c = self.t, self.catalog
        rows = []
        for node_id in node_ids:
            node = c.node(node_id)
            link = group_link(c, node, node.count)
            n = node.count
            for layout in ((n, 1, 1, 1), (n, 1, n, 1), (1, 1, n, n)):
                one, many = self._one_and_many(model_id, fmt_id, node, users, layout)
                rows.append(
                    [
                        code(node_id),
                        self._link_name(link) if link else "—",
                        self._layout(one),
                        self._tok(one.decode_tok_s_per_user),
                        self._ms(one.allreduce_ms_per_token),
                        self._tok(many.decode_tok_s_per_user),
                        self._tok(many.decode_tok_s_total),
                        self._seconds(many.ttft_s),
                    ]
                )
        at1, atn = self.users(1), self.users(users)
        header = [
            t["node"],
            t["link"],
            t["layout"],
            f"{t['floor_allreduce']}, {at1}",
            t["comm_per_token"],
            f"{t['floor_allreduce']}, {atn}",
            f"{t['total_speed']}, {atn}",
            f"{t['ttft']}, {atn}",
        ]
        return _table(header, rows)

    def kv_table(self, node_id: str, context: int, fmt_id: str, *model_ids: str) -> str:
        """KV cache per token, and how many users of `context` tokens the node then holds."""
        from macros.fitengine import kv_bytes_per_token

        t, c = self.t, self.catalog
        rows = []
        for model_id in model_ids:
            model = c.llms[model_id]
            fits = self._fit_all(model_id, fmt_id, context)
            r = next(x for x in fits if x.node == node_id)
            kind = t["attn_mla"] if model.architecture.mla is not None else t["attn_gqa"]
            kib = kv_bytes_per_token(model.architecture, c.assumptions.kv_bytes) / 1024
            rows.append(
                [
                    model.name,
                    kind,
                    self.fmt.unit(kib, "KiB", 1),
                    self.fmt.unit(r.weights_gb, "GB") if r.verdict != "none" else "—",
                    self.fmt.number(r.max_concurrency) if r.verdict != "none" else t["none"],
                ]
            )
        header = [t["model"], t["attention"], t["kv_per_token"], t["weights_card"], t["max_users"]]
        return _table(header, rows)

    def _most_within(self, fits: list[NodeFit]) -> NodeFit | None:
        """The node that serves the most users within the target (the cheapest of those), or None."""
        held = [r for r in fits if r.verdict != "none" and r.max_users_at_target > 0]
        return min(held, key=lambda r: (-r.max_users_at_target, r.price_month_usd)) if held else None

    def _cheapest_fit(self, fits: list[NodeFit]) -> NodeFit | None:
        """The cheapest node within the target (never one the engine's own figures say misses it)."""
        candidates = [r for r in fits if r.verdict != "none" and r.meets_target]
        return min(candidates, key=lambda r: r.price_month_usd) if candidates else None
