"""A self-contained HTML report of an audit, for the team that owns the audited repositories: a
chart of the findings per rule, a table of the units sortable by any column, the findings
collapsed per unit and filterable by rule (chains and fingerprints on demand), and every file that
could not be analysed. No network: the style and the script are inline. Written as the rows stream
in, so that its size is the driver's only limit, not its memory."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from html import escape
from typing import TextIO, cast

from epochlint.audit.summary import Totals, UnitLine

# Okabe and Ito's palette: told apart with every common colour-vision deficiency.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000")
BAR_HEIGHT = 22
LABEL_WIDTH = 80
CHART_WIDTH = 480
_BACKTICKS = re.compile(r"`([^`]+)`")

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 78em; padding: 0 1em; color: #222; }
h1, h2 { font-weight: 600; } code, .mono { font-family: ui-monospace, monospace; font-size: 13px; }
table { border-collapse: collapse; } td, th { padding: 3px 10px; text-align: right; white-space: nowrap; }
td:first-child, th:first-child { text-align: left; }
div.error { white-space: normal; max-width: 32em; color: #a33; font-weight: 400; }
tbody tr:nth-child(even) { background: #f4f4f4; } tr.errored td:first-child { color: #a33; font-weight: 600; }
th { cursor: pointer; user-select: none; border-bottom: 2px solid #888; }
th[aria-sort=ascending]::after { content: " \\25B2"; } th[aria-sort=descending]::after { content: " \\25BC"; }
details.unit { margin: 0.3em 0; } details.unit > summary { cursor: pointer; font-weight: 600; }
.finding { margin: 0.4em 0 0.4em 1.2em; padding: 0.3em 0.8em; border-left: 4px solid #888; background: #fafafa; }
.finding details { margin-top: 0.2em; } .finding summary { cursor: pointer; color: #555; }
.rule { font-weight: 700; } .muted { color: #666; } .filter { margin: 0.6em 0 1em; } .wide { overflow-x: auto; }
"""

SCRIPT = """
(function () {
  function cellValue(row, index, numeric) {
    var text = row.cells[index].textContent;
    return numeric ? parseFloat(text) || 0 : text.toLowerCase();
  }
  document.querySelectorAll('table.sortable th').forEach(function (header, index) {
    header.addEventListener('click', function () {
      var table = header.closest('table'), body = table.tBodies[0];
      var numeric = header.hasAttribute('data-numeric');
      var ascending = header.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('th').forEach(function (other) { other.removeAttribute('aria-sort'); });
      header.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
        return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
  var filter = document.getElementById('rule-filter');
  if (filter) {
    filter.addEventListener('change', function () {
      var rule = filter.value;
      document.querySelectorAll('#findings details.unit').forEach(function (unit) {
        var shown = 0;
        unit.querySelectorAll('.finding').forEach(function (finding) {
          var match = !rule || finding.getAttribute('data-rule') === rule;
          finding.hidden = !match;
          if (match) { shown += 1; }
        });
        unit.hidden = shown === 0;
        unit.querySelector('.count').textContent = shown;
      });
    });
  }
})();
"""


def color(codes: Sequence[str], code: str) -> str:
    return PALETTE[codes.index(code) % len(PALETTE)]


def inline(text: str) -> str:
    """Escaped text, with Markdown's `code` spans as code."""
    return _BACKTICKS.sub(r"<code>\1</code>", escape(text))


def chart(by_rule: Mapping[str, int], codes: Sequence[str]) -> str:
    """A horizontal bar per rule, as inline SVG."""
    if not by_rule:
        return "<p>No findings.</p>"
    largest = max(by_rule.values())
    height = BAR_HEIGHT * len(codes) + 4
    parts = [
        f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{LABEL_WIDTH + CHART_WIDTH + 70}" '
        f'height="{height}" role="img" aria-label="findings per rule">'
    ]
    for row, code in enumerate(codes):
        y = row * BAR_HEIGHT
        count = by_rule[code]
        width = max(1.0, CHART_WIDTH * count / largest)
        parts.append(
            f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end" font-size="13">{escape(code)}</text>'
            f'<rect class="bar" data-rule="{escape(code)}" x="{LABEL_WIDTH}" y="{y + 3}" width="{width:.1f}" '
            f'height="{BAR_HEIGHT - 6}" fill="{color(codes, code)}"><title>{escape(code)}: {count}</title></rect>'
            f'<text x="{LABEL_WIDTH + width + 6:.1f}" y="{y + 15}" font-size="13">{count}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def units_table(units: Iterable[UnitLine], codes: Sequence[str]) -> str:
    """One row per unit: files, lines, errored files, findings in all and per rule; the error of a
    unit that could not be analysed under its name."""
    numeric = ("Files", "Lines", "Errored", "Findings", *codes)
    header = '<th scope="col">Unit</th>' + "".join(
        f'<th scope="col" data-numeric>{escape(name)}</th>' for name in numeric
    )
    rows = []
    for line in units:
        counts = (line.files, line.lines, line.errored, line.findings, *(line.by_rule.get(code, 0) for code in codes))
        cells = "".join(f"<td>{count}</td>" for count in counts)
        error = f'<div class="error">{escape(line.error)}</div>' if line.error else ""
        errored = ' class="errored"' if line.error else ""
        rows.append(f"<tr{errored}><td>{escape(line.unit)}{error}</td>{cells}</tr>")
    return (
        f'<div class="wide"><table id="units" class="sortable"><thead><tr>{header}</tr></thead><tbody>\n'
        + "\n".join(rows)
        + "\n</tbody></table></div>"
    )


def _place(step: Mapping[str, object]) -> str:
    return f"{step['path']}:{step['line']}:{step['column']}"


def finding_html(finding: Mapping[str, object], codes: Sequence[str]) -> str:
    """One finding on one line; its chain, related places and fingerprint folded under it."""
    code = str(finding["code"])
    chain = cast(Sequence[Mapping[str, object]], finding.get("chain") or ())
    related = cast(Sequence[Mapping[str, object]], finding.get("related") or ())
    steps = "".join(
        f'<li><span class="mono">{escape(_place(step))}</span> <code>{escape(str(step["function"]))}</code>: '
        f"{inline(str(step['message']))}</li>"
        for step in chain
    )
    notes = "".join(
        f'<li><span class="mono">{escape(_place(item))}</span>: {inline(str(item["message"]))}</li>' for item in related
    )
    label = f"call chain ({len(chain)} steps)" if chain else "details"
    function = (
        f' <span class="muted">in <code>{escape(str(finding["function"]))}</code></span>' if finding["function"] else ""
    )
    edge = color(codes, code) if code in codes else "#888"
    return (
        f'<div class="finding" data-rule="{escape(code)}" style="border-left-color:{edge}">'
        f'<span class="mono">{escape(_place(finding))}</span> <span class="rule">{escape(code)}</span> '
        f"{inline(str(finding['message']))}{function}"
        f"<details><summary>{label}</summary>"
        + (f"<ol>{steps}</ol>" if steps else "")
        + (f"<div>Related:</div><ul>{notes}</ul>" if notes else "")
        + f'<div class="muted">fingerprint <code>{escape(str(finding["fingerprint"]))}</code></div>'
        + "</details></div>"
    )


def write_report(
    stream: TextIO,
    total: Totals,
    accounting: str,
    units: Sequence[UnitLine],
    findings: Iterable[Mapping[str, object]],
    errored_files: Iterable[Mapping[str, object]],
) -> None:
    """`units` in the table's first order; `findings` sorted by unit then position;
    `errored_files` sorted by unit and path."""
    codes = sorted(total.by_rule)
    failed = (
        f' <b class="errored">{total.failed_units} unit{"" if total.failed_units == 1 else "s"}'
        " could not be analysed.</b>"
        if total.failed_units else ""
    )
    options = "".join(f'<option value="{escape(code)}">{escape(code)}</option>' for code in codes)
    stream.write(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>epochlint audit</title><style>{STYLE}</style></head><body>\n"
        f"<h1>epochlint audit</h1><p>{total.units} units, {total.files} files, {total.lines} lines, "
        f'{total.findings} findings.{failed}</p><p class="mono">{escape(accounting)}</p>\n'
        f"<h2>Findings per rule</h2>{chart(total.by_rule, codes)}\n"
        f"<h2>Units</h2><p class=\"muted\">Click a column's name to sort by it.</p>{units_table(units, codes)}\n"
        '<h2>Findings</h2><div class="filter"><label>Rule: <select id="rule-filter">'
        f'<option value="">all rules</option>{options}</select></label></div><div id="findings">\n'
    )
    counts = {line.unit: line.findings for line in units}
    _write_grouped(stream, findings, lambda row: finding_html(row, codes), counts)
    stream.write('</div>\n<h2>Files not analysed</h2><div id="errored">\n')
    _write_grouped(stream, errored_files, _errored_html, {line.unit: line.errored for line in units})
    stream.write(f"</div>\n<script>{SCRIPT}</script>\n</body></html>\n")


def _write_grouped(
    stream: TextIO,
    rows: Iterable[Mapping[str, object]],
    render: Callable[[Mapping[str, object]], str],
    counts: Mapping[str, int],
) -> None:
    """Rows under a collapsed section per unit, headed by the unit's count."""
    current: object = None
    for row in rows:
        if row["unit"] != current:
            if current is not None:
                stream.write("</details>\n")
            current = row["unit"]
            count = counts.get(str(current), "")
            stream.write(
                f'<details class="unit"><summary>{escape(str(current))}: <span class="count">{count}</span></summary>\n'
            )
        stream.write(render(row) + "\n")
    stream.write("</details>\n" if current is not None else "<p>None.</p>\n")


def _errored_html(row: Mapping[str, object]) -> str:
    return (
        f'<div><span class="mono">{escape(str(row["path"]))}</span> <b>{escape(str(row["status"]))}</b> '
        f"{inline(str(row['error'] or ''))}</div>"
    )
