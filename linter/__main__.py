from linter.cli import run

run()
