"""A catalog whose names carry markup builds pages that show it as text: no element, attribute,
script or link is made of a card's, format's, runtime's, model's or image model's name, in
either locale, wherever the macros and widgets write it (Markdown tables, prose, HTML, SVG)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from .site_build import ROOT, build_site

MARK = "pwn3d"  # in every payload, so that what comes of them can be found
PAYLOADS = {
    # (file, the entry's line, its name line): the name given
    ("gpus", "  - id: h100-sxm\n", "    name: NVIDIA H100 SXM5 80GB\n"): f"H100 <script>alert('{MARK}-gpu')</script>",
    ("formats", "  - id: bf16\n", "    name: BF16\n"): f'BF16 <img src=x onerror="alert(1)" alt="{MARK}-format">',
    ("runtimes", "  - id: vllm\n", "    name: vLLM\n"): f"vLLM [{MARK}-runtime](javascript:alert(1))",
    (
        "models",
        "  - id: llama-3.3-70b\n",
        "    name: Llama 3.3 70B\n",
    ): f"Llama <svg onload=alert(1)>{MARK}-model</svg>",
    ("models", "  - id: flux.1-dev\n", "    name: FLUX.1 [dev]\n"): f'<a href="javascript:alert(1)">{MARK}-image</a>',
}


def _hostile_catalog(catalog_copy: Path) -> Path:
    for (name, entry, line), payload in PAYLOADS.items():
        path = catalog_copy / f"{name}.yaml"
        text = path.read_text(encoding="utf-8")
        at = text.index(entry)
        quoted = '"' + payload.replace("\\", "\\\\").replace('"', '\\"') + '"'
        assert text.index(line, at) == at + len(entry), (name, line)
        path.write_text(
            text[:at]
            + entry
            + line.replace(line.split(": ", 1)[1], quoted + "\n")
            + text[at + len(entry) + len(line) :]
        )
    return catalog_copy


TEXT_ATTRIBUTES = ("title", "aria-label", "alt", "content", "data-name")


class Live(HTMLParser):
    """What of a page would act: elements and attributes made of a payload, scripts, event handlers and links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.made: list[str] = []  # tags, attributes and scripts a payload made
        self.text: list[str] = []
        self.script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            handler = name.startswith("on") or (value or "").strip().lower().startswith("javascript:")
            # A payload's text may be an attribute's value that is read as text, nowhere else.
            if handler or (MARK in (value or "") and name not in TEXT_ATTRIBUTES):
                self.made.append(f"<{tag} {name}={value!r}>")
        if tag in ("script", "iframe", "svg", "img", "a") and any(MARK in (v or "") for _, v in attrs):
            self.made.append(f"<{tag}> from a payload")
        self.script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self.script = False

    def handle_data(self, data: str) -> None:
        if self.script and MARK in data and "alert" in data:
            self.made.append(f"script: {data[:80]!r}")
        self.text.append(data)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    from macros.catalog_loader import CATALOG_DIR

    work = tmp_path_factory.mktemp("hostile")
    catalog = work / "catalog"
    shutil.copytree(CATALOG_DIR, catalog)
    return build_site(work / "site", catalog=_hostile_catalog(catalog))


def _pages(site: Path) -> list[Path]:
    return [p for p in sorted(site.rglob("*.html")) if "search" not in p.parts]


def test_names_with_markup_make_no_element_script_or_link(hostile_site):
    found: dict[str, list[str]] = {}
    shown = set()
    for page in _pages(hostile_site):
        parser = Live()
        parser.feed(page.read_text(encoding="utf-8"))
        if parser.made:
            found[page.relative_to(hostile_site).as_posix()] = parser.made[:5]
        text = "".join(parser.text)
        shown |= {m.group(0) for m in re.finditer(MARK + r"-\w+", text)}
    assert not found, found
    # Each payload was written, as text, somewhere in the site.
    assert shown == {f"{MARK}-{kind}" for kind in ("gpu", "format", "runtime", "model", "image")}, shown


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_each_locale_shows_the_names_as_typed(hostile_site, locale):
    text = ""
    for page in _pages(hostile_site / locale):
        parser = Live()
        parser.feed(page.read_text(encoding="utf-8"))
        text += "".join(parser.text)
    missing = [payload for payload in PAYLOADS.values() if payload not in text]
    assert not missing, (locale, missing)


def test_the_sweep_tables_slices_carry_their_values_in_french(hostile_site):
    # The labels held {{value}}: formatted, "{value}" was left, which the page's attribute
    # lists then swallowed ("charge :" and nothing after it).
    from macros.i18n import LABELS

    t = LABELS["fr"]
    parser = Live()
    parser.feed((hostile_site / "fr" / "methodologie" / "index.html").read_text(encoding="utf-8"))
    text = "".join(parser.text)
    assert t["sweep_load"].format(value=t["sweep_v_1-8 users"]) in text
    assert "{value}" not in text


# --- the Content Security Policy every page states ---------------------------------------


class Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.policies: list[str] = []
        self.before: list[str] = []  # elements of the head ahead of the policy, other than the charset

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "content-security-policy":
            self.policies.append(values.get("content") or "")
        elif not self.policies and tag not in ("html", "head") and not (tag == "meta" and "charset" in values):
            self.before.append(tag)


def test_every_page_states_the_policy_the_readme_asks_hosts_to_send(site):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    policy = re.search(r"works under\s+`Content-Security-Policy: ([^`]+)`", readme).group(1)
    pages = sorted(site.rglob("*.html"))
    assert {"index.html", "404.html", "fr/index.html", "en/404.html"} <= {p.relative_to(site).as_posix() for p in pages}
    wrong = {}
    for page in pages:
        head = Head()
        head.feed(page.read_text(encoding="utf-8").split("</head>")[0])
        if head.policies != [policy] or head.before:
            wrong[page.relative_to(site).as_posix()] = (head.policies, head.before)
    assert not wrong, list(wrong.items())[:3]
