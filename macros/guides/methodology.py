"""The methodology page (docs/<locale>/methodologie.md, methodology.md): the engine's constants
and the published measurements it is held against (catalog/validation/).
"""

from __future__ import annotations

import datetime
from functools import cached_property
from typing import Any

from macros.guides.base import GuideBase, _plain, _table, _with_unit
from macros.i18n import unmapped
from macros.render.markup import code, markup
from macros.render.markup import text as _text


class MethodologyPage(GuideBase):
    """The methodology page's tables: the engine's constants and the measurements it is held against."""

    MACROS = (
        "assumptions_table",
        "runtimes_table",
        "validation_table",
        "sweep_band_table",
        "sweep_figure",
        "silicon_table",
        "silicon_figure",
        "aiconfigurator_table",
        "aiconfigurator_figure",
        "validation_misses",
        "validation_unmapped",
    )

    def assumptions_table(self) -> str:
        """The engine's constants with what they mean and where they come from."""
        t = self.t
        rows = []
        for item in self.data["assumptions"].values():
            value = item["value"]
            shown = (
                self.fmt.number(
                    value, 2 if isinstance(value, float) and value < 1 else 1 if isinstance(value, float) else 0
                )
                if not isinstance(value, str)
                else _text(self.catalog.gpus[value].name)  # a card (unit: gpu) by its name, never its id
                if item["unit"] == "gpu"
                else code(value)
            )
            rows.append(
                [
                    _text(item["label"][self.locale]),
                    _with_unit(shown, self._unit_word(item["unit"], value)),
                    _text(item["explain"][self.locale]),
                    self._cite(item["source"]),
                ]
            )
        return _table([t["assumption"], t["value"], t["meaning"], t["source"]], rows)

    def runtimes_table(self) -> str:
        """Each runtime's constants with what they mean and where they come from."""
        t = self.t
        rows = []
        for runtime in self.data["runtimes"]:
            for item in runtime.values():
                if not isinstance(item, dict) or "explain" not in item:
                    continue
                value = item["value"]
                digits = 2 if isinstance(value, float) and value < 1 else 1 if isinstance(value, float) else 0
                rows.append(
                    [
                        runtime["name"],
                        _text(item["label"][self.locale]),
                        _with_unit(self.fmt.number(value, digits), self._unit_word(item["unit"], value)),
                        _text(item["explain"][self.locale]),
                        self._cite(item["source"]),
                    ]
                )
        return _table([t["runtime"], t["assumption"], t["value"], t["meaning"], t["source"]], rows)

    def validation_table(self) -> str:
        """The engine's figure beside each published measurement it maps, with the ratio."""
        from macros.validation import check_all

        t, c = self.t, self.catalog
        rows = []
        for check in check_all(c):
            if check.unmapped:
                continue
            record = check.engine_row or {}
            if check.measure in ("fits", "oom"):
                published = t["val_" + check.measure]
                engine = t[record.get("verdict", "none")] if record else "—"
                ratio = "—"
            else:
                unit = t["val_unit_" + ("ttft" if check.measure == "ttft_ms" else "speed")]
                published = _with_unit(self.fmt.number(float(check.published), 1), unit)
                engine = _with_unit(self.fmt.number(check.engine, 1), unit) if check.engine is not None else "—"
                ratio = self.fmt.number(check.ratio, 2) if check.ratio is not None else "—"
            rows.append(
                [
                    self._record(check.id),
                    t["val_measure_" + check.measure],
                    published,
                    engine,
                    ratio,
                    t["val_ok"] if check.ok else t["val_off"],
                    self._cite(check.source),
                ]
            )
        header = [
            t["val_record"],
            t["val_measure"],
            t["val_published"],
            t["val_engine"],
            t["val_ratio"],
            t["val_bounds"],
        ]
        return _table([*header, t["source"]], rows)

    def sweep_band_table(self) -> str:
        """The engine's error on the measured sweep's judge part, per slice: median and 90th
        percentile of engine / measured, for the time per token and the time to first token."""
        t = self.t
        judged = self._band("error_band")["judge"]
        rows = []
        for name, figures in judged["slices"].items():
            kind, _, value = name.partition(": ")
            label = (
                t["sweep_all"] if name == "all" else t[f"sweep_{kind}"].format(value=t.get(f"sweep_v_{value}", value))
            )
            rows.append(
                [
                    label,
                    self.fmt.number(figures["tpot"]["points"]),
                    self.fmt.number(figures["tpot"]["median"], 2),
                    self.fmt.number(figures["tpot"]["p90"], 2),
                    self.fmt.number(figures["ttft"]["median"], 2),
                    self.fmt.number(figures["ttft"]["p90"], 2),
                ]
            )
        header = [t["sweep_slice"], t["sweep_points"], t["sweep_tpot_median"], t["sweep_tpot_p90"]]
        return _table([*header, t["sweep_ttft_median"], t["sweep_ttft_p90"]], rows)

    def sweep_figure(self, name: str, part: str = "judge") -> str:
        """One figure of the sweep's error band: `points`, `in_band` (a percentage), `pairs`, `kept`."""
        return self._figure(self._band("error_band")[part], name)

    def _band(self, name: str) -> dict[str, Any]:
        """One of the validation's bands as the catalog holds it (`error_band` or `silicon_band`:
        catalog_loader reads catalog/validation/<name>.json for the engine and for these pages)."""
        band = getattr(self.catalog, name)
        if band is None:
            raise KeyError(f"the methodology page needs catalog/validation/{name}.json, which this catalog lacks")
        return band

    def _figure(self, data: dict[str, Any], name: str) -> str:
        """A figure of a band's summary: `in_band` as a percentage, `pairs` and `kept` of its pairs of
        TP sizes, `tpot_median` and `ttft_median`, or any count it holds."""
        if name == "in_band":
            return self.fmt.number(100 * data["in_band"], 0)
        if name in ("pairs", "kept"):
            return self.fmt.number(data["tp_pairs_in_order"][name])
        if name in ("tpot_median", "ttft_median"):
            return self.fmt.number(data[name.split("_")[0]]["median"], 2)
        return self.fmt.number(data[name])

    def silicon_table(self) -> str:
        """The engine on the measured points of other cards (macros/silicon.py), per card, model
        and format: the points, the share within both bands, and the median engine / measured."""
        t, fmt = self.t, self.fmt
        rows = [
            [
                _text(self.catalog.gpus[self.catalog.node(s["node"]).gpu].name),
                _text(self.catalog.llms[s["model"]].name),
                _text(self.catalog.formats[s["format"]].name),
                fmt.number(s["points"]),
                fmt.percent(s["in_band"]),
                fmt.number(s["tpot"]["median"], 2),
                fmt.number(s["ttft"]["median"], 2),
            ]
            for s in self._band("silicon_band")["setups"]
        ]
        header = [t["gpu"], t["model"], t["format"], t["sweep_points"], t["aic_both"]]
        return _table([*header, t["sweep_tpot_median"], t["sweep_ttft_median"]], rows)

    def silicon_figure(self, name: str, node: str = "", model: str = "", format: str = "") -> str:
        """One figure of that summary: `points`, `in_band` (a percentage), `pairs`, `kept`,
        `refused`, `tpot_median`, `ttft_median`, `computed` (its date); with `node`, `model` and
        `format`, the figure of that setup."""
        data = self._band("silicon_band")
        if node:
            wanted = (node, model, format)
            data = next((s for s in data["setups"] if (s["node"], s["model"], s["format"]) == wanted), None)
            if data is None:
                raise KeyError(f"silicon_figure: silicon_band.json has no setup {wanted}")
        if name == "computed":
            from babel.dates import format_date

            return format_date(datetime.date.fromisoformat(data["computed"]), "long", locale=self.locale)
        return self._figure(data, name)

    def aiconfigurator_table(self, part: str = "all") -> str:
        """The engine and NVIDIA's AIConfigurator against the measured sweep, on the points both
        predict (macros/aiconfigurator.py): per mechanic, the factor each is off by, its median
        ratio with the 10th and 90th percentiles, the share within the sweep's band, and the
        points where each is the closer of the two."""
        t, fmt = self.t, self.fmt
        data = self._aiconfigurator(part)

        def spread(f: dict[str, Any]) -> str:
            low, high = fmt.number(f["p10_ratio"], 2), fmt.number(f["p90_ratio"], 2)
            return f"{fmt.number(f['median_ratio'], 2)} ({t['aic_range'].format(low=low, high=high)})"

        rows = []
        for mechanic in ("tpot", "ttft"):
            figures = data[mechanic]
            low, high = (fmt.brief(x) for x in data["bands"][mechanic])
            for label, shown in (
                ("off_by", lambda f: fmt.number(f["geomean_factor"], 2)),
                ("median", spread),
                ("in_band", lambda f: fmt.percent(f["in_band"])),
            ):
                label = t[f"aic_{mechanic}_{label}"].format(low=low, high=high)
                rows.append([label, shown(figures["engine"]), shown(figures["aiconfigurator"])])
            closer = (fmt.number(figures["engine_closer"]), fmt.number(figures["aiconfigurator_closer"]))
            rows.append([t[f"aic_{mechanic}_closer"], *closer])
        both = data["in_both_bands"]
        rows.append([t["aic_both"], fmt.percent(both["engine"]), fmt.percent(both["aiconfigurator"])])
        header = [t["aic_figure"], t["val_engine"], t["aic_tool"].format(version=data["version"])]
        return _table(header, rows)

    def aiconfigurator_figure(self, name: str, part: str = "all") -> str:
        """One figure of the comparison with AIConfigurator, by its path in macros.aiconfigurator's
        answer ("tpot.engine.geomean_factor", "points", "version"): a share as a percentage, a
        count whole, a ratio with two decimals."""
        value: Any = self._aiconfigurator(part)
        for step in name.split("."):
            if isinstance(value, list) and step.isdigit() and int(step) < len(value):
                value = value[int(step)]
            elif isinstance(value, dict) and step in value:
                value = value[step]
            else:
                raise KeyError(f"aiconfigurator_figure: no figure {name!r} (at {step!r})")
        if isinstance(value, str):
            return _text(value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise KeyError(f"aiconfigurator_figure: {name!r} is not one figure")
        if isinstance(value, int):
            return self.fmt.number(value)
        if name.split(".")[-1] in ("in_band", "engine", "aiconfigurator"):  # shares of points
            return self.fmt.percent(value)
        return self.fmt.number(value, 2)

    def _aiconfigurator(self, part: str) -> dict[str, Any]:
        """macros.aiconfigurator's comparison on one part of the sweep, once per catalog and files."""
        from macros.aiconfigurator import AIC_FILE, SWEEP, comparison
        from macros.build.engine_cache import kept
        from macros.file_stamps import stamps

        files = (AIC_FILE, AIC_FILE.parent / SWEEP)
        return kept(self.catalog, ("aiconfigurator", part, stamps(files)), lambda: comparison(self.catalog, which=part))

    def validation_misses(self) -> str:
        """The measurements the engine misses (outside a floor's bounds), each with its cause."""
        from macros.validation import check_all

        t = self.t
        rows = [
            [self._record(k.id), self.fmt.number(k.ratio, 2) if k.ratio is not None else "—", k.miss[self.locale]]
            for k in check_all(self.catalog)
            if k.miss
        ]
        return _table([t["val_record"], t["val_ratio"], t["val_miss"]], rows)

    def validation_unmapped(self) -> str:
        """The published measurements the engine cannot be held against, and why."""
        from macros.validation import check_all

        t = self.t
        rows = [
            [
                self._record(k.id),
                unmapped(self.locale, k.id, k.unmapped or ""),
                self._record(k.superseded_by) if k.superseded_by else "—",
                self._cite(k.source),
            ]
            for k in check_all(self.catalog)
            if k.unmapped
        ]
        return _table([t["val_record"], t["val_why"], t["val_superseded"], t["source"]], rows)

    @cached_property
    def _records(self) -> dict[str, dict[str, Any]]:
        """The published measurements by id (records.yaml, read once for the page's tables)."""
        from macros.validation import records

        return {r["id"]: r for r in records()}

    def _record(self, record_id: str) -> str:
        """A published measurement named by its setup in words (model, cards, runtime), not by its id:
        the catalog's names where the record maps to it, the publisher's words (without their
        parenthetical notes) otherwise; the id stays in `data-record`, to find it in records.yaml."""
        record = self._records[record_id]
        model = _plain(str(record.get("published_model") or "")).split("/")[-1]
        fmt = self.catalog.formats.get(record.get("format", ""))
        gpu_id = record.get("gpu")
        gpu = self.catalog.gpus[gpu_id].name if gpu_id in self.catalog.gpus else _plain(record["published_gpu"])
        count = record.get("count") or record["published_count"]
        runtime = self.catalog.runtimes.get(record.get("runtime", ""))
        parts = [model, fmt.name if fmt else "", f"{count}\u00a0×\u00a0{gpu}", runtime.name if runtime else ""]
        return markup('<span data-record="{}">{}</span>', record_id, " · ".join(p for p in parts if p))

    def _unit_word(self, unit: str, value: Any) -> str:
        """A catalog unit in the page's language, singular for one (none for ratios, counts, ids)."""
        if unit in ("ratio", "count", "gpu"):
            return ""
        word = self.t.get(f"unit_{unit}_many") or self.t.get(f"unit_{unit}", unit)
        return self.t.get(f"unit_{unit}_one", word) if value == 1 else word
