"""What the configurator's worker calls in Pyodide: the engine behind JSON strings.

The worker (overrides/assets/javascripts/configurator-worker.js) ships this file with the rest of
the engine, checks its hash, and calls these functions with strings: one string crosses into
Python and one comes back, which costs less than converting nested objects field by field.
Errors the engine raises for a reader come back as `{"ok": false, "error": ...}`; anything else
is a fault the worker reports as such.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .api import answer
from .catalog import Catalog
from .errors import EngineError, shown
from .measure import check_measurement
from .numbers import fixed_formatter
from .reasons import REASON_DIGITS

Number = Callable[[float], str]


class Session:
    """One page's engine: the catalog read once, and the locale's number writer once checked."""

    def __init__(self, catalog_json: str, words_json: str = "{}") -> None:
        self.catalog = Catalog.from_dict(json.loads(catalog_json))
        # The reasons' texts by locale (engine/messages/<locale>.json, from the site's catalogs);
        # English is the engine's own (reasons.TEMPLATES).
        self.words: dict[str, Any] = {"en": None, **json.loads(words_json)}
        self.number: Number | None = None
        self.digits = REASON_DIGITS  # the decimals of the reasons' numbers, which the page writes with Intl

    def use_separators(self, group: str, decimal: str, samples_json: str, expected_json: str) -> bool:
        """Write numbers in Python from now on, if they come out exactly as Intl writes them.

        A call out to Intl for each number costs far more; the page passes Intl's own output
        for a set of samples, and Python's is used only when every one matches.
        """
        number = fixed_formatter(self.digits, group, decimal)
        same = [number(x) for x in json.loads(samples_json)] == json.loads(expected_json)
        self.number = number if same else None
        return same

    def answer_json(self, request_json: str, locale: str, number: Number) -> str:
        """The engine's answer to a configurator request, as JSON."""
        return _reply(lambda: answer(self.catalog, _request(request_json), self._words(locale), self.number or number))

    def warm_requests_json(self) -> str:
        """Questions for the worker to answer, unseen, once it is ready, as JSON.

        A runtime restored from the build's snapshot has run almost no Python: the browser still
        runs the interpreter's code unoptimized, and a reader's first answers took twice as long
        as once it has run a while. Answering these, one per task while the reader reads, gets
        that done (half a second of the browser's time; once through the list did half as much
        good): every language model twice, the formats in turn, contexts and users varied, and
        every image or video model at its published format. Each is asked of one node at a time:
        a question about the whole catalog holds the worker for up to 50 ms, one node's for a
        millisecond or two, and a reader's question that arrives meanwhile waits for it.
        """
        c = self.catalog
        formats = list(c.formats)
        contexts = (c.assumptions.default_context, 8192, 32768, 2048)
        users = (1, 8, 32, 4)
        questions: list[dict[str, Any]] = []
        for turn in (0, 1):
            for i, model in enumerate(c.llms.values(), start=turn * 3):
                questions.append(
                    {
                        "model": model.id,
                        "format": formats[i % len(formats)],
                        "context": min(contexts[i % len(contexts)], model.max_context),
                        "concurrency": users[(i + turn) % len(users)],
                    }
                )
        for model in c.diffusion.values():
            questions.append({"model": model.id, "format": model.native_format or formats[0]})
        return json.dumps([{**question, "node": node.id} for question in questions for node in c.nodes])

    def check_json(self, kind: str, text: str, node: str, locale: str, number: Number) -> str:
        """The engine's judgement of a pasted measurement, as JSON."""
        return _reply(
            lambda: check_measurement(self.catalog, kind, text, node, self._words(locale), self.number or number)
        )

    def _words(self, locale: str) -> Any:
        if locale not in self.words:
            raise EngineError(
                f"no messages for the locale {shown(locale)}: the page's engine/messages file was not given"
            )
        return self.words[locale]


def _request(text: str) -> Any:
    """A request's JSON text, read; what JSON cannot hold as Python (a number of thousands of
    digits, nesting deeper than the interpreter goes) is refused with the engine's own error."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise EngineError(f"the request is not JSON the engine can read: {str(error).split(':')[0]}") from None


def _reply(work: Callable[[], Any]) -> str:
    try:
        out = {"ok": True, "result": work()}
    except EngineError as error:
        # The code and its parameters let the page say it in its own language.
        out = {"ok": False, "error": str(error), "code": error.code, "params": error.params}
    return json.dumps(out, allow_nan=False)
