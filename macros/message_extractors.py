"""Babel's extractors for the site's words (babel.cfg maps the files to them; `make messages` and
the build's check run them): the `Messages` tables of the code, and the texts of the catalog's YAML."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from macros.messages import MSGID_LANGUAGE, is_text, text_context

LIBYAML = True  # compose the catalog with libyaml when PyYAML has it (a test compares the two)


def extract_tables(
    fileobj: IO[bytes], keywords: Collection[str], comment_tags: Collection[str], options: Mapping[str, Any]
) -> Iterator[tuple[int, str, tuple[str, ...], list[str]]]:
    """Every `Messages("context", {key: text})` of a Python file, as pgettext / npgettext calls.

    A text that is not a literal string (or a pair of them) is refused, naming its line: the
    catalogs could not hold it.
    """
    name = getattr(fileobj, "name", "(file)")
    source = fileobj.read()
    if b"Messages" not in source:  # no call of it, by any name the walk below looks for
        return
    tree = ast.parse(source, filename=name)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _called(node) == "Messages" and len(node.args) == 2):
            continue
        context, table = node.args
        if not (isinstance(context, ast.Constant) and isinstance(context.value, str) and isinstance(table, ast.Dict)):
            raise ValueError(f"{name}:{node.lineno}: Messages takes a literal context and a literal dict")
        for key, value in zip(table.keys, table.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise ValueError(f"{name}:{value.lineno}: a message's key must be a literal string")
            msgctxt = f"{context.value}.{key.value}"
            texts = _literal_texts(value)
            if texts is None:
                raise ValueError(
                    f"{name}:{value.lineno}: {msgctxt}: a message must be a literal string or a pair of them"
                )
            funcname = "pgettext" if len(texts) == 1 else "npgettext"
            yield value.lineno, funcname, (msgctxt, *texts), []


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _literal_texts(value: ast.expr) -> tuple[str, ...] | None:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return (value.value,)
    if isinstance(value, ast.Tuple) and len(value.elts) == 2:
        texts = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return tuple(texts) if len(texts) == 2 else None
    return None


def extract_catalog(
    fileobj: IO[bytes], keywords: Collection[str], comment_tags: Collection[str], options: Mapping[str, Any]
) -> Iterator[tuple[int, str, tuple[str, ...], list[str]]]:
    """The words of a catalog YAML file: every text given as `{en: English}` (a constant's `label`
    and `explain`, a format's `name` and `quality`, a record's `miss`...), with
    `catalog.<path>` as its context (`catalog_texts`), and why each published measurement of
    records.yaml is not compared (`unmapped`, by record id).

    Where the source's own words are quoted (`source`, `quote`) the YAML keeps them as they are:
    they are not the site's words and have no translation.
    """
    import yaml

    name = getattr(fileobj, "name", "(file)")
    # libyaml's parser when PyYAML has it: the same nodes and lines as the pure-Python one, ten
    # times sooner (the build's message check extracts every catalog file).
    root = yaml.compose(fileobj.read().decode("utf-8"), Loader=_loader())
    if root is None:
        return
    for path, node in _text_nodes(root, ()):
        english = next(v for k, v in node.value if k.value == MSGID_LANGUAGE)
        if not (isinstance(english, yaml.ScalarNode) and english.value):
            raise ValueError(f"{name}:{english.start_mark.line + 1}: {text_context(path)}: expected English text")
        yield english.start_mark.line + 1, "pgettext", (text_context(path), english.value), []
    records = (
        next((v for k, v in root.value if k.value == "records"), None) if isinstance(root, yaml.MappingNode) else None
    )
    for record in records.value if isinstance(records, yaml.SequenceNode) else []:
        if not isinstance(record, yaml.MappingNode):
            continue
        fields = {k.value: v for k, v in record.value if isinstance(k, yaml.ScalarNode)}
        text, ident = fields.get("unmapped"), fields.get("id")
        if isinstance(text, yaml.ScalarNode) and isinstance(ident, yaml.ScalarNode) and text.value:
            yield text.start_mark.line + 1, "pgettext", (f"unmapped.{ident.value}", text.value), []


def _loader() -> type:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader) if LIBYAML else yaml.SafeLoader


def _text_nodes(node: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every text mapping under a composed YAML node, with its path (a list item by its `id`)."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        keys = [k.value for k, _ in node.value if isinstance(k, yaml.ScalarNode)]
        if path and is_text(keys):
            yield path, node
            return
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                yield from _text_nodes(value, (*path, key.value))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            ident = (
                next((v.value for k, v in item.value if k.value == "id" and isinstance(v, yaml.ScalarNode)), None)
                if isinstance(item, yaml.MappingNode)
                else None
            )
            yield from _text_nodes(item, (*path, str(ident if ident is not None else index)))
