"""The "measure it yourself" checker on the NVLink guide, in both locales, in the page's engine."""

from __future__ import annotations

import pytest

from macros.i18n import MEASURE

from .browser import measure, wait_until
from .conftest import FIXTURES
from .test_site import LOCALES, PAGE_PATHS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("locale", LOCALES)
def test_pasted_topology_gets_a_verdict_and_a_colored_matrix(browser, server, locale):
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{locale}/{PAGE_PATHS['nvlink'][locale]}")
    assert page.is_hidden("[data-measure] [data-nojs]")
    verdict = measure(page, "8x-h100-sxm", (FIXTURES / "measure" / "topo-8x-h100-degraded.txt").read_text())
    assert verdict == "fault"
    assert page.locator(".measure__matrix td.link--sys").count() == 2
    assert page.locator(".measure__matrix td.link--nvlink").count() == 54
    assert "GPU2–GPU3" in page.text_content("[data-measure] [data-result] ul")
    # Garbage gets the parser's message, as text.
    page.fill("#measure-text", "<b>not a matrix</b>")
    page.click("[data-measure] button[type=submit]")
    wait_until(lambda: page.locator(".measure__error").count(), 10, "the message")
    # In the page's words, from the engine's code (no backticks, no English on a French page).
    assert page.text_content(".measure__error") == MEASURE[locale]["err_topo_no_header"]
    assert page.locator("[data-measure] b").count() == 0
    assert not errors, errors
    page.close()


def fixture_labels(name: str) -> list[list[str]]:
    """The GPU-to-GPU labels of a fixture's matrix, read from the file itself."""
    rows = [line.split() for line in (FIXTURES / "measure" / name).read_text().splitlines()]
    gpu_rows = [r for r in rows if r and r[0].startswith("GPU") and len(r) > 1 and not r[1].startswith("GPU")]
    return [r[1 : 1 + len(gpu_rows)] for r in gpu_rows]


def matrix_cells(page) -> list[dict]:
    return page.eval_on_selector_all(
        ".measure__matrix td.link",
        "tds => tds.map(td => ({label: td.firstChild.textContent.trim(), differs: td.classList.contains('link--differs'),"
        " expected: td.dataset.expected || null, note: td.querySelector('.link__expected')?.textContent || null}))",
    )


def test_cells_that_differ_from_the_node_are_marked_with_the_expected_value(browser, server):
    # The degraded 8 x H100 SXM fixture: healthy pairs show NV18 (an H100 SXM has 18 NVLinks,
    # the fixture's other pairs say so); the NV12 and SYS cells are the ones that differ.
    labels = fixture_labels("topo-8x-h100-degraded.txt")
    odd = [label for i, row in enumerate(labels) for j, label in enumerate(row) if i != j and label != "NV18"]
    assert len(odd) == 16
    page = browser.new_page()
    page.goto(f"{server}/fr/{PAGE_PATHS['nvlink']['fr']}")
    measure(page, "8x-h100-sxm", (FIXTURES / "measure" / "topo-8x-h100-degraded.txt").read_text())
    cells = matrix_cells(page)
    marked = [c for c in cells if c["differs"]]
    assert sorted(c["label"] for c in marked) == sorted(odd)
    assert {c["expected"] for c in marked} == {"NV18"}
    assert all(c["note"] == "attendu\u202f: NV18" for c in marked), marked[:2]
    assert not [c for c in cells if not c["differs"] and c["label"] not in ("NV18", "X")]
    assert page.locator(".measure__legend .link--differs").count() == 1
    # The pairs that differ are listed before the matrix, each once (the matrix shows both ways).
    pairs = page.eval_on_selector_all("[data-faulty-pairs] li", "lis => lis.map(li => li.textContent)")
    assert len(pairs) == len(odd) // 2
    shown = {(i, j, label) for i, row in enumerate(labels) for j, label in enumerate(row) if j > i and label != "NV18"}
    assert sorted(pairs) == sorted(f"GPU{i}–GPU{j}\u202f: {label}, attendu NV18" for i, j, label in shown)
    above = page.eval_on_selector_all(
        "[data-faulty-pairs], .measure__matrix", "els => els.map(el => el.getBoundingClientRect().top)"
    )
    assert above[0] < above[1]
    page.close()


def test_on_a_phone_no_node_is_assumed_and_a_matrix_of_another_node_asks_which_node(browser, server, catalog):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/en/{PAGE_PATHS['nvlink']['en']}")
    # No node is chosen for the reader, and the panel says so until they choose one.
    assert page.input_value("#measure-node") == ""
    assert page.is_visible("[data-node-help]")
    fixture = (FIXTURES / "measure" / "topo-8x-rtx4090-pcie-two-sockets.txt").read_text()
    page.fill("#measure-text", fixture)
    page.click("[data-measure] button[type=submit]")
    wait_until(lambda: page.locator(".measure__error").count(), 10, "the request to choose a node")
    assert "Choose the node you rent" in page.text_content(".measure__error")
    assert not page.get_attribute("[data-measure] [data-result]", "data-verdict")
    assert page.evaluate("document.activeElement.id") == "measure-node"
    # An 8 x RTX 4090 PCIe machine checked as an 8 x H100 SXM: every pair shows another class
    # of link than NVLink, so the panel asks whether the right node is chosen.
    page.select_option("#measure-node", "8x-h100-sxm")
    assert page.is_hidden("[data-node-help]")
    page.click("[data-measure] button[type=submit]")
    wait_until(lambda: page.get_attribute("[data-measure] [data-result]", "data-verdict"), 90, "the verdict")
    first = page.text_content("[data-measure] [data-result] li")
    assert "is 8x-h100-sxm the node you rent?" in first and "8x-rtx-4090" in first, first
    nodes_of_4090s = [n.id for n in catalog.nodes if n.gpu == "rtx-4090" and n.count == 8]
    assert nodes_of_4090s == ["8x-rtx-4090"]
    cells = matrix_cells(page)
    assert len(cells) == 64 and sum(c["differs"] for c in cells) == 56
    # The 8 x 8 matrix scrolls inside its own box: the page keeps the phone's width.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.eval_on_selector(
        ".measure__scroll", "el => [el.scrollWidth, el.clientWidth, el.getBoundingClientRect().right]"
    )
    assert box[0] > box[1] and box[2] <= 390, box
    # The faulty pairs come first, the first of them in view once the verdict is: 28 pairs of 8
    # cards, the first eight listed and the rest counted.
    listed = page.locator("[data-faulty-pairs]")
    assert listed.get_attribute("data-faulty-pairs") == str(8 * 7 // 2)
    assert listed.locator("li").count() == 8
    assert "and 20 more pairs" in page.text_content("[data-faulty-pairs] + .measure__note")
    page.eval_on_selector("[data-measure] .measure__verdict", "el => el.scrollIntoView({block: 'start'})")
    first = listed.locator("li").first.bounding_box()
    assert first and first["y"] >= 0 and first["y"] + first["height"] <= 844 and first["x"] + first["width"] <= 390
    # Once the right node is chosen, the same matrix is as promised and nothing is marked.
    page.select_option("#measure-node", "8x-rtx-4090")
    page.click("[data-measure] button[type=submit]")
    wait_until(
        lambda: page.get_attribute("[data-measure] [data-result]", "data-verdict") == "ok", 30, "the new verdict"
    )
    assert not [c for c in matrix_cells(page) if c["differs"]]
    assert not errors, errors
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_verdict_and_its_matrix_pass_axe_in_both_schemes(browser, server, scheme):
    from .browser import AXE

    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(f"{server}/en/{PAGE_PATHS['nvlink']['en']}")
    measure(page, "8x-h100-sxm", (FIXTURES / "measure" / "topo-8x-h100-degraded.txt").read_text())
    page.evaluate(AXE.read_text() + "\n;0")
    result = page.evaluate("() => axe.run(document.querySelector('[data-measure]'), {resultTypes: ['violations']})")
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:4], v["nodes"][0]["any"][0]["message"])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, bad
    context.close()
