"""The audit as a `spark-submit` application: this file, followed by `audit`'s arguments.

    spark-submit --master spark://host:7077 "$(python -m epochlint.audit.submit)" ROOT... --out DIR

Run as a module (`python -m`), it prints its own path, for the command above; run as a file, as
spark-submit runs it, it audits.
"""

from __future__ import annotations

import sys
from pathlib import Path

from epochlint.cli import main

if __name__ == "__main__":
    if __spec__ is None:
        sys.exit(main(["audit", *sys.argv[1:]]))
    print(Path(__file__).resolve())
