"""The report in a real headless Chromium (Debian's ``chromium`` driven by Playwright's
Python API; ``.ci/run`` installs it): the index lists every life log, a life-log page shows its
segments and items, clicking an answer span moves the video to the span's start, no console
errors, screenshots that are not blank. Marked ``browser`` (and ``ffmpeg``: it renders one
life log)."""

from __future__ import annotations

import functools
import http.server
import io
import json
import shutil
import threading
from pathlib import Path

import pytest

from tests.conftest import FAST, run_cli

pytestmark = [pytest.mark.browser, pytest.mark.ffmpeg]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    run_cli(out, *FAST, "stages=[library,persona,plan,simulate,render,annotate,evaluate,report]",
            "render=concat", "render.max_logs=1", "eval.bertscore=false", "eval.bootstrap=20",
            # the paper's repetition and forms: more than one page of items on this small corpus
            "annotate.repeat_sources=true", "annotate.printed_answers=keep", timeout=600)
    return out / "benchmarks" / "demo"


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium binary: apt-get install chromium")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed: pip install -e .[dev]")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def served(bench: Path):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(bench))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _open(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_load_state("load")
    return page, errors


def _not_blank(png: bytes) -> bool:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB").resize((160, 120))
    return len(set(img.getdata())) > 20


def test_index_lists_every_life_log(bench: Path, browser, served: str) -> None:
    logs = sorted(p.stem for p in (bench / "lifelogs").glob("*.json"))
    page, errors = _open(browser, f"{served}/report/index.html")
    rows = page.locator("#lifelogs tbody tr")
    assert rows.count() == len(logs)
    page.fill("#search", logs[0])
    assert page.locator("#lifelogs tbody tr:not([hidden])").count() == 1
    page.fill("#search", "")
    page.click("#lifelogs th:nth-child(4)")  # sort by segments
    assert page.locator("#lifelogs tbody tr").count() == len(logs)
    assert page.evaluate("Array.from(document.images).every(i => i.naturalWidth > 0)")
    assert _not_blank(page.screenshot(full_page=True))
    assert errors == []


def test_lifelog_page_seeks_the_video(bench: Path, browser) -> None:
    rendered = json.loads(next((bench / "videos").glob("*.json")).read_text())
    lid = rendered["lifelog_id"]
    log = json.loads((bench / "lifelogs" / f"{lid}.json").read_text())
    items = [json.loads(x) for p in (bench / "annotations").glob("*.jsonl")
             for x in p.read_text().splitlines() if json.loads(x)["lifelog_id"] == lid]
    # from disk: file:// serves byte ranges, so the video is seekable
    page, errors = _open(browser, (bench / "report" / "lifelogs" / f"{lid}.html").as_uri())
    assert page.locator(".timeline .seg").count() == len(log["segments"])
    assert page.locator("tr[data-item]").count() == len(items)
    page.wait_for_function("document.getElementById('lifelog-video').readyState >= 1")
    buttons = page.locator("button.span:not([data-out=''])")
    assert buttons.count() > 0
    target = buttons.nth(buttons.count() // 2)
    want = float(target.get_attribute("data-out"))
    target.click()
    page.wait_for_function(f"Math.abs(document.getElementById('lifelog-video').currentTime"
                           f" - {want}) < 0.5")
    assert "video at" in page.inner_text("#where")
    cues = page.evaluate("document.getElementById('lifelog-video').textTracks[0].cues.length")
    assert cues == (bench / "videos" / f"{lid}.vtt").read_text().count("-->")
    active = page.evaluate("document.getElementById('lifelog-video').textTracks[0]"
                           ".activeCues.length")
    assert active <= 1, "one clock cue at a time, also after a seek"
    assert _not_blank(page.screenshot())
    assert errors == []


def test_results_page_filters_and_pages_items(bench: Path, browser, served: str) -> None:
    page, errors = _open(browser, f"{served}/report/results.html")
    total = page.evaluate("window.XLE_ITEMS.length")
    assert total > 100 and page.inner_text("#shown") == str(total)
    assert page.locator("#items tbody tr").count() == 100, "one page of rows"
    first = page.inner_text("#items tbody tr:first-child")
    page.click("#next")
    assert page.inner_text("#page").startswith("2 /")
    assert page.inner_text("#items tbody tr:first-child") != first
    page.select_option("#f-subtask", "single_summary")
    shown = int(page.inner_text("#shown"))
    assert 0 < shown < total and page.inner_text("#page").startswith("1 /")
    assert page.locator("#items tbody tr").count() == min(shown, 100)
    assert all(s == "single_summary" for s in page.eval_on_selector_all(
        "#items tbody tr", "rows => rows.map(r => r.dataset.subtask)"))
    sizes = [p.stat().st_size for p in (bench / "report").rglob("*.html")]
    assert max(sizes) < 1_000_000, "no report page over 1 MB"
    assert _not_blank(page.screenshot())
    assert errors == []
