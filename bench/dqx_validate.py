#!/usr/bin/env python3
"""What a DQX user runs in CI instead of dqlint: every checks file under DIR loaded by DQX and
checked by its own validate_checks (structure and argument types; the default semantic
validation, which logs duplicates and conflicts, included). Prints how many files and checks
it saw and how many files DQX rejects; exit 1 when any.

    DQX_PYTHON=/path/to/venv/bin/python; $DQX_PYTHON bench/dqx_validate.py DIR

Needs databricks-labs-dqx (0.17.0 for the figures in docs/performance.md). No Spark session
and no workspace: the checks are only validated, as `validate_checks` does in a notebook.
"""
import logging
import os
import sys
import warnings

os.environ.setdefault("SPARK_CONNECT_MODE_ENABLED", "1")
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

from databricks.labs.dqx.engine import DQEngineCore  # noqa: E402


def main(root):
    files = checks = rejected = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.endswith((".yml", ".yaml", ".json")):
                continue
            path = os.path.join(folder, name)
            files += 1
            try:
                loaded = DQEngineCore.load_checks_from_local_file(path)
            except Exception:  # a load error is DQX rejecting the file
                rejected += 1
                continue
            checks += len(loaded)
            if DQEngineCore.validate_checks(loaded).has_errors:
                rejected += 1
    print(f"{files} files, {checks} checks, {rejected} rejected by DQX")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
