"""The HTML report: one self-contained page (inline CSS, inline SVG HP charts, no scripts, no network)."""

from __future__ import annotations

from html import escape
from typing import Any

from ledger.rules import round_word
from ledger.words.summary import from_history, lines
from projections.history import History, Step, heading, meta, round_heading, ruling_text, session_heading, title
from projections.recap import arrange, initiative, joined

PALETTE = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
WIDTH, HEIGHT = 640, 170
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 14, 28
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;background:#fff;
margin:0 auto;max-width:900px;padding:20px 28px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:28px}
h3{font-size:17px;margin:18px 0 4px}h4{font-size:15px;margin:12px 0 2px}.meta{color:#666;margin:0 0 12px}
.recap{background:#f4f7fb;border-left:4px solid #1f77b4;padding:4px 10px;margin:6px 0 10px}
.recap ul{margin:2px 0;padding-left:20px}
.said{margin:2px 0}.round{color:#444}.ruling h4{margin:8px 0 0;font-size:14px}
.charts{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;border:1px solid #e3e3e3;border-radius:6px;padding:6px 8px}
figcaption{font-weight:600;margin-bottom:2px}svg text{font:11px sans-serif;fill:#555}
.axis{stroke:#999;stroke-width:1}.ref{stroke:#bbb;stroke-width:1;stroke-dasharray:4 3}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
.ruling{margin:0 0 6px}.ruling ul{margin:4px 0 8px 0;padding-left:22px}.who{color:#666;font-size:13px}
.retracted h4{text-decoration:line-through;color:#888}.retracted .said{color:#888}.retracted ul{color:#888}
.note{background:#fff3cd;border-left:4px solid #e0a800;padding:2px 8px;margin:4px 0;font-size:13px}
code{background:#f3f3f3;border-radius:3px;padding:0 3px}
"""


def chart(series: dict[str, Any], colour: str, span: tuple[int, int]) -> str:
    """An SVG step chart of one character's HP over ruling numbers, with its 0 and max-HP lines."""
    pts = series["points"]
    first, last = span
    lo = min(0, *(p["hp"] for p in pts))
    hi = max(1, *(p["max_hp"] for p in pts), *(p["hp"] for p in pts))
    w, h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(ruling: int) -> float:
        return LEFT + (w * (ruling - first) / (last - first) if last > first else w / 2)

    def y(hp: int) -> float:
        return TOP + h * (hi - hp) / (hi - lo)

    coords: list[tuple[float, float]] = []
    for i, p in enumerate(pts):
        if coords:
            coords.append((x(p["ruling"]), coords[-1][1]))
        coords.append((x(p["ruling"]), y(p["hp"])))
        if i == len(pts) - 1:
            coords.append((x(last) if last > p["ruling"] else x(p["ruling"]) + 1, y(p["hp"])))
    path = " ".join(f"{a:.1f},{b:.1f}" for a, b in coords)
    dots = "".join(f'<circle cx="{x(p["ruling"]):.1f}" cy="{y(p["hp"]):.1f}" r="3.5" fill="{colour}"/>' for p in pts)
    max_hp = pts[-1]["max_hp"]
    label = f"HP of {series['name']} from ruling {first} to {last}"
    return (
        f'<svg width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(label)}">'
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + h}"/>'
        f'<line class="axis" x1="{LEFT}" y1="{TOP + h}" x2="{LEFT + w}" y2="{TOP + h}"/>'
        f'<line class="ref" x1="{LEFT}" y1="{y(0):.1f}" x2="{LEFT + w}" y2="{y(0):.1f}"/>'
        f'<line class="ref" x1="{LEFT}" y1="{y(max_hp):.1f}" x2="{LEFT + w}" y2="{y(max_hp):.1f}"/>'
        f'<text x="{LEFT - 6}" y="{y(0) + 4:.1f}" text-anchor="end">0</text>'
        f'<text x="{LEFT - 6}" y="{y(max_hp) + 4:.1f}" text-anchor="end">{max_hp}</text>'
        f'<text x="{LEFT}" y="{HEIGHT - 8}">#{first}</text>'
        f'<text x="{LEFT + w}" y="{HEIGHT - 8}" text-anchor="end">#{last}</text>'
        f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="3" stroke-linejoin="round"/>'
        f"{dots}</svg>"
    )


def _dice_item(parts: tuple[str, str | None, str]) -> str:
    head, faces, tail = parts
    if faces is None:
        return f"<li>{escape(head + tail)}</li>"
    return f"<li>{escape(head)} <code>[{escape(faces)}]</code>{escape(tail)}</li>"


def _ruling(r: dict[str, Any], system: str) -> str:
    """One ruling as an article: number and intent, who and when, the sentence, the dice."""
    cls = "ruling retracted" if r["retracted"] else "ruling"
    sentence, dice = ruling_text(r, system)
    out = [
        f'<article class="{cls}" id="r{r["ruling"]}"><h4>{escape(heading(r, sentence))}</h4>',
        f'<div class="who">{escape(str(r["actor"]))}, {escape(str(r["at"]))}</div>',
    ]
    if r["retracted"]:
        x = r["retracted"]
        taken = "Undone" if x.get("how") == "undone" else "Retracted"
        who = f"{escape(str(x['actor']))}, {escape(str(x['at']))}"
        out.append(f'<div class="note">{taken} by ruling {x["by"]} ({who})</div>')
    if sentence:
        out.append(f'<p class="said">{escape(sentence)}</p>')
    if dice:
        out.append('<ul class="dice">' + "".join(_dice_item(d) for d in dice) + "</ul>")
    out.append("</article>")
    return "".join(out)


def _summary(h: History, number: int) -> str:
    """The encounter's summary (ledger/words/summary.py) as a paragraph and a table of damage dealt and taken."""
    s = from_history(h.rulings, number, h.system)
    head = " ".join(lines(s, round_word(h.system))[:2])
    rows = "".join(
        f"<tr><td>{escape(c['name'])}</td><td>{c['dealt']}</td><td>{c['taken']}</td></tr>" for c in s["combatants"]
    )
    table = f"<table><tr><th>Combatant</th><th>Dealt</th><th>Taken</th></tr>{rows}</table>" if rows else ""
    return f'<div class="summary"><p><strong>Summary.</strong> {escape(head)}</p>{table}</div>'


def to_html(h: History, step: Step | None = None) -> str:
    """The whole page."""
    first, last = h.span
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title(h))}</title><style>{CSS}</style></head><body>",
        f'<header><h1>{escape(title(h))}</h1><p class="meta">{escape(meta(h))}</p>'
        + (f'<p class="meta">Chain head: <code>{escape(h.head)}</code></p>' if h.head else "")
        + "</header>",
    ]
    if h.hp:
        out.append('<section id="hp"><h2>Hit points</h2><div class="charts">')
        for i, s in enumerate(h.hp):
            now = s["points"][-1]
            caption = (
                f"{s['name']}: {now['hp']} of {now['max_hp']} left"
                if s.get("minions")
                else f"{s['name']}: HP {now['hp']}/{now['max_hp']}"
            )
            out.append(
                f'<figure class="chart"><figcaption>{escape(caption)}</figcaption>'
                f"{chart(s, PALETTE[i % len(PALETTE)], (first, last))}</figure>"
            )
        out.append("</div></section>")
    out.append('<section id="history"><h2>History</h2>')
    for part in arrange(h.rulings, h.system):
        out.append(f'<section class="session"><h2>{escape(session_heading(h, part.number))}</h2>')
        if part.recap:
            out.append(
                '<div class="recap"><strong>Recap</strong><ul>'
                + "".join(f"<li>{escape(x)}</li>" for x in part.recap)
                + "</ul></div>"
            )
        for block in part.blocks:
            if block.encounter is not None:
                out.append(f'<section class="encounter"><h3>Encounter {block.encounter}</h3>')
                out.append(_summary(h, block.encounter))
                order = initiative(part.rulings, block.encounter)
                if order:
                    out.append(
                        "<p>Initiative: "
                        + escape(", ".join(f"{o['name']} {o.get('initiative')}" for o in order))
                        + "</p>"
                    )
                late = joined(h.rulings, block.encounter)
                if late:
                    out.append(f"<p>Joined mid-fight: {escape(', '.join(late))}</p>")
            for rnd in block.rounds:
                if block.encounter is not None:
                    out.append(f'<h4 class="round">{escape(round_heading(h.system, rnd.number))}</h4>')
                for r in rnd.rulings:
                    out.append(_ruling(r, h.system))
                    if step:
                        step(len(r["events"]))
            if block.encounter is not None:
                out.append("</section>")
        out.append("</section>")
    out.append("</section></body></html>")
    return "\n".join(out) + "\n"
