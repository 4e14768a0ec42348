"""The audit's HTML report as its readers use it: self-contained, the units table, findings folded
per unit and filtered by rule, call chains and fingerprints on demand; and in a real headless
Chromium, that the chart is drawn, that filtering hides the other rules and that sorting sorts."""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from epochlint.audit.html_report import PALETTE, write_report  # noqa: E402
from epochlint.audit.summary import Totals, UnitLine  # noqa: E402

FINGERPRINT = "0123456789abcdef0123456789abcdef"
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1280,1600",
)


def _finding(unit: str, path: str, line: int, code: str, chain: int = 0) -> dict[str, object]:
    step = {"path": path, "line": line, "column": 1, "end_line": line, "end_column": 2,
            "function": "Consumer.bump", "message": "writes `self._epoch` without `self._lock`"}
    return {
        "unit": unit, "path": path, "line": line, "column": 5, "end_line": line, "end_column": 9, "code": code,
        "name": code.lower(), "message": f"`self._epoch` read in a batch loop ({code})", "function": "Consumer.run",
        "fingerprint": FINGERPRINT, "chain": [step] * chain, "related": [],
    }


UNITS = [
    UnitLine("repos/payments", 40, 0, 5000, 3, {"EPL001": 2, "EPL002": 1}, None),
    UnitLine("repos/ledger", 12, 1, 900, 1, {"EPL001": 1}, None),
    UnitLine("repos/search", 80, 0, 12000, 5, {"EPL002": 5}, None),
    UnitLine("repos/bad", 2, 2, 0, 0, {}, "pyproject.toml: [tool.epochlint] unknown key 'selct'"),
]
FINDINGS = [
    _finding("repos/ledger", "ledger.py", 3, "EPL001", chain=2),
    *(_finding("repos/payments", "pay.py", n, code) for n, code in ((1, "EPL001"), (2, "EPL001"), (9, "EPL002"))),
    *(_finding("repos/search", "search.py", n, "EPL002") for n in range(1, 6)),
]
ERRORED = [
    {"unit": "repos/bad", "path": "a.py", "status": "config_error", "error": "unknown key 'selct'"},
    {"unit": "repos/bad", "path": "b.py", "status": "config_error", "error": "unknown key 'selct'"},
    {"unit": "repos/ledger", "path": "big.py", "status": "too_large", "error": "over the size limit"},
]
TOTAL = Totals(4, 134, 3, 17900, 9, {"EPL001": 3, "EPL002": 6}, 1)


def report() -> str:
    stream = io.StringIO()
    write_report(stream, TOTAL, "discovered 134 files = analysed 131 + errored 3", UNITS, iter(FINDINGS), iter(ERRORED))
    return stream.getvalue()


def test_the_report_needs_no_network_and_keeps_details_folded() -> None:
    html = report()
    # Nothing to fetch: no external script, style, image or font.
    assert not re.search(r"<link|<img|\bsrc=|@import|url\(|https?://(?!www\.w3\.org/2000/svg)", html)
    assert "<style>" in html and "<script>" in html
    # Markdown code spans as code; the fingerprint only inside a folded <details>.
    assert "<code>self._epoch</code> read in a batch loop" in html and "`" not in html.split("<script>")[0]
    for match in re.finditer(FINGERPRINT, html):
        before = html[: match.start()]
        assert before.rfind("<details>") > before.rfind("</details>")
    assert html.count('<details class="unit">') == 3 + 2  # findings of 3 units, errors of 2
    assert "<details open" not in html
    # The errored unit is in the units table with its error, and counted at the top.
    assert re.search(
        r'<tr class="errored"><td>repos/bad<div class="error">.*unknown key &#x27;selct&#x27;</div></td>', html
    )
    assert "1 unit could not be analysed." in html
    assert {colour for colour in re.findall(r'fill="(#[0-9A-F]{6})"', html)} <= set(PALETTE)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    webdriver = pytest.importorskip("selenium.webdriver")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_binary = shutil.which("chromedriver")
    if chromium is None or driver_binary is None:
        pytest.skip("needs Chromium and chromedriver (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = Path(__import__("tempfile").mkdtemp(prefix="epochlint-chromium-"))
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_binary))
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.slow
def test_the_report_in_a_browser_draws_filters_and_sorts(browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    page = tmp_path / "report.html"
    page.write_text(report(), encoding="utf-8")
    driver = browser
    driver.get(page.as_uri())  # type: ignore[attr-defined]
    assert driver.title == "epochlint audit"  # type: ignore[attr-defined]

    bars = driver.find_elements(By.CSS_SELECTOR, "#chart rect.bar")  # type: ignore[attr-defined]
    assert [bar.get_attribute("data-rule") for bar in bars] == ["EPL001", "EPL002"]
    widths = [bar.rect["width"] for bar in bars]
    assert all(width > 0 for width in widths) and widths[1] > widths[0]  # 6 findings against 3

    for unit in driver.find_elements(By.CSS_SELECTOR, "#findings details.unit summary"):  # type: ignore[attr-defined]
        unit.click()
    visible = lambda: [  # noqa: E731
        f.get_attribute("data-rule") for f in driver.find_elements(By.CSS_SELECTOR, "#findings .finding")  # type: ignore[attr-defined]
        if f.is_displayed()
    ]
    assert sorted(visible()) == ["EPL001"] * 3 + ["EPL002"] * 6
    Select(driver.find_element(By.ID, "rule-filter")).select_by_value("EPL001")  # type: ignore[attr-defined]
    assert visible() == ["EPL001"] * 3
    hidden_units = [u for u in driver.find_elements(By.CSS_SELECTOR, "#findings details.unit") if not u.is_displayed()]  # type: ignore[attr-defined]
    assert [u.find_element(By.TAG_NAME, "summary").get_attribute("textContent") for u in hidden_units] == [
        "repos/search: 0"
    ]

    def units_order() -> list[str]:
        rows = driver.find_elements(By.CSS_SELECTOR, "#units tbody tr")  # type: ignore[attr-defined]
        return [row.find_element(By.TAG_NAME, "td").text.splitlines()[0] for row in rows]

    header = driver.find_element(By.XPATH, "//table[@id='units']//th[text()='Lines']")  # type: ignore[attr-defined]
    header.click()
    assert units_order() == ["repos/bad", "repos/ledger", "repos/payments", "repos/search"]
    header.click()
    assert units_order() == ["repos/search", "repos/payments", "repos/ledger", "repos/bad"]
    driver.find_element(By.XPATH, "//table[@id='units']//th[text()='Unit']").click()  # type: ignore[attr-defined]
    assert units_order() == ["repos/bad", "repos/ledger", "repos/payments", "repos/search"]


def test_a_report_that_fails_half_written_leaves_the_previous_one(tmp_path: Path) -> None:
    from epochlint.audit.output import replaced_atomically

    page = tmp_path / "report.html"
    page.write_text("previous report")
    with pytest.raises(RuntimeError), replaced_atomically(page) as stream:
        stream.write(report()[:5000])
        raise RuntimeError("the job failed while the findings streamed in")
    assert page.read_text() == "previous report" and os.listdir(tmp_path) == ["report.html"]
    with replaced_atomically(page) as stream:
        stream.write(report())
    assert page.read_text() == report() and os.listdir(tmp_path) == ["report.html"]


def test_a_report_written_to_a_link_replaces_its_target_and_keeps_its_permissions(tmp_path: Path) -> None:
    # The link became a regular file (the target kept the old report), with mode 0644 whatever the
    # file's own: private findings became readable by everyone.
    from epochlint.audit.output import replaced_atomically

    (tmp_path / "www").mkdir()
    target = tmp_path / "www" / "real.html"
    target.write_text("previous report")
    target.chmod(0o600)
    link = tmp_path / "latest.html"
    link.symlink_to(target)
    with replaced_atomically(link) as stream:
        stream.write(report())
    assert link.is_symlink() and target.read_text() == report()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
