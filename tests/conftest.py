"""Shared fixtures: the real catalog, loaded once, and a writable copy for tests that break it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from macros.catalog_loader import CATALOG_DIR, load_catalog, read_catalog
from macros.fitengine import Catalog

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def catalog_data() -> dict:
    data, problems = read_catalog()
    assert not problems
    return data


@pytest.fixture()
def catalog_copy(tmp_path: Path) -> Path:
    """A copy of catalog/ that a test may edit."""
    target = tmp_path / "catalog"
    shutil.copytree(CATALOG_DIR, target)
    return target


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both locales built once for the whole run, as `make site` builds them."""
    from .site_build import build_site

    return build_site(tmp_path_factory.mktemp("site"))
