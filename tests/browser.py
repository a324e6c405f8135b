"""A headless Chromium for the report tests: Debian's ``chromium`` package, installed here
with apt-get when it is missing (the README's test command runs this set-up), driven by
Playwright's Python package (in the test extras) with ``executable_path`` pointing at it,
so nothing is downloaded at test time. Tests are skipped, with the reason, only where the
browser cannot be installed or started."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    """The path of an installed Chromium, or None."""
    env = os.environ.get("RANKLENS_CHROMIUM")
    for path in ((env,) if env else ()) + CANDIDATES:
        if path and os.path.exists(path):
            return path
    return shutil.which("chromium")


def install_chromium() -> str:
    """Install Debian's chromium with apt-get; returns why it failed ('' on success)."""
    apt = shutil.which("apt-get")
    if apt is None:
        return "apt-get is not available"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "installing chromium needs root (apt-get install chromium)"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        [apt, "install", "-y", "-q", "chromium"],
        [apt, "update", "-q"],
        [apt, "install", "-y", "-q", "chromium"],
    ):
        try:
            done = subprocess.run(command, env=env, capture_output=True, timeout=600, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{' '.join(command)} failed: {exc}"
        if command[1] == "install" and done.returncode == 0:
            return ""
    tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
    return f"apt-get install chromium failed: {' '.join(tail)}"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """A Playwright Browser on the system Chromium (installed first if need be)."""
    try:  # first: without playwright (the test-light extra) no browser is installed
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the browser tests need playwright: pip install '.[test]'")
    path = find_chromium()
    if path is None:
        why = install_chromium()
        path = find_chromium()
        if path is None:
            pytest.skip(f"no headless Chromium for the browser tests: {why}")
    with sync_playwright() as p:
        try:
            instance = p.chromium.launch(executable_path=path, args=ARGS)
        except Exception as exc:  # the browser exists but cannot start here
            pytest.skip(f"Chromium at {path} did not start: {exc}")
        yield instance
        instance.close()
