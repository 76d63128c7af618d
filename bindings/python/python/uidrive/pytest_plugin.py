"""uidrive's pytest plugin, loaded by pytest when the wheel is installed.

Fixtures:

- ``desktop``: a private headless desktop (X display, session bus,
  accessibility bus) for the whole session. Under pytest-xdist every worker is
  its own process, so every worker gets a desktop of its own.
- ``app``: a factory, ``app(argv, **launch_options)``, that launches apps on
  that desktop and closes each one when the test ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import pytest

import uidrive


class AppFactory:
    """Launches apps on one desktop and closes them all at the end of a test."""

    def __init__(self, desktop: uidrive.Desktop) -> None:
        self.desktop = desktop
        self.launched: list[uidrive.App] = []

    def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        socket_env: str | None = None,
    ) -> uidrive.App:
        app = self.desktop.launch(argv, env=env, timeout=timeout, socket_env=socket_env)
        self.launched.append(app)
        return app

    def close_all(self) -> None:
        errors: list[uidrive.Error] = []
        while self.launched:
            try:
                self.launched.pop().close()
            except uidrive.Error as error:
                errors.append(error)
        if errors:
            raise errors[0]


@pytest.fixture(scope="session")
def desktop() -> Iterator[uidrive.Desktop]:
    """A private headless desktop for this session (or this xdist worker)."""
    with uidrive.headless() as started:
        yield started


@pytest.fixture
def app(desktop: uidrive.Desktop) -> Iterator[AppFactory]:
    """``app(argv, env=..., timeout=..., socket_env=...)`` launches on ``desktop``;
    every app launched is closed when the test ends."""
    factory = AppFactory(desktop)
    try:
        yield factory
    finally:
        factory.close_all()
