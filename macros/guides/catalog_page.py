"""The catalog page (docs/<locale>/catalogue.md, catalog.md): nodes, GPUs, runtime settings and
every GPU figure's source.
"""

from __future__ import annotations

from macros.fitengine import (
    group_link,
)
from macros.fitengine.units import hourly
from macros.guides.base import GuideBase, _table, _with_unit
from macros.render.locale_format import UNITS
from macros.render.markup import code
from macros.render.markup import text as _text


class CatalogPage(GuideBase):
    """The catalog page's tables: nodes, GPUs, every GPU figure's source, a runtime's settings."""

    MACROS = ("node_table", "gpu_table", "sources_table", "runtime_value")

    def node_table(self) -> str:
        t, c = self.t, self.catalog
        rows = []
        for node in c.nodes:
            gpu = c.gpus[node.gpu]
            link = group_link(c, node, node.count)
            rows.append(
                [
                    code(node.id),
                    gpu.name,
                    self.fmt.number(node.count),
                    self._topology(node.topology, link),
                    self.fmt.unit(gpu.memory_sold_gb * node.count, "GB"),
                    self.fmt.usd(node.price_month_usd),
                    self.fmt.usd(hourly(node.price_month_usd, c.assumptions.hours_per_month), cents=True),
                ]
            )
        header = [t["node"], t["gpu"], t["count"], t["topology"], t["total_vram"], t["price_month"], t["price_hour"]]
        return _table(header, rows)

    def gpu_table(self) -> str:
        t, c = self.t, self.catalog
        rows = []
        for gpu in c.gpus.values():
            nv = (
                f"NVLink {gpu.nvlink.generation} · {self.fmt.unit(gpu.nvlink.per_direction_gbps, 'GB/s')}"
                if gpu.nvlink
                else "—"
            )
            rows.append(
                [
                    gpu.name,
                    self.fmt.unit(gpu.memory_sold_gb, "GB"),
                    self.fmt.unit(gpu.memory_bandwidth_gbps, "GB/s"),
                    f"PCIe Gen{gpu.pcie_generation} ×16",
                    nv,
                    self.fmt.unit(gpu.bf16_tflops, "TFLOPS"),
                    self.fmt.unit(gpu.fp8_tflops, "TFLOPS") if gpu.fp8_tflops else "—",
                ]
            )
        return _table([t["gpu"], t["memory"], t["bandwidth"], t["pcie"], t["nvlink"], t["bf16"], t["fp8"]], rows)

    def sources_table(self) -> str:
        """Every GPU figure's source, for the catalog page."""
        t = self.t
        rows = []
        for gpu in self.data["gpus"]:
            for field in ("memory_usable", "memory_bandwidth", "bf16_dense", "fp8_dense"):
                figure = gpu.get(field)
                if figure:
                    rows.append(
                        [
                            _text(gpu["name"]),
                            t["figure_" + field],
                            _with_unit(
                                self.fmt.sig(figure["value"]),
                                UNITS.get(self.locale, {}).get(figure["unit"], figure["unit"]),
                            ),
                            self._cite(figure["source"]),
                        ]
                    )
        return _table([t["gpu"], t["figure"], t["value"], t["source"]], rows)

    def runtime_value(self, runtime_id: str, field: str) -> str:
        """A runtime setting as a percentage (memory_utilization) or a plain number."""
        value = getattr(self.catalog.runtimes[runtime_id], field)
        if field == "memory_utilization":
            return self.fmt.unit(value * 100, "%")
        return self.fmt.number(value)
