"""A self-contained HTML report of an audit: a chart of findings per unit and rule, each finding
with its chain, and every file that could not be analysed. Written as the rows stream in, so its
size is the driver's only limit, not its memory."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from html import escape
from typing import TextIO, cast

from epochlint.audit.summary import Totals, UnitLine

PALETTE = ("#d1495b", "#00798c", "#edae49", "#30638e", "#66a182", "#8d96a3", "#003d5b", "#b07aa1")
BAR_HEIGHT = 18
LABEL_WIDTH = 260
CHART_WIDTH = 520

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1, h2, h3 { font-weight: 600; } code, .mono { font-family: ui-monospace, monospace; font-size: 13px; }
table { border-collapse: collapse; } td, th { padding: 2px 10px; text-align: right; }
td:first-child, th:first-child { text-align: left; } tr:nth-child(even) { background: #f4f4f4; }
.finding { margin: 0.8em 0; padding: 0.4em 0.8em; border-left: 4px solid #d1495b; background: #fafafa; }
.finding ol, .finding ul { margin: 0.3em 0; } .muted { color: #666; } .legend span { margin-right: 1.2em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em; vertical-align: -0.1em; }
"""


def _color(codes: Sequence[str], code: str) -> str:
    return PALETTE[codes.index(code) % len(PALETTE)]


def chart(lines: Sequence[UnitLine], codes: Sequence[str]) -> str:
    """A horizontal bar per unit, stacked by rule, as inline SVG."""
    shown = [line for line in lines if line.findings]
    if not shown:
        return "<p>No findings.</p>"
    largest = max(line.findings for line in shown)
    height = BAR_HEIGHT * len(shown) + 4
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{LABEL_WIDTH + CHART_WIDTH + 60}" height="{height}" '
        'role="img" aria-label="findings per unit and rule">'
    ]
    for row, line in enumerate(shown):
        y = row * BAR_HEIGHT
        parts.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 13}" text-anchor="end" font-size="12">{escape(_short(line.unit))}</text>'
        )
        x = float(LABEL_WIDTH)
        for code in codes:
            count = line.by_rule.get(code, 0)
            if not count:
                continue
            width = CHART_WIDTH * count / largest
            parts.append(
                f'<rect x="{x:.1f}" y="{y + 2}" width="{width:.1f}" height="{BAR_HEIGHT - 4}" '
                f'fill="{_color(codes, code)}"><title>{escape(line.unit)}: {count} {code}</title></rect>'
            )
            x += width
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 13}" font-size="12">{line.findings}</text>')
    parts.append("</svg>")
    legend = "".join(
        f'<span><i class="swatch" style="background:{_color(codes, code)}"></i>{escape(code)}</span>' for code in codes
    )
    return f'<div class="legend">{legend}</div>' + "".join(parts)


def _short(name: str, width: int = 40) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


def _place(step: Mapping[str, object]) -> str:
    return f"{step['path']}:{step['line']}:{step['column']}"


def finding_html(finding: Mapping[str, object]) -> str:
    chain = cast(Sequence[Mapping[str, object]], finding.get("chain") or ())
    related = cast(Sequence[Mapping[str, object]], finding.get("related") or ())
    steps = "".join(
        f"<li><span class=\"mono\">{escape(_place(step))}</span> <code>{escape(str(step['function']))}</code>: "
        f"{escape(str(step['message']))}</li>"
        for step in chain
    )
    notes = "".join(
        f"<li><span class=\"mono\">{escape(_place(item))}</span>: {escape(str(item['message']))}</li>"
        for item in related
    )
    return (
        f'<div class="finding"><div><span class="mono">{escape(_place(finding))}</span> '
        f"<b>{escape(str(finding['code']))}</b> {escape(str(finding['message']))}"
        + (f" <span class=\"muted\">in <code>{escape(str(finding['function']))}</code></span>" if finding["function"] else "")
        + f' <span class="muted mono">{escape(str(finding["fingerprint"]))}</span></div>'
        + (f"<div>Chain:</div><ol>{steps}</ol>" if steps else "")
        + (f"<div>Related:</div><ul>{notes}</ul>" if notes else "")
        + "</div>"
    )


def write_report(
    stream: TextIO,
    total: Totals,
    accounting: str,
    lines: Sequence[UnitLine],
    findings: Iterable[Mapping[str, object]],
    errored_files: Iterable[Mapping[str, object]],
) -> None:
    """`findings` sorted by unit then position; `errored_files` sorted by unit and path."""
    codes = sorted(total.by_rule)
    stream.write(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>epochlint audit</title><style>{STYLE}</style></head><body>\n"
        f"<h1>epochlint audit</h1><p>{total.units} units, {total.files} files, {total.lines} lines, "
        f"{total.findings} findings.</p><p class=\"mono\">{escape(accounting)}</p>\n"
        f"<h2>Findings per unit and rule</h2>{chart(lines, codes)}\n<h2>Findings</h2>\n"
    )
    _write_grouped(stream, findings, finding_html)
    stream.write("<h2>Files not analysed</h2>\n")
    _write_grouped(stream, errored_files, _errored_html)
    stream.write("</body></html>\n")


def _write_grouped(
    stream: TextIO, rows: Iterable[Mapping[str, object]], render: Callable[[Mapping[str, object]], str]
) -> None:
    current: object = None
    empty = True
    for row in rows:
        empty = False
        if row["unit"] != current:
            current = row["unit"]
            stream.write(f"<h3>{escape(str(current))}</h3>\n")
        stream.write(render(row) + "\n")
    if empty:
        stream.write("<p>None.</p>\n")


def _errored_html(row: Mapping[str, object]) -> str:
    return (
        f'<div><span class="mono">{escape(str(row["path"]))}</span> <b>{escape(str(row["status"]))}</b> '
        f"{escape(str(row['error'] or ''))}</div>"
    )
