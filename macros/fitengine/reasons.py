"""Why a verdict is what it is, as a code with parameters, rendered in the reader's language.

The engine returns `Reason` values, never sentences, so that it stays free of locale state;
`render` turns them into text for a given locale with the caller's number formatter (Babel at
build time, Intl.NumberFormat in the browser).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Decimals of every number in a reason sentence, wherever it is written: the build, the
# guides, and the browser (whose worker reads it from here).
REASON_DIGITS = 1


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
        "split_layers": "Layers split over {cards} cards, one after another: {need} GB per card of {capacity} GB.",
        "split_ep": "Split over {cards} cards, tensor parallel {tp} with the experts dealt whole to the {ep} cards: {need} GB per card of {capacity} GB.",
        "split_dp": "Split over {cards} cards: attention in {dp} data-parallel ranks of {tp} card(s), each with its own requests and KV cache, the experts dealt whole to all {ep} cards: {need} GB per card of {capacity} GB.",
        "dp_ranks": "Each of the {dp} ranks serves up to {per_rank} users; their steps run together, so every user's tokens wait for the prompts of all ranks.",
        "fp8_kv_fits": "It fits with an FP8 KV cache (a vLLM option that halves the cache).",
        "replicas": "The node holds {replicas} replicas of this layout; the {users} users are spread over them, up to {per_replica} each.",
        "target_met": "Within the target: {speed} tok/s per user against {min} asked, a first token in {ttft} s against {max} s at most.",
        "target_missed": "Misses the target: {speed} tok/s per user against {min} asked, a first token in {ttft} s against {max} s at most.",
        "layout_best": "Of the {layouts} layouts that hold it, this one serves these users within the target with the most tokens an hour, hence the lowest price per token.",
        "layout_closest": "Of the {layouts} layouts that hold it, none meets the target for these users; this one comes closest.",
        "queued": "Memory and the runtime admit {admitted} requests at once; of {users} users, the others wait about {queue} s for a place (counted in the time to first token).",
        "layout_too_big": "The requested layout needs {cards} cards; this node has {count}.",
        "layout_no_tp": "{runtime} has no tensor parallelism.",
        "layout_no_pp": "{runtime} has no pipeline parallelism.",
        "layout_no_ep": "{runtime} offers no expert parallelism for this model.",
        "layout_no_dp": "{runtime} has no data-parallel attention with expert parallelism.",
        "layout_dp_dense": "Data-parallel attention ({dp} ranks) is for mixture-of-experts models: a dense model's data-parallel ranks are independent copies, which the engine already places on the node's spare cards.",
        "layout_dp_pp": "Data-parallel attention ({dp} ranks) is modeled without pipeline stages, not with {pp}.",
        "layout_stages": "{pp} pipeline stages is more than the model's {layers} layers.",
        "layout_heads": "Tensor parallel {tp} does not divide the {heads} attention heads.",
        "layout_kv_heads": "Tensor parallel {tp} neither divides nor is divided by the {kv_heads} KV heads.",
        "layout_width": "Tensor parallel {tp} does not split the MLP width of {width} evenly.",
        "layout_experts": "Expert parallel {ep} does not divide the {experts} experts.",
        "layout_block": "Tensor parallel {tp} would cut the width of {width} into slices of {slice}, not a whole number of {block}-weight quantization blocks.",
        "no_memory": "Does not fit: even split over {count} cards it needs {need} GB per card, {capacity} GB available.",
        "no_memory_one": "Does not fit: it needs {need} GB on the node's one card, {capacity} GB available.",
        "no_room": "Does not fit: the runtime reserve alone ({reserve} GB) fills the usable memory ({capacity} GB).",
        "format_unsupported": "{gpu} ({architecture}) cannot run {format}.",
        "format_moe_weight_only": "{gpu} runs {format} only through a weight-only kernel, which does not support mixture-of-experts models.",
        "weight_only": "{gpu} runs {format} only through a weight-only kernel: weights are dequantized on the fly.",
        "diffusion_fits": "The whole pipeline fits on one card: {need} GB of {capacity} GB; {replicas} generations at once on this node.",
        "diffusion_fits_one": "The whole pipeline fits on the card: {need} GB of {capacity} GB.",
        "diffusion_offload": "Fits only with the text encoders on the CPU: {need} GB of {capacity} GB on the card.",
        "diffusion_no_memory": "Does not fit on one card: {need} GB needed even with the text encoders on the CPU, {capacity} GB available. The engine sizes one whole pipeline per card: splitting one generation over several cards (FSDP and xDiT sequence parallelism, which Wan 2.1 offers) is not modeled.",
        "diffusion_format": "{format} is not a format for diffusion pipelines.",
        "topo_count": "The matrix shows {found} GPUs; {node} has {count}.",
        "topo_no_nvlink": "{pairs} do not talk over NVLink; every pair of this node should show {want}.",
        "topo_fewer_links": "{pairs} show {found} instead of {want}: some NVLinks are down.",
        "topo_all_nvlink": "All {count} GPUs reach each other over {want}, as this node promises.",
        "topo_bridge_missing": "{pairs} should be joined by an NVLink bridge but talk over PCIe.",
        "topo_bridges_ok": "The bridged GPUs ({pairs}) talk over NVLink.",
        "topo_sys_in_group": "{pairs} cross CPU sockets (SYS) although they are meant to share a tensor-parallel group.",
        "topo_sys_across_sockets": "Groups of more than {per_socket} GPUs cross CPU sockets (SYS), as this node's two sockets imply: keep tensor-parallel groups within a socket.",
        "topo_pcie_ok": "The {count} GPUs talk over PCIe, as this node promises.",
        "topo_one_socket": "{pairs} show {found}, a path within one CPU socket, while {node} has its cards on {sockets} sockets (SYS between them): is {node} the node you rent?",
        "topo_unexpected_nvlink": "{pairs} show NVLink, which {node} does not have: is this output from another machine?",
        "nv_none": "{gpu} has no NVLink.",
        "nv_links_down": "Links down or slower than the {rate} GB/s an {link} link is rated for: {gpus} active.",
        "nv_gpu_no_link": "{gpus}: no NVLink up at the {rate} GB/s an {link} link is rated for; these GPUs reach the others over PCIe only.",
        "nv_all_up": "Every GPU has its {links} NVLinks up at {speed} GB/s.",
        "nv_count": "The output lists {found} GPUs; {node} has {count}.",
        "nv_too_many": "{gpus} list more links than the {most} a {gpu} has: is this output from another machine?",
        "nv_faster_than_link": "Links report {speed} GB/s, more than an {link} link's {rate} GB/s: is this output from another machine?",
        "topo_too_many_links": "{pairs} show {found}, more NVLinks than {node} has between two cards ({want}): is this output from another machine?",
        "topo_other_node": "No pair of GPUs shows the link {node} has: is {node} the node you rent? This matrix is what {matches} should show.",
        "topo_other_node_unknown": "No pair of GPUs shows the link {node} has: is {node} the node you rent?",
        "ar_too_many": "The run used {ranks} GPUs; {node} has only {count}.",
        "ar_one_gpu": "A run on one GPU measures no link.",
        "ar_fewer": "The run used {ranks} of the node's {count} GPUs: judged as a group of {ranks}.",
        "ar_wrong": "{rows} message sizes returned wrong results: a hardware or driver fault.",
        "ar_out_of_bounds": "nccl-tests counts {tests} tests with wrong results (Out of bounds values): a hardware or driver fault.",
        "ar_unchecked": "The run did not check its results (#wrong reads N/A: it was started with -c 0), so wrong results would go unseen: run it again without -c 0.",
        "ar_healthy": "Large messages reach {busbw} GB/s of bus bandwidth ({size}), {share} % of {link}'s {rate} GB/s per direction: healthy.",
        "ar_above_line_rate": "Large messages reach {busbw} GB/s of bus bandwidth ({size}), above {link}'s {rate} GB/s per direction: the switch reduces in the fabric (NVLink SHARP). Healthy.",
        "ar_faster_than_link": "Large messages reach {busbw} GB/s of bus bandwidth ({size}), more than {link}'s {rate} GB/s per direction can carry: is this output from another machine?",
        "ar_low": "Large messages reach only {busbw} GB/s of bus bandwidth ({size}), {share} % of {link}'s {rate} GB/s per direction: low.",
        "ar_fault": "Large messages reach only {busbw} GB/s of bus bandwidth ({size}), {share} % of {link}'s {rate} GB/s per direction: a sign of a fault.",
    },
    "fr": {
        "single": "Tient sur une carte : {need} Go sur {capacity} Go.",
        "single_copies": "Tient sur une carte : {need} Go sur {capacity} Go ; le nœud peut faire tourner {replicas} copies indépendantes.",
        "split_tp": "Réparti sur {cards} cartes, parallélisme tensoriel {tp} : {need} Go par carte sur {capacity} Go.",
        "split_pp": "Réparti sur {cards} cartes, parallélisme tensoriel {tp} × {pp} étages de pipeline : {need} Go par carte sur {capacity} Go.",
        "split_layers": "Couches réparties sur {cards} cartes, l’une après l’autre : {need} Go par carte sur {capacity} Go.",
        "split_ep": "Réparti sur {cards} cartes, parallélisme tensoriel {tp}, experts distribués entiers aux {ep} cartes : {need} Go par carte sur {capacity} Go.",
        "split_dp": "Réparti sur {cards} cartes : attention en {dp} rangs parallèles de données de {tp} carte(s), chacun avec ses requêtes et son cache KV, experts distribués entiers aux {ep} cartes : {need} Go par carte sur {capacity} Go.",
        "dp_ranks": "Chacun des {dp} rangs sert jusqu’à {per_rank} utilisateurs ; leurs étapes avancent ensemble, si bien que les tokens de chacun attendent les prompts de tous les rangs.",
        "fp8_kv_fits": "Il tient avec un cache KV en FP8 (une option de vLLM qui divise le cache par deux).",
        "replicas": "Le nœud contient {replicas} répliques de cette disposition ; les {users} utilisateurs s’y répartissent, {per_replica} au plus chacune.",
        "target_met": "Dans la cible : {speed} tok/s par utilisateur pour {min} visés, un premier token en {ttft} s pour {max} s au plus.",
        "target_missed": "Hors de la cible : {speed} tok/s par utilisateur pour {min} visés, un premier token en {ttft} s pour {max} s au plus.",
        "layout_best": "Des {layouts} dispositions qui le tiennent, celle-ci sert ces utilisateurs dans la cible en produisant le plus de tokens à l’heure, donc au plus bas prix par token.",
        "layout_closest": "Des {layouts} dispositions qui le tiennent, aucune n’atteint la cible pour ces utilisateurs ; celle-ci s’en approche le plus.",
        "queued": "La mémoire et le moteur admettent {admitted} requêtes à la fois ; sur {users} utilisateurs, les autres attendent une place environ {queue} s (compté dans le temps jusqu’au premier token).",
        "layout_too_big": "La disposition demandée exige {cards} cartes ; ce nœud en a {count}.",
        "layout_no_tp": "{runtime} n’offre pas de parallélisme tensoriel.",
        "layout_no_pp": "{runtime} n’offre pas de parallélisme de pipeline.",
        "layout_no_ep": "{runtime} n’offre pas de parallélisme d’experts pour ce modèle.",
        "layout_no_dp": "{runtime} n’offre pas d’attention parallèle de données avec parallélisme d’experts.",
        "layout_dp_dense": "L’attention parallèle de données ({dp} rangs) vaut pour les modèles à mélange d’experts : les rangs d’un modèle dense sont des copies indépendantes, que le moteur place déjà sur les cartes libres du nœud.",
        "layout_dp_pp": "L’attention parallèle de données ({dp} rangs) est modélisée sans étages de pipeline, pas avec {pp}.",
        "layout_stages": "{pp} étages de pipeline, c’est plus que les {layers} couches du modèle.",
        "layout_heads": "Un parallélisme tensoriel de {tp} ne divise pas les {heads} têtes d’attention.",
        "layout_kv_heads": "Un parallélisme tensoriel de {tp} ne divise pas les {kv_heads} têtes KV et n’en est pas un multiple.",
        "layout_width": "Un parallélisme tensoriel de {tp} ne partage pas également la largeur du MLP ({width}).",
        "layout_experts": "Un parallélisme d’experts de {ep} ne divise pas les {experts} experts.",
        "layout_block": "Un parallélisme tensoriel de {tp} couperait la largeur de {width} en tranches de {slice}, pas un nombre entier de blocs de quantification de {block} poids.",
        "no_memory": "Ne tient pas : même réparti sur {count} cartes, il faut {need} Go par carte pour {capacity} Go disponibles.",
        "no_memory_one": "Ne tient pas : il faut {need} Go sur l’unique carte du nœud, pour {capacity} Go disponibles.",
        "no_room": "Ne tient pas : la réserve d’exécution seule ({reserve} Go) remplit la mémoire utilisable ({capacity} Go).",
        "format_unsupported": "La {gpu} ({architecture}) ne sait pas exécuter le format {format}.",
        "format_moe_weight_only": "La {gpu} n’exécute {format} qu’avec un noyau à poids seuls, qui ne prend pas en charge les modèles à mélange d’experts.",
        "weight_only": "La {gpu} n’exécute {format} qu’avec un noyau à poids seuls : les poids sont déquantifiés à la volée.",
        "diffusion_fits": "Tout le pipeline tient sur une carte : {need} Go sur {capacity} Go ; {replicas} générations simultanées sur ce nœud.",
        "diffusion_fits_one": "Tout le pipeline tient sur la carte : {need} Go sur {capacity} Go.",
        "diffusion_offload": "Ne tient qu’avec les encodeurs de texte sur le CPU : {need} Go sur {capacity} Go sur la carte.",
        "diffusion_no_memory": "Ne tient pas sur une carte : {need} Go nécessaires même avec les encodeurs de texte sur le CPU, pour {capacity} Go disponibles. Le moteur dimensionne un pipeline entier par carte : la répartition d’une génération sur plusieurs cartes (FSDP et parallélisme de séquence de xDiT, que propose Wan 2.1) n’est pas modélisée.",
        "diffusion_format": "{format} n’est pas un format pour les pipelines de diffusion.",
        "topo_count": "La matrice montre {found} GPU ; {node} en compte {count}.",
        "topo_no_nvlink": "{pairs} ne communiquent pas par NVLink ; chaque paire de ce nœud devrait afficher {want}.",
        "topo_fewer_links": "{pairs} affichent {found} au lieu de {want} : des liens NVLink sont tombés.",
        "topo_all_nvlink": "Les {count} GPU se joignent tous par {want}, comme ce nœud le promet.",
        "topo_bridge_missing": "{pairs} devraient être reliés par un pont NVLink mais passent par le PCIe.",
        "topo_bridges_ok": "Les GPU pontés ({pairs}) communiquent par NVLink.",
        "topo_sys_in_group": "{pairs} traversent les sockets du CPU (SYS) alors qu’ils doivent partager un groupe de parallélisme tensoriel.",
        "topo_sys_across_sockets": "Les groupes de plus de {per_socket} GPU traversent les sockets du CPU (SYS), comme les deux sockets de ce nœud l’impliquent : gardez les groupes de parallélisme tensoriel dans un socket.",
        "topo_pcie_ok": "Les {count} GPU communiquent par le PCIe, comme ce nœud le promet.",
        "topo_one_socket": "{pairs} affichent {found}, un chemin dans un seul socket du CPU, alors que {node} répartit ses cartes sur {sockets} sockets (SYS entre eux) : est-ce bien le nœud que vous louez ?",
        "topo_unexpected_nvlink": "{pairs} affichent du NVLink, que {node} n’a pas : cette sortie vient-elle d’une autre machine ?",
        "nv_none": "La {gpu} n’a pas de NVLink.",
        "nv_links_down": "Liens tombés ou plus lents que les {rate} Go/s nominaux d’un lien {link} : {gpus} actifs.",
        "nv_gpu_no_link": "{gpus} : aucun lien NVLink actif aux {rate} Go/s nominaux d’un lien {link} ; ces GPU ne joignent les autres que par le PCIe.",
        "nv_all_up": "Chaque GPU a ses {links} liens NVLink actifs à {speed} Go/s.",
        "nv_count": "La sortie liste {found} GPU ; {node} en compte {count}.",
        "nv_too_many": "{gpus} listent plus de liens que les {most} d’une {gpu} : cette sortie vient-elle d’une autre machine ?",
        "nv_faster_than_link": "Des liens annoncent {speed} Go/s, plus que les {rate} Go/s d’un lien {link} : cette sortie vient-elle d’une autre machine ?",
        "topo_too_many_links": "{pairs} affichent {found}, plus de liens NVLink que {node} n’en a entre deux cartes ({want}) : cette sortie vient-elle d’une autre machine ?",
        "topo_other_node": "Aucune paire de GPU ne montre la liaison de {node} : est-ce bien le nœud que vous louez ? Cette matrice est celle qu’on attend de {matches}.",
        "topo_other_node_unknown": "Aucune paire de GPU ne montre la liaison de {node} : est-ce bien le nœud que vous louez ?",
        "ar_too_many": "La mesure a utilisé {ranks} GPU ; {node} n’en a que {count}.",
        "ar_one_gpu": "Une mesure sur un seul GPU ne mesure aucune liaison.",
        "ar_fewer": "La mesure a utilisé {ranks} des {count} GPU du nœud : jugée comme un groupe de {ranks}.",
        "ar_wrong": "{rows} tailles de message ont donné des résultats faux : une panne matérielle ou de pilote.",
        "ar_out_of_bounds": "nccl-tests compte {tests} tests aux résultats faux dans son bilan final : une panne matérielle ou de pilote.",
        "ar_unchecked": "La mesure n’a pas vérifié ses résultats (#wrong vaut N/A : elle a été lancée avec -c 0), des résultats faux passeraient donc inaperçus : relancez-la sans -c 0.",
        "ar_healthy": "Les grands messages atteignent {busbw} Go/s de bande passante de bus ({size}), {share} % des {rate} Go/s par sens de la liaison {link} : sain.",
        "ar_above_line_rate": "Les grands messages atteignent {busbw} Go/s de bande passante de bus ({size}), au-delà des {rate} Go/s par sens de la liaison {link} : le commutateur réduit dans le réseau (NVLink SHARP). Sain.",
        "ar_faster_than_link": "Les grands messages atteignent {busbw} Go/s de bande passante de bus ({size}), plus que les {rate} Go/s par sens de la liaison {link} : cette sortie vient-elle d’une autre machine ?",
        "ar_low": "Les grands messages n’atteignent que {busbw} Go/s de bande passante de bus ({size}), {share} % des {rate} Go/s par sens de la liaison {link} : faible.",
        "ar_fault": "Les grands messages n’atteignent que {busbw} Go/s de bande passante de bus ({size}), {share} % des {rate} Go/s par sens de la liaison {link} : signe d’une panne.",
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
