"""The fit engine: which node holds a model, how fast it decodes, what it costs.

Pure standard library, no I/O, deterministic: the same files run at build time (CPython) and
in the reader's browser (Pyodide). Nothing here imports from the rest of `macros/`.
"""

from .api import Evaluation, answer, evaluate, link_class
from .architecture import Architecture, Mla, Moe, Params, count_params
from .catalog import Catalog, Format, Gpu, Llm, Node
from .catalog_diffusion import DiffusionModel
from .checkpoint import Checkpoint, unquantized_parts
from .describe import describe
from .diffusion import DiffusionFit, fit_diffusion
from .errors import EngineError
from .fit import NodeFit, fit_all, fit_node
from .hfconfig import from_hf_config, from_totals
from .measure import check_measurement
from .memory import kv_bytes_per_card, kv_bytes_per_token, weight_bytes
from .reasons import Reason, render
from .speed import allreduce_seconds, gradient_allreduce_seconds
from .topology import GroupLink, group_link
from .units import GB, GIB, MIB
from .workloads import Workload, workload

__all__ = [
    "GB",
    "GIB",
    "MIB",
    "Architecture",
    "Catalog",
    "Checkpoint",
    "DiffusionFit",
    "DiffusionModel",
    "EngineError",
    "Evaluation",
    "Format",
    "Gpu",
    "GroupLink",
    "Llm",
    "Mla",
    "Moe",
    "Node",
    "NodeFit",
    "Params",
    "Reason",
    "Workload",
    "allreduce_seconds",
    "answer",
    "check_measurement",
    "count_params",
    "describe",
    "evaluate",
    "fit_all",
    "fit_diffusion",
    "fit_node",
    "from_hf_config",
    "from_totals",
    "gradient_allreduce_seconds",
    "group_link",
    "kv_bytes_per_card",
    "kv_bytes_per_token",
    "link_class",
    "render",
    "unquantized_parts",
    "weight_bytes",
    "workload",
]
