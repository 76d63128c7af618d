"""The installed wheel: typed, abi3, with its pytest plugin registered."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import uidrive
import uidrive._native


def test_tests_run_against_the_installed_wheel() -> None:
    installed = Path(uidrive.__file__).resolve()
    assert "site-packages" in installed.parts, installed


def test_typed_package_with_stubs() -> None:
    package = Path(uidrive.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "_native.pyi").is_file()


def test_extension_uses_the_stable_abi() -> None:
    assert uidrive._native.__file__ is not None
    assert uidrive._native.__file__.endswith(".abi3.so")


def test_pytest_plugin_is_registered() -> None:
    if sys.version_info >= (3, 10):
        plugins = metadata.entry_points(group="pytest11")
    else:  # pragma: no cover - 3.9's entry_points() returns a dict
        plugins = metadata.entry_points().get("pytest11", [])
    assert any(ep.name == "uidrive" and ep.value == "uidrive.pytest_plugin" for ep in plugins)


def test_version() -> None:
    assert uidrive.__version__ == metadata.version("uidrive")
