"""Why a verdict is what it is, as a code with parameters, rendered in the reader's language.

The engine returns `Reason` values, never sentences, so that it stays free of locale state;
`render` turns them into text for a given locale with the caller's number formatter (Babel at
build time, Intl.NumberFormat in the browser).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reason:
    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params)}


TEMPLATES: dict[str, dict[str, str]] = {
    "en": {
        "single": "Fits on one card: {need} GB of {capacity} GB.",
        "single_copies": "Fits on one card: {need} GB of {capacity} GB; the node can run {replicas} independent copies.",
        "split_tp": "Split over {cards} cards, tensor parallel {tp}: {need} GB per card of {capacity} GB.",
        "split_pp": "Split over {cards} cards, tensor parallel {tp} x {pp} pipeline stages: {need} GB per card of {capacity} GB.",
        "no_memory": "Does not fit: even split over all {count} cards it needs {need} GB per card, {capacity} GB available.",
        "no_memory_one": "Does not fit: it needs {need} GB on the node's one card, {capacity} GB available.",
        "no_room": "Does not fit: the runtime reserve alone ({reserve} GB) fills the usable memory ({capacity} GB).",
        "format_unsupported": "{gpu} ({architecture}) cannot run {format}.",
        "format_moe_weight_only": "{gpu} runs {format} only through a weight-only kernel, which does not support mixture-of-experts models.",
        "weight_only": "{gpu} runs {format} only through a weight-only kernel: weights are dequantized on the fly.",
        "diffusion_fits": "The whole pipeline fits on one card: {need} GB of {capacity} GB; {replicas} generations at once on this node.",
        "diffusion_fits_one": "The whole pipeline fits on the card: {need} GB of {capacity} GB.",
        "diffusion_offload": "Fits only with the text encoders on the CPU: {need} GB of {capacity} GB on the card.",
        "diffusion_no_memory": "Does not fit on one card: {need} GB needed even with the text encoders on the CPU, {capacity} GB available. Diffusion pipelines do not split across cards.",
        "diffusion_format": "{format} is not a format for diffusion pipelines.",
    },
    "fr": {
        "single": "Tient sur une carte : {need} GB sur {capacity} GB.",
        "single_copies": "Tient sur une carte : {need} GB sur {capacity} GB ; le nœud peut faire tourner {replicas} copies indépendantes.",
        "split_tp": "Réparti sur {cards} cartes, parallélisme tensoriel {tp} : {need} GB par carte sur {capacity} GB.",
        "split_pp": "Réparti sur {cards} cartes, parallélisme tensoriel {tp} × {pp} étages de pipeline : {need} GB par carte sur {capacity} GB.",
        "no_memory": "Ne tient pas : même réparti sur les {count} cartes, il faut {need} GB par carte pour {capacity} GB disponibles.",
        "no_memory_one": "Ne tient pas : il faut {need} GB sur l’unique carte du nœud, pour {capacity} GB disponibles.",
        "no_room": "Ne tient pas : la réserve d’exécution seule ({reserve} GB) remplit la mémoire utilisable ({capacity} GB).",
        "format_unsupported": "La {gpu} ({architecture}) ne sait pas exécuter le format {format}.",
        "format_moe_weight_only": "La {gpu} n’exécute {format} qu’avec un noyau à poids seuls, qui ne prend pas en charge les modèles à mélange d’experts.",
        "weight_only": "La {gpu} n’exécute {format} qu’avec un noyau à poids seuls : les poids sont déquantifiés à la volée.",
        "diffusion_fits": "Tout le pipeline tient sur une carte : {need} GB sur {capacity} GB ; {replicas} générations simultanées sur ce nœud.",
        "diffusion_fits_one": "Tout le pipeline tient sur la carte : {need} GB sur {capacity} GB.",
        "diffusion_offload": "Ne tient qu’avec les encodeurs de texte sur le CPU : {need} GB sur {capacity} GB sur la carte.",
        "diffusion_no_memory": "Ne tient pas sur une carte : {need} GB nécessaires même avec les encodeurs de texte sur le CPU, pour {capacity} GB disponibles. Un pipeline de diffusion ne se répartit pas entre cartes.",
        "diffusion_format": "{format} n’est pas un format pour les pipelines de diffusion.",
    },
}

LOCALES = tuple(TEMPLATES)


def _plain(value: float) -> str:
    return f"{value:,.1f}"


def render(reason: Reason, locale: str = "en", number: Callable[[float], str] = _plain) -> str:
    """The reason as a sentence in `locale`; floats go through `number`, the locale's formatter."""
    templates = TEMPLATES.get(locale) or TEMPLATES["en"]
    params = {k: number(v) if isinstance(v, float) else v for k, v in reason.params.items()}
    return templates[reason.code].format(**params)
