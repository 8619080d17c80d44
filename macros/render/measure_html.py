"""The "measure it yourself" checker: paste an output, pick the node, read the verdict.

No node is chosen in advance: judged against a node the reader did not pick, a healthy machine
would read as faulty. Until they pick one, the panel says so and checks nothing.

The judging runs in the page's engine worker (fitengine.check_measurement); this only lays out
the form. Without JavaScript the form stays hidden and a sentence says why.
"""

from __future__ import annotations

import json
from html import escape

from macros.build.pyodide_dist import pyodide_version
from macros.fitengine import Catalog
from macros.fitengine.measure import MEASUREMENTS
from macros.i18n import MEASURE


def measure_html(catalog: Catalog, locale: str, root: str) -> str:
    """The checker's form; no node is chosen for the reader: the check waits until they pick theirs."""
    t = MEASURE[locale]
    kinds = "".join(f'<option value="{k}">{escape(t["kind_" + k])}</option>' for k in MEASUREMENTS)
    nodes = f'<option value="" selected>{escape(t["choose_node"])}</option>' + "".join(
        f'<option value="{escape(n.id)}">{escape(n.id)}</option>' for n in catalog.nodes
    )
    return "\n".join(
        [
            f'<div class="measure" data-measure data-search-exclude data-locale="{locale}" data-root="{escape(root)}" data-pyodide="{escape(pyodide_version())}"'
            f' data-max-cards="{max(n.count for n in catalog.nodes)}">',
            f'<script type="application/json" data-labels>{json.dumps(t, ensure_ascii=False)}</script>',
            f'<p class="measure__nojs" data-nojs>{escape(t["nojs"])}</p>',
            '<form class="measure__form" data-form hidden>',
            f'<div class="configurator__field"><label for="measure-kind">{escape(t["kind"])}</label>'
            f'<select id="measure-kind" name="kind">{kinds}</select></div>',
            f'<div class="configurator__field"><label for="measure-node">{escape(t["node"])}</label>'
            f'<select id="measure-node" name="node" aria-describedby="measure-node-help">{nodes}</select>'
            f'<span class="measure__help" id="measure-node-help" data-node-help>{escape(t["node_help"])}</span></div>',
            f'<div class="configurator__field configurator__field--wide"><label for="measure-text">{escape(t["paste"])}</label>'
            '<textarea id="measure-text" name="text" rows="8" spellcheck="false"></textarea></div>',
            f'<button type="submit" class="md-button md-button--primary">{escape(t["check"])}</button>',
            "</form>",
            '<p class="measure__status" data-status role="status"></p>',
            '<div class="measure__result" data-result aria-live="polite"></div>',
            "</div>",
        ]
    )
