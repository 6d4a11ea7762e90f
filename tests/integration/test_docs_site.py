"""`make docs` end to end: `dbt docs generate`, `dbt docs serve` on a free loopback port, and the
site opened in headless Chromium (Debian's chromium and chromedriver; `make test` installs them)
as a person would: the lineage graph, read as drawn, shows each landing source flowing through
its own format's staging models to the marts; the home page's link draws the models alone, in
their layers' colors; and the pages show the YAML descriptions. The graph
is saved as target/lineage.png (docs/lineage.png, in the README, is a copy of it)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.expected_conditions import element_to_be_clickable
from selenium.webdriver.support.ui import WebDriverWait

from support.dbt_harness import DBT, REPO, Build, free_port, profiles_dir
from support.dbt_worker import DbtWorker

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENSHOT = REPO / "target" / "lineage.png"
WAIT_S = 60

# A format's staged messages feed every mart: its row changes the row fact and the replicas, its
# schema changes the schema fact and the replicas (TRUNCATE and DROP end rows), every message's
# outcome the rejection report and the reconciliation.
MARTS = {
    "fct_row_changes",
    "fct_schema_changes",
    "fct_rejected_messages",
    "fct_message_reconciliation",
    "fct_landed_files",
    "dim_row_versions",
    "dim_current_rows",
    "dim_keyless_tables",
    "dim_replica_columns",
    "dim_replica_tables",
    "fct_replica_changes",
}
DRAWN_TYPES = {"model", "seed", "source", "exposure"}

# The graph view draws with cytoscape, which registers its instance on its container element.
READ_GRAPH_JS = """
const container = document.getElementById('cy');
const cy = container && container._cyreg && container._cyreg.cy;
if (!cy) { return null; }
return {
    nodes: cy.nodes(':visible').map(node => ({
        id: node.id(),
        resource_type: node.data('resource_type'),
        name: node.data('name'),
        source_name: node.data('source_name'),
        path: node.data('original_file_path'),
        position: node.position(),
        color: node.style('background-color'),
    })),
    edges: cy.edges(':visible').map(edge => [edge.source().id(), edge.target().id()]),
};
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, shared_worker: DbtWorker) -> Iterator[str]:
    """The URL of the docs site, generated and served as `make docs` does, on a free port."""
    root = tmp_path_factory.mktemp("docs")
    profiles = profiles_dir(root)
    generate = Build(name="docs", root=root, args=["docs", "generate"], schema="docs_site", worker=shared_worker)
    generate.start(profiles)
    generate.wait()
    port = free_port()
    log = (root / "serve.txt").open("w")
    server = subprocess.Popen(
        [
            str(DBT),
            "docs",
            "serve",
            "--no-browser",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--profiles-dir",
            str(profiles),
            "--target-path",
            str(generate.target_dir),
            "--log-path",
            str(root / "logs"),
        ],
        cwd=REPO,
        env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + WAIT_S
        while not _serves(f"{url}/manifest.json"):
            assert server.poll() is None, (root / "serve.txt").read_text()
            assert time.monotonic() < deadline, "dbt docs serve did not answer"
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def _serves(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def manifest(site: str) -> dict[str, Any]:
    """The manifest the site shows, as served beside it."""
    with urllib.request.urlopen(f"{site}/manifest.json", timeout=30) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    assert not missing, f"{missing} missing: `make test` installs Debian's chromium and chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    # The machine has no network but loopback: no background connections, no sandbox as root.
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1600,900",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _drawn_graph(driver: webdriver.Chrome) -> dict[str, Any]:
    """The lineage graph as drawn, once it has stopped moving, without tests and unit tests."""
    wait = WebDriverWait(driver, WAIT_S)
    wait.until(lambda d: (graph := d.execute_script(READ_GRAPH_JS)) and graph["nodes"])
    # Untick Tests and Unit_tests in the graph's resource filter, as a reader would.
    wait.until(element_to_be_clickable((By.CSS_SELECTOR, "[data-form-type=resource_types] select"))).click()
    for item in driver.find_elements(By.CSS_SELECTOR, "[data-form-type=resource_types] li"):
        if item.text.strip() in {"Tests", "Unit_tests"}:
            item.click()
    driver.find_element(By.ID, "submit-graph-selection").click()
    wait.until(lambda d: {n["resource_type"] for n in d.execute_script(READ_GRAPH_JS)["nodes"]} <= DRAWN_TYPES)
    return _settled_graph(driver)


def _settled_graph(driver: webdriver.Chrome) -> dict[str, Any]:
    """The lineage graph as drawn, once it has stopped moving."""
    wait = WebDriverWait(driver, WAIT_S)
    wait.until(lambda d: (graph := d.execute_script(READ_GRAPH_JS)) and graph["nodes"])
    previous: list[Any] = []

    def settled(d: webdriver.Chrome) -> dict[str, Any] | None:
        graph = d.execute_script(READ_GRAPH_JS)
        positions = sorted((n["id"], n["position"]["x"], n["position"]["y"]) for n in graph["nodes"])
        done, previous[:] = positions == previous, positions
        return graph if done else None

    return wait.until(settled)


def _reachable(edges: set[tuple[str, str]], start: str) -> set[str]:
    children: dict[str, set[str]] = {}
    for parent, child in edges:
        children.setdefault(parent, set()).add(child)
    seen: set[str] = set()
    todo = [start]
    while todo:
        for child in children.get(todo.pop(), set()) - seen:
            seen.add(child)
            todo.append(child)
    return seen


def test_lineage_graph_shows_each_source_through_its_staging_to_the_marts(
    site: str, manifest: dict[str, Any], browser: webdriver.Chrome
) -> None:
    browser.get("about:blank")  # a fresh page load, whatever the browser showed before
    browser.get(f"{site}/#!/overview?g_v=1")
    graph = _drawn_graph(browser)
    SCREENSHOT.parent.mkdir(exist_ok=True)
    browser.save_screenshot(str(SCREENSHOT))

    nodes = {n["id"]: n for n in graph["nodes"]}
    edges = {(parent, child) for parent, child in graph["edges"]}
    name = {node_id: node["name"] for node_id, node in nodes.items()}

    # The graph draws the whole project and exactly its dependencies.
    resources = {
        **{k: v for k, v in manifest["nodes"].items() if v["resource_type"] in DRAWN_TYPES},
        **manifest["sources"],
        **manifest["exposures"],
    }
    assert set(nodes) == set(resources)
    assert edges == {
        (parent, child) for child, node in resources.items() for parent in node.get("depends_on", {}).get("nodes", [])
    }

    sources = [n for n in nodes.values() if n["resource_type"] == "source"]
    assert len(sources) >= 4
    marts = {n["name"] for n in nodes.values() if n["path"].startswith("models/marts/")}
    assert marts == MARTS
    for format_name in {source["source_name"] for source in sources}:
        staging = {
            node_id
            for node_id, node in nodes.items()
            if node["resource_type"] == "model" and node["path"].startswith(f"models/staging/{format_name}/")
        }
        # A format's sources (its landed lines; an Avro format's container files too) feed its
        # own staging only, all of which they feed...
        format_sources = {source["id"] for source in sources if source["source_name"] == format_name}
        assert {child for parent, child in edges if parent in format_sources} <= staging, format_name
        assert staging <= set().union(*(_reachable(edges, source) for source in format_sources)), format_name
        # ...whose staged messages reach every mart.
        (staged,) = [node_id for node_id in staging if name[node_id] == f"stg_{format_name}__messages"]
        assert {name[n] for n in _reachable(edges, staged)} & marts == MARTS, format_name

    # Every mart is drawn with a consumer.
    consumers = {parent for parent, child in edges if nodes[child]["resource_type"] == "exposure"}
    assert {name[n] for n in consumers} == marts


# The layers' colors in the lineage (dbt_project.yml's `docs.node_color`), as the graph draws them.
LAYER_COLORS = {"staging": "#2e7d32", "intermediate": "#6a1b9a", "marts": "#e65100"}


def test_the_home_page_links_to_the_lineage_of_the_models_by_layer(
    site: str, manifest: dict[str, Any], browser: webdriver.Chrome
) -> None:
    """The link on the site's home page draws the models only, each in its layer's color."""
    browser.get("about:blank")
    browser.get(site)
    link = (By.PARTIAL_LINK_TEXT, "The lineage of the models, by layer")
    WebDriverWait(browser, WAIT_S).until(element_to_be_clickable(link)).click()
    graph = _settled_graph(browser)
    models = {uid: node for uid, node in manifest["nodes"].items() if node["resource_type"] == "model"}
    drawn = {node["id"]: node for node in graph["nodes"]}
    assert set(drawn) == set(models)
    colors = {uid: node["color"] for uid, node in drawn.items()}
    assert colors == {uid: LAYER_COLORS[model["fqn"][1]] for uid, model in models.items()}
    assert {(parent, child) for parent, child in graph["edges"]} == {
        (parent, uid) for uid, model in models.items() for parent in model["depends_on"]["nodes"] if parent in models
    }


def _page_text(driver: webdriver.Chrome, url: str, expected: str) -> str:
    """The text of the page's main view (not the sidebar) once it shows `expected`."""
    driver.get(url)

    def main_view(d: webdriver.Chrome) -> str | None:
        views = [_plain(view.text) for view in d.find_elements(By.CSS_SELECTOR, ".app-body")]
        return next((text for text in views if expected in text), None)

    try:
        return WebDriverWait(driver, WAIT_S).until(main_view)
    except TimeoutException:
        pytest.fail(f"{url} does not show {expected!r}")


def _plain(text: str) -> str:
    """Text as the page shows it: markdown backticks gone, whitespace collapsed."""
    return " ".join(text.replace("`", "").split())


def test_pages_show_the_descriptions(site: str, manifest: dict[str, Any], browser: webdriver.Chrome) -> None:
    """Every mart's page shows its description and columns; a macro's page its arguments."""
    marts = [
        n
        for n in manifest["nodes"].values()
        if n["resource_type"] == "model" and n["original_file_path"].startswith("models/marts/")
    ]
    assert len(marts) >= 6
    for mart in marts:
        text = _page_text(browser, f"{site}/#!/model/{mart['unique_id']}", _plain(mart["description"])[:60])
        assert [c for c in mart["columns"] if c not in text] == [], mart["name"]
    macro = manifest["macros"]["macro.cdc_lakehouse.epoch_to_timestamp"]
    text = _page_text(browser, f"{site}/#!/macro/{macro['unique_id']}", _plain(macro["description"])[:60])
    assert macro["arguments"]
    for argument in macro["arguments"]:
        assert argument["name"] in text and _plain(argument["description"]) in text
