"""Macro package of the sparkpy adapter (dbt finds it via ``PACKAGE_PATH``)."""

import os

PACKAGE_PATH: str = os.path.dirname(__file__)
