"""The console with authentication on, in Debian's chromium against a real server: a 401 leads
to the sign-in page with the reason, a user's password or an API key signs in, the dashboard
lists only the caller's knowledge bases, and acting outside the scope says 403 in words."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.web.console import CHROMIUM_ARGS, ServerProcess, ensure_console_built, require_chromium

pytestmark = pytest.mark.slow
expect.set_options(timeout=30_000)  # a loaded 2-core machine is slow; nothing here is timed

AUTH_ENV = {
    "PLANRAG_AUTH__ENABLED": "true",
    "PLANRAG_AUTH__SECRET_KEY": "a-console-test-secret-that-is-long-enough",
}


class Seeded:
    news_key = ""
    hr_id = ""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    ensure_console_built()
    data_dir = tmp_path_factory.mktemp("console-auth") / "data"
    process = ServerProcess(data_dir, AUTH_ENV)
    try:
        admin = _first_admin_key(data_dir)
        _seed(process.url, admin)
        yield process
    finally:
        process.stop()


def _first_admin_key(data_dir: Path) -> str:
    """`planrag keys --direct create … --admin`: the documented way to make the first key."""
    env = {**os.environ, "PLANRAG_DATA_DIR": str(data_dir), **AUTH_ENV}
    result = subprocess.run(
        [sys.executable, "-m", "planrag.cli.main", "keys", "--direct", "create", "root", "--admin"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()[0]


def _seed(url: str, admin: str) -> None:
    headers = {"X-API-Key": admin}
    with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
        for name in ("news", "hr"):
            created = client.post("/api/knowledge-bases", json={"name": name})
            assert created.status_code == 201, created.text
            if name == "hr":
                Seeded.hr_id = created.json()["id"]
        key = client.post("/admin/keys", json={"name": "news-reader", "knowledge_bases": ["news"]})
        assert key.status_code == 201, key.text
        Seeded.news_key = key.json()["key"]
        user = client.post(
            "/admin/users",
            json={"username": "kim", "password": "password-kim", "knowledge_bases": ["news"]},
        )
        assert user.status_code == 201, user.text


@pytest.fixture(scope="module")
def page(server: ServerProcess) -> Iterator[Page]:
    executable = require_chromium()
    with sync_playwright() as playwright:
        browser: Browser = playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS
        )
        context = browser.new_context(
            base_url=server.url, viewport={"width": 1280, "height": 760}, locale="ko-KR"
        )
        context.set_default_timeout(30_000)
        yield context.new_page()
        browser.close()


def test_sign_in_with_a_password_and_see_only_your_knowledge_bases(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/signin$"))
    expect(page.get_by_role("alert")).to_contain_text("로그인이 필요합니다")
    shots = Path(os.environ.get("PLANRAG_CONSOLE_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=shots / "signin.png")

    page.get_by_label("사용자 이름").fill("kim")
    page.get_by_label("비밀번호", exact=True).fill("wrong-password")
    page.get_by_role("button", name="로그인", exact=True).click()
    expect(page.get_by_role("alert").last).to_contain_text("401")

    page.get_by_label("비밀번호", exact=True).fill("password-kim")
    page.get_by_role("button", name="로그인", exact=True).click()
    expect(page.get_by_role("heading", name="지식 베이스")).to_be_visible()
    cards = page.get_by_test_id("kb-card")
    expect(cards).to_have_count(1)
    expect(cards.first).to_contain_text("news")


def test_outside_the_scope_the_console_says_so(page: Page) -> None:
    # Another scope's knowledge base does not exist for this caller (404, nothing leaked) …
    page.goto(f"/kb/{Seeded.hr_id}")
    expect(page.get_by_role("alert")).to_contain_text("404")
    # … and creating one outside the scope is refused with 403, said in words.
    page.goto("/")
    page.get_by_role("button", name="지식 베이스 만들기").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("이름").fill("finance")
    dialog.get_by_role("button", name="만들기").click()
    alert = dialog.get_by_role("alert")
    expect(alert).to_contain_text("권한이 없습니다")
    expect(alert).to_contain_text("403")
    page.keyboard.press("Escape")


def test_sign_out_then_in_with_an_api_key(page: Page) -> None:
    page.goto("/")
    page.get_by_role("button", name="로그아웃").click()
    expect(page).to_have_url(re.compile(r"/signin$"))
    page.get_by_label("API 키", exact=True).fill("prk_not-a-real-key")
    page.get_by_role("button", name="API 키로 계속").click()
    expect(page.get_by_role("alert").last).to_contain_text("401")
    page.get_by_label("API 키", exact=True).fill(Seeded.news_key)
    page.get_by_role("button", name="API 키로 계속").click()
    expect(page.get_by_test_id("kb-card")).to_have_count(1)
    expect(page.get_by_test_id("kb-card").first).to_contain_text("news")
