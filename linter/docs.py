"""Documentation generated from the code, so that it never drifts from it: the README's rule table,
one page per rule under `docs/rules/` (what `epochlint rule CODE` prints), the example of
`docs/json-output.md`, the output of a real run, and `docs/cli.md`, every command and option as the
command line defines them.

`python -m epochlint.docs [CHECKOUT]` rewrites them all (default: the current directory); a test
fails when any of them differs from what this module generates.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from epochlint.fix import FIXERS
from epochlint.rules import Rule, all_rules

START = "<!-- rules:start -->"
END = "<!-- rules:end -->"
JSON_START = "<!-- json-example:start -->"
JSON_END = "<!-- json-example:end -->"
README = "README.md"
RULE_PAGES = "docs/rules"
JSON_DOC = "docs/json-output.md"
CLI_DOC = "docs/cli.md"
# The run `docs/json-output.md` shows: one finding with a chain and related places.
JSON_EXAMPLE_SOURCE = "fixtures/EPL006/helper_and_its_callers.py"


def rule_page_path(rule: type[Rule]) -> str:
    return f"{RULE_PAGES}/{rule.code}.md"


def rule_table() -> str:
    lines = ["| Code | Name | What it finds | Autofix |", "| --- | --- | --- | --- |"]
    for rule in all_rules():
        fix = "`--fix`" if rule.code in FIXERS else ""
        lines.append(f"| [{rule.code}]({rule_page_path(rule)}) | `{rule.name}` | {rule.summary} | {fix} |")
    return "\n".join(lines)


def rule_listing() -> list[dict[str, object]]:
    """Every rule as `epochlint rules --output-format json` lists it."""
    return [
        {"code": rule.code, "name": rule.name, "summary": rule.summary, "fix": rule.code in FIXERS}
        for rule in all_rules()
    ]


def with_section(text: str, start: str, end: str, body: str) -> str:
    """`text` with the part between the markers `start` and `end` replaced by `body`."""
    before, found, rest = text.partition(start)
    if not found or end not in rest:
        raise ValueError(f"markers {start} ... {end} not found")
    _, _, after = rest.partition(end)
    return f"{before}{start}\n{body}\n{end}{after}"


def json_example(checkout: Path) -> str:
    """The JSON report of `epochlint check JSON_EXAMPLE_SOURCE --output-format json` in `checkout`."""
    from epochlint.config import load_config
    from epochlint.engine import check
    from epochlint.report import json as json_format
    from epochlint.rules import rule_codes

    source = checkout / JSON_EXAMPLE_SOURCE
    result = check([source], load_config([source], None, rule_codes()), use_cache=False)
    stream = io.StringIO()
    json_format.render(result, stream)
    return stream.getvalue()


def cli_reference() -> str:
    """Every command of `epochlint` with its arguments and options, from the parser itself."""
    from epochlint.cli import build_parser, help_sentence

    parser = build_parser()
    lines = [
        "# Command-line reference",
        "",
        "Every command and option of `epochlint`, generated from its argument parser (`epochlint COMMAND",
        "--help` prints the same). `epochlint --version` prints the version; `-h`/`--help` works everywhere.",
    ]
    for name, command, summary in _commands("epochlint", parser):
        lines += ["", f"## `{name}`", "", summary]
        rows = [_argument_row(action) for action in command._actions if _is_documented(action)]
        if rows:
            lines += ["", "| Argument | Meaning |", "| --- | --- |", *rows]
        if command.epilog:
            lines += ["", help_sentence(command.epilog)]
    return "\n".join(lines) + "\n"


def _commands(prog: str, parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser, str]]:
    """Every command under `parser` (the commands of a command too), in the order `--help` lists them."""
    found: list[tuple[str, argparse.ArgumentParser, str]] = []
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for name, command in action.choices.items():
            found.append((f"{prog} {name}", command, command.description or ""))
            found.extend(_commands(f"{prog} {name}", command))
    return [entry for entry in found if _is_documented_command(entry[1])]


def _is_documented_command(command: argparse.ArgumentParser) -> bool:
    # A command that only groups others (`graph`) is documented through them.
    return not any(isinstance(action, argparse._SubParsersAction) for action in command._actions)


def _is_documented(action: argparse.Action) -> bool:
    return not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))


def _argument_row(action: argparse.Action) -> str:
    metavar = action.metavar if isinstance(action.metavar, str) else None
    if not action.option_strings:
        shown = metavar or action.dest
        names = f"`{shown} ...`" if action.nargs in ("*", "+") else f"`{shown}`"
    else:
        value = f" {metavar or ('FORMAT' if action.choices else 'VALUE')}" if action.nargs != 0 else ""
        names = ", ".join(f"`{option}{value}`" for option in action.option_strings)
    meaning = action.help or ""
    if action.choices is not None and action.option_strings:
        meaning += f" (one of: {', '.join(f'`{choice}`' for choice in action.choices)})"
    return f"| {_cell(names)} | {_cell(meaning)} |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def generated_files(checkout: Path) -> dict[Path, str]:
    """Every generated document of `checkout`, by path, as it should read."""
    readme = checkout / README
    json_doc = checkout / JSON_DOC
    files = {
        readme: with_section(readme.read_text(encoding="utf-8"), START, END, rule_table()),
        json_doc: with_section(
            json_doc.read_text(encoding="utf-8"), JSON_START, JSON_END, f"```json\n{json_example(checkout)}```"
        ),
        checkout / CLI_DOC: cli_reference(),
    }
    files.update({checkout / rule_page_path(rule): rule.documentation() for rule in all_rules()})
    return files


def main(argv: list[str]) -> int:
    checkout = Path(argv[0]) if argv else Path(".")
    (checkout / RULE_PAGES).mkdir(parents=True, exist_ok=True)
    for path, text in generated_files(checkout).items():
        path.write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
