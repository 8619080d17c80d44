"""The words of the site's tables, widgets and theme pages, in English: each locale's come from its catalog.

Each table is a `Messages` (macros/fitengine/reasons.py): English texts by key, the msgids of the
site's gettext catalogs, found there by the extractor (`make messages`, babel.cfg). `LABELS[locale]`
is the table in that locale's words (macros/messages.py: English as written here, any other
language from locales/<locale>/LC_MESSAGES/site.po). A pair of texts has plural forms: the table
in a locale has `<key>_one` (for 1) and `<key>_many`.

One module a table: `labels.py` (the guides' tables), `widget.py` (the configurator),
`measure.py` (the measure-it-yourself panel) and `site.py` (the theme's own pages). To add a
string: write it there in English, run `make messages`, then translate it in each locale's .po
file (a missing or fuzzy translation stops the build, naming it).
"""

from macros.i18n.labels import LABELS, unmapped
from macros.i18n.measure import MEASURE
from macros.i18n.site import SITE
from macros.i18n.widget import WIDGET

__all__ = ["LABELS", "MEASURE", "SITE", "WIDGET", "unmapped"]
