"""How the site writes what the macros compute: number formatting per locale (locale_format.py),
text reaching a guide's Markdown (markup.py), widgets' HTML kept out of Markdown (html_blocks.py),
the build's SVG charts (charts.py) and the measure widget (measure_html.py)."""
