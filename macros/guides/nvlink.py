"""The NVLink or PCIe guide (docs/<locale>/guides/nvlink-ou-pcie.md, nvlink-or-pcie.md): links,
all-reduces, the same model split over each node's cards, time to first token as a chart.
"""

from __future__ import annotations

from html import escape

from macros.build.engine_cache import evaluate
from macros.fitengine import (
    GB,
    gradient_allreduce_seconds,
    group_link,
)
from macros.guides.base import GuideBase, _table
from macros.render.markup import code


class NvlinkGuide(GuideBase):
    """The NVLink guide's figures and tables: links, all-reduces, splits, time to first token."""

    MACROS = (
        "link_rate",
        "link_ratio",
        "allreduces_per_token",
        "allreduce_message_kib",
        "gradient_gb",
        "link_table",
        "gradient_table",
        "compare_nodes",
        "link_serving_table",
        "split_table",
        "ttft_chart",
    )

    def link_rate(self, link_id: str, both: bool = False) -> str:
        """A link's per-direction rate (both=True: the two directions added, as vendors quote it)."""
        rate = self._link_rate(link_id)
        return self.fmt.unit(rate * (2 if both else 1), "GB/s")

    def link_ratio(self, fast: str, slow: str) -> str:
        return self.fmt.number(self._link_rate(fast) / self._link_rate(slow), 0)

    def allreduces_per_token(self, model_id: str) -> str:
        arch = self.catalog.llms[model_id].architecture
        return self.fmt.number(arch.layers * self.catalog.assumptions.allreduces_per_layer)

    def allreduce_message_kib(self, model_id: str) -> str:
        arch = self.catalog.llms[model_id].architecture
        return self.fmt.number(arch.hidden * self.catalog.assumptions.activation_bytes / 1024)

    def gradient_gb(self, model_id: str) -> str:
        model = self.catalog.llms[model_id]
        return self.fmt.number(model.params_total * self.catalog.assumptions.gradient_bytes / GB)

    def link_table(self) -> str:
        """The links readers meet, per direction and both directions added."""
        t, c = self.t, self.catalog
        rows = []
        # Every link of the catalog, the fastest for one card first.
        for link in sorted(c.links.values(), key=lambda link: -self._link_rate(link.id)):
            rate = self._link_rate(link.id)
            rows.append(
                [
                    self._link_name(link),
                    self.fmt.unit(rate, "GB/s"),
                    # A busbw measured across sockets is one figure, not a direction to double.
                    "—" if link.kind == "cross-socket" else self.fmt.unit(2 * rate, "GB/s"),
                    self.fmt.unit(link.latency_s * 1e6, "µs"),
                ]
            )
        return _table([t["link"], t["per_direction"], t["both_directions"], t["latency"]], rows)

    def gradient_table(self, model_id: str, *node_ids: str, cards: int = 4) -> str:
        """One data-parallel gradient all-reduce of the model in BF16, per link, on `cards` cards of
        each node named (when none is, of the first node of `cards` cards over each link)."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        if not node_ids:
            over: dict[str, str] = {}
            for n in c.nodes:
                link = group_link(c, n, cards) if n.count == cards else None
                if link is not None:
                    over.setdefault(link.link_id, n.id)
            node_ids = tuple(over.values())
        rows = []
        for node_id in node_ids:
            node = c.node(node_id)
            link = group_link(c, node, cards)
            seconds = gradient_allreduce_seconds(model.params_total, c.assumptions.gradient_bytes, cards, link)
            rows.append(
                [self._link_name(link), self.fmt.unit(link.per_direction_gbps, "GB/s"), self.fmt.unit(seconds, "s", 2)]
            )
        return _table([t["link"], t["per_direction"], t["time"]], rows)

    def compare_nodes(self, model_id: str, fmt_id: str, *node_ids: str) -> str:
        """The same job on several nodes, side by side."""
        t, c = self.t, self.catalog
        fits = self._fit(model_id, fmt_id)
        header = [self.t["figure"]] + [f"{c.node(n).count} × {c.gpus[c.node(n).gpu].name}" for n in node_ids]
        rows: list[list[str]] = [[t["interconnect"]], [t["total_vram"]], [t["bandwidth_card"]]]
        rows += [
            [t["layout"]],
            # the label follows the model's name mid-sentence: its first letter in lower case
            [f"{c.llms[model_id].name} {c.formats[fmt_id].name}, {_lower_first(t['floor'])}, {self.users(1)}"],
            [f"{t['floor_allreduce']}, {self.users(1)}"],
            [f"{t['ttft']}, {self.users(1)}"],
            [t["price"]],
        ]
        for node_id in node_ids:
            node, r = c.node(node_id), fits[node_id]
            gpu = c.gpus[node.gpu]
            link = group_link(c, node, node.count)
            rows[0].append(
                f"{self._link_name(link)} · {self.fmt.unit(link.per_direction_gbps, 'GB/s')}" if link else "—"
            )
            rows[1].append(self.fmt.unit(gpu.memory_sold_gb * node.count, "GB"))
            rows[2].append(self.fmt.unit(gpu.memory_bandwidth_gbps, "GB/s"))
            rows[3].append(self._layout(r))
            rows[4].append(self._tok(r.decode_tok_s_per_user_no_comm))
            rows[5].append(self._tok(r.decode_tok_s_per_user))
            rows[6].append(self.fmt.number(r.ttft_s, 2) if r.ttft_s is not None else "—")
            rows[7].append(self.fmt.usd(node.price_month_usd) + t["per_month"])
        return _table(header, rows)

    def link_serving_table(self, model_id: str, fmt_id: str, users: int, *node_ids: str) -> str:
        """The same model split over all the cards of each node: one user, then `users` users."""
        t, c = self.t, self.catalog
        rows = []
        for node_id in node_ids:
            node = c.node(node_id)
            layout = (node.count, 1, 1)
            one, many = self._one_and_many(model_id, fmt_id, node, users, layout)
            link = group_link(c, node, node.count)
            rows.append(
                [
                    code(node_id),
                    f"{self._link_name(link)} · {self.fmt.unit(link.per_direction_gbps, 'GB/s')}" if link else "—",
                    self._tok(one.decode_tok_s_per_user_no_comm),
                    self._tok(one.decode_tok_s_per_user),
                    self._seconds(one.ttft_s),
                    self._tok(many.decode_tok_s_per_user),
                    self._tok(many.decode_tok_s_total),
                    self._seconds(many.ttft_s),
                    self._per_mtok(many.usd_per_million_output_tokens),
                ]
            )
        at1, atn = self.users(1), self.users(users)
        header = [
            t["node"],
            t["interconnect"],
            f"{t['floor']}, {at1}",
            f"{t['floor_allreduce']}, {at1}",
            f"{t['ttft']}, {at1}",
            f"{t['floor_allreduce']}, {atn}",
            f"{t['total_speed']}, {atn}",
            f"{t['ttft']}, {atn}",
            f"{t['per_mtok_out']}, {atn}",
        ]
        return _table(header, rows)

    def split_table(self, model_id: str, fmt_id: str, node_id: str, users: int) -> str:
        """One node, the model split over 1, 2, 4… cards: what splitting buys and what it costs."""
        t, c = self.t, self.catalog
        node = c.node(node_id)
        rows = []
        tp = 1
        while tp <= node.count:
            layout = (tp, 1, 1)
            one, many = self._one_and_many(model_id, fmt_id, node, users, layout)
            if one.verdict != "none":
                rows.append(
                    [
                        self.fmt.number(tp),
                        self.fmt.number(one.replicas),
                        self._tok(one.decode_tok_s_per_user),
                        self._seconds(one.ttft_s),
                        self._tok(many.decode_tok_s_per_user),
                        self._tok(many.decode_tok_s_total),
                        self._per_mtok(many.usd_per_million_output_tokens),
                    ]
                )
            tp *= 2
        at1, atn = self.users(1), self.users(users)
        header = [
            t["tp_degree"],
            t["replicas"],
            f"{t['floor_allreduce']}, {at1}",
            f"{t['ttft']}, {at1}",
            f"{t['floor_allreduce']}, {atn}",
            f"{t['total_speed']}, {atn}",
            f"{t['per_mtok_out']}, {atn}",
        ]
        return _table(header, rows)

    def ttft_chart(
        self,
        model_id: str,
        fmt_id: str,
        *node_ids: str,
        prompts: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384, 32768, 65536),
    ) -> str:
        """Time to first token against prompt length, one user, the model split over each node's
        cards: a line per node (dashed on PCIe), with a description and the values as a table."""
        from macros.render.charts import Series, line_chart
        from macros.render.html_blocks import register

        t, c = self.t, self.catalog
        output = c.assumptions.default_output_tokens
        series, values = [], {}
        for node_id in node_ids:
            node = c.node(node_id)
            link = group_link(c, node, node.count)
            points = []
            for prompt in prompts:
                request = {
                    "model": model_id,
                    "format": fmt_id,
                    "context": prompt + output,
                    "concurrency": 1,
                    "input": prompt,
                    "output": output,
                    "tensor_parallel": node.count,
                    "node": node_id,
                }
                r = evaluate(c, request).fits[0]
                if r.ttft_s is None:
                    raise ValueError(f"{model_id} in {fmt_id} does not fit {node_id} with a {prompt}-token prompt")
                points.append((float(prompt), r.ttft_s))
            values[node_id] = points
            dashed = link is None or c.links[link.link_id].kind != "nvlink"
            # One color per card generation, so that a pair differing only by its link shares it.
            groups = list(dict.fromkeys(c.gpus[c.node(n).gpu].architecture for n in node_ids))
            series.append(Series(node_id, tuple(points), dashed, groups.index(c.gpus[node.gpu].architecture)))
        seconds = lambda v: self.fmt.unit(v, "s", 2 if v < 10 else 1)  # noqa: E731
        spans = ", ".join(
            t["chart_ttft_span"].format(a=seconds(p[0][1]), b=seconds(p[-1][1]), node=n) for n, p in values.items()
        )
        title = t["chart_ttft_title"].format(
            model=c.llms[model_id].name, format=c.formats[fmt_id].name, users=self.users(1)
        )
        svg = line_chart(
            series,
            chart_id=f"chart-ttft-{model_id}-{fmt_id}".replace(".", "-"),
            title=title,
            description=t["chart_ttft_desc"].format(
                low=self.fmt.number(prompts[0]), high=self.fmt.number(prompts[-1]), spans=spans
            ),
            x_label=t["chart_ttft_x"],
            y_label=t["chart_ttft_y"],
            x_tick=lambda v: self.fmt.number(v),
            y_tick=lambda v: self.fmt.number(v, 0 if v >= 1 else 1),
            x_ticks=[float(p) for p in prompts],
        )
        head = "".join(f"<th><code>{escape(n)}</code></th>" for n in values)
        rows = "".join(
            f"<tr><td>{self.fmt.number(prompt)}</td>"
            + "".join(f"<td>{seconds(values[n][i][1])}</td>" for n in values)
            + "</tr>"
            for i, prompt in enumerate(prompts)
        )
        table = f"<table><thead><tr><th>{t['prompt_tokens']}</th>{head}</tr></thead><tbody>{rows}</tbody></table>"
        return register(
            # On a phone the chart keeps a legible width and scrolls sideways in its own box.
            f'<figure class="chart-figure"><div class="chart-figure__scroll" tabindex="0" role="region"'
            f' aria-label="{escape(title)}">{svg}</div>'
            f"<figcaption>{escape(title)}. {t['chart_link_key']}</figcaption></figure>"
            f"<details><summary>{t['chart_values']}</summary>{table}</details>"
        )

    def _link_rate(self, link_id: str) -> float:
        """Per-direction rate of a link as one card sees it (NVLink: the whole card, all links)."""
        link = self.catalog.links[link_id]
        if link.kind != "nvlink":
            return link.per_direction_gbps
        return link.per_direction_gbps * link.max_links


def _lower_first(text: str) -> str:
    """A label that follows other words mid-sentence, its first letter in lower case."""
    return text[:1].lower() + text[1:]
