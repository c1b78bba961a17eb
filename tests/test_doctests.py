"""The examples in the package's docstrings are run as they are written (the rules' contract, words, listeners):
an example that no longer holds fails here, so the documentation cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import companion

ROOT = Path(companion.__file__).parent
# Every module with an example in it, found by the prompt, so a new example is run without being listed here.
MODULES = sorted(
    ".".join(("companion", *path.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__")
    for path in ROOT.rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8")
)


def test_the_rules_contract_has_examples():
    assert "companion.rules.engine" in MODULES and "companion.rules.words" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_docstrings_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name}: its '>>> ' is not an example doctest can run"
    assert result.failed == 0
