"""Times the fit engine; the benchmark runs this same file in CPython and, inside Pyodide, in the
browser (bench/bare-pyodide-worker.js fetches it), so the two figures measure the same work."""

from __future__ import annotations

import time
from typing import Any

WORKLOAD = ("llama-3.3-70b", "bf16")


def time_engine(catalog: Any, repeats: int = 20) -> dict[str, Any]:
    """Seconds for one workload on every node, asked afresh each repeat (the catalog's kept
    sizings emptied first); for the same workload at other numbers of users after it (what a
    reader's change of users asks, the rest kept); and for every model x format x node, afresh."""
    from fitengine import fit_all, fit_diffusion, workload  # the browser's package name

    one, other_users = [], []
    for repeat in range(repeats):
        catalog.memo.clear()
        start = time.perf_counter()
        fit_all(catalog, workload(catalog, *WORKLOAD))
        one.append(time.perf_counter() - start)
        start = time.perf_counter()
        fit_all(catalog, workload(catalog, *WORKLOAD, concurrency=2 + repeat))
        other_users.append(time.perf_counter() - start)
    catalog.memo.clear()
    start = time.perf_counter()
    for model in catalog.llms:
        for fmt in catalog.formats:
            fit_all(catalog, workload(catalog, model, fmt))
    for model in catalog.diffusion:
        for fmt in catalog.formats:
            fit_diffusion(catalog, model, fmt)
    return {"one_workload_s": one, "other_users_s": other_users, "every_model_format_s": time.perf_counter() - start}
