"""The NVLink guide's training example: a fully sharded (FSDP / ZeRO-3) step's state, traffic and
compute. Its constants are the training's, not the engine's (the engine sizes inference).
"""

from __future__ import annotations

from macros.fitengine import (
    GB,
    gradient_allreduce_seconds,
    group_link,
)
from macros.guides.base import GuideBase, _table
from macros.render.markup import code

# The training example's constants (not the engine's: the engine sizes inference).
ADAM_MIXED_BYTES_PER_PARAM = 16  # ZeRO, arXiv 1910.02054 section 3.1: 2 + 2 + 12 bytes per parameter
FSDP_TRAFFIC_VS_ALLREDUCE = 1.5  # ZeRO-3: two all-gathers and a reduce-scatter, 3 x half an all-reduce
TRAINING_FLOPS_PER_PARAM_TOKEN = 6  # forward and backward, arXiv 2001.08361 section 2.1


class TrainingFigures(GuideBase):
    """The NVLink guide's training example: a fully sharded step's state, traffic and compute."""

    MACROS = ("training_state_gb", "training_table")

    def training_state_gb(self, model_id: str, cards: int = 1) -> str:
        """Weights, gradients and Adam state in mixed precision, shared over `cards` (ZeRO-3)."""
        params = self.catalog.llms[model_id].params_total
        return self.fmt.unit(params * ADAM_MIXED_BYTES_PER_PARAM / cards / GB, "GB")

    def training_table(self, model_id: str, tokens_per_step: int, *node_ids: str) -> str:
        """A fully sharded (FSDP / ZeRO-3) step: its traffic on each link beside its compute at peak."""
        t, c = self.t, self.catalog
        model = c.llms[model_id]
        rows = []
        for node_id in node_ids:
            node = c.node(node_id)
            gpu = c.gpus[node.gpu]
            link = group_link(c, node, node.count)
            comm = FSDP_TRAFFIC_VS_ALLREDUCE * gradient_allreduce_seconds(
                model.params_total, c.assumptions.gradient_bytes, node.count, link
            )
            compute = (
                TRAINING_FLOPS_PER_PARAM_TOKEN
                * model.params_total
                * tokens_per_step
                / (node.count * gpu.bf16_tflops * 1e12)
            )
            rows.append(
                [
                    code(node_id),
                    f"{self._link_name(link)} · {self.fmt.unit(link.per_direction_gbps, 'GB/s')}" if link else "—",
                    self.fmt.unit(model.params_total * ADAM_MIXED_BYTES_PER_PARAM / node.count / GB, "GB"),
                    self.fmt.unit(comm, "s", 2),
                    self.fmt.unit(compute, "s", 2),
                    self.fmt.unit(100 * comm / compute, "%"),
                ]
            )
        header = [t["node"], t["link"], t["train_state"], t["train_comm"], t["train_compute"], t["train_ratio"]]
        return _table(header, rows)
