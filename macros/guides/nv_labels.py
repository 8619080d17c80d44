"""What `nvidia-smi topo -m` shows between the cards of an NVLink node (NV18…): the NVLink
guide's check of a rented node, from the cards' links and the node's topology.
"""

from __future__ import annotations

from macros.fitengine import (
    group_link,
)
from macros.guides.base import GuideBase, _table
from macros.render.markup import code


class NvLabels(GuideBase):
    """What `nvidia-smi topo -m` shows between the cards of each NVLink node."""

    MACROS = ("nv_label", "nv_label_table")

    def nv_label(self, node_id: str) -> str:
        """What `nvidia-smi topo -m` shows between two cards of an NVLink node, e.g. NV18."""
        from macros.fitengine.health import expected_nvlinks

        return f"NV{expected_nvlinks(self.catalog, self.catalog.node(node_id))}"

    def nv_label_table(self) -> str:
        """What `nvidia-smi topo -m` should show between the cards of each NVLink node."""
        from macros.fitengine.health import expected_nvlinks

        t, c = self.t, self.catalog
        rows = []
        for node in c.nodes:
            gpu, topology = c.gpus[node.gpu], c.topologies[node.topology]
            if gpu.nvlink is None or topology.nvlink == "none" or node.count < 2:
                continue
            if topology.nvlink == "sxm":
                label = code(f"NV{expected_nvlinks(c, node)}")
                where = t["nv_every_pair"]
            else:
                rate = c.links[f"nvlink-{gpu.nvlink.generation}"].per_direction_gbps
                group = min(node.nvlink_group, node.count)
                # A bridge shares the card's links among its partners, as a 4-GPU board does.
                label = code(f"NV{round(gpu.nvlink.per_direction_gbps / rate) // max(group - 1, 1)}")
                where = (
                    (t["nv_bridged_pair"] if group == 2 else t["nv_bridged_all"].format(n=self.fmt.number(group)))
                    if group >= node.count
                    else t["nv_bridged_groups"].format(n=self.fmt.number(group))
                )
            link = group_link(c, node, node.count)
            rows.append(
                [
                    code(node.id),
                    t[f"topology_{node.topology}"],
                    label,
                    where,
                    self.fmt.unit(link.per_direction_gbps, "GB/s") if link else "—",
                ]
            )
        header = [t["node"], t["topology"], t["nv_label"], t["nv_where"], t["nv_group_rate"]]
        return _table(header, rows)
