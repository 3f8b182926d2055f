"""The HTML report in a real headless browser (docs/export-format.md, Markdown and HTML): self-contained, and its SVG HP
chart is drawn."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from projections.report import PALETTE
from tests.conftest import Cli

WINDOW = (1000, 1400)


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """A tiny PNG decoder (8-bit RGB or RGBA, not interlaced): width, height and one RGB byte row per line."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos : pos + 4]), data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        rows.append(bytes(line) if bpp == 3 else bytes(v for i, v in enumerate(line) if i % 4 != 3))
    return width, height, rows


def pixels_of(rows: list[bytes], hex_colour: str) -> list[tuple[int, int]]:
    """Every (x, y) painted exactly in a colour."""
    rgb = bytes.fromhex(hex_colour.lstrip("#"))
    found = []
    for y, row in enumerate(rows):
        at = row.find(rgb)
        while at != -1:
            if at % 3 == 0:
                found.append((at // 3, y))
            at = row.find(rgb, at + 1)
    return found


def screenshot(page: Path, png: Path, profile: Path) -> None:
    """Render a local page in Debian's chromium, headless, with no network features."""
    chromium = shutil.which("chromium")
    if not chromium and os.environ.get("CI") != "true":
        # a developer's fresh machine: the README's test command passes without a browser;
        # CI installs one and must run it
        pytest.skip(
            "Debian's chromium is not installed here (apt-get install -y chromium); CI installs it and runs this"
        )
    assert chromium, "chromium is missing: apt-get install -y chromium (CI does it in .ci/chromium.sh)"
    cmd = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--screenshot={png}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        page.as_uri(),
    ]
    subprocess.run(cmd, capture_output=True, timeout=120, check=True)
    assert png.exists(), "chromium wrote no screenshot"


def test_html_report_draws_each_characters_hp_line_in_a_headless_browser(sqlite_db: str, tmp_path: Path):
    """docs/export-format.md, Markdown and HTML: one self-contained page whose SVG HP timeline per character a real
    browser draws."""
    cli = Cli(sqlite_db)
    cli.ok("init", "--system", "d20", "--name", "Chart test")
    cli.ok("character", "add", "Ann", "--trait", "hp=20")
    cli.ok("character", "add", "Bob", "--trait", "hp=12")
    cli.ok("session", "start", "Fight")
    for amount in ("3", "5", "4"):
        cli.ok("damage", "Ann", "--amount", amount)
    cli.ok("damage", "Bob", "--amount", "2")
    page = tmp_path / "report.html"
    cli.ok("export", "--format", "html", "-o", str(page))
    html = page.read_text()
    for outside in ("http:", "https:", "<script", "<link", "<img", "@import", "url("):
        assert outside not in html, f"the page reaches outside itself: {outside}"
    assert html.count("<svg") == 2 and html.count("<polyline") == 2

    png = tmp_path / "shot.png"
    screenshot(page, png, tmp_path / "profile")
    width, height, rows = decode_png(png.read_bytes())
    assert (width, height) == WINDOW
    ann = pixels_of(rows, PALETTE[0])
    bob = pixels_of(rows, PALETTE[1])
    assert len(ann) > 500 and len(bob) > 300, (len(ann), len(bob))
    xs, ys = [x for x, _ in ann], [y for _, y in ann]
    assert max(xs) - min(xs) > 400, "Ann's HP line does not run across the chart"
    assert all(y < max(y for _, y in bob) for y in ys), "Ann's chart is not above Bob's"
    left = [y for x, y in ann if x < min(xs) + 6]
    right = [y for x, y in ann if x > max(xs) - 6]
    assert min(right) > max(left) + 20, "the line does not step down as Ann loses HP"
