"""Records how PyYAML's safe_load types a generated set of plain scalars.

Run with the Python that DQX uses (PyYAML 6.x):

    python3 crates/dqlint-dqx/scripts/gen_pyyaml_scalars.py > crates/dqlint-dqx/data/pyyaml_scalars.json

Each scalar is loaded as the value of `v: <text>`, so it is read plain
(unquoted). The Rust test `tests/pyyaml_scalars.rs` reads the same text
through dqlint-yaml and dqlint-dqx and compares type and value.
"""
import datetime
import itertools
import json
import sys

import yaml

WORDS = [
    "yes", "no", "true", "false", "on", "off", "y", "n", "null", "nil", "none", "~",
]


def cases(word):
    out = {word, word.lower(), word.upper(), word.capitalize()}
    if len(word) > 1:
        out.add(word[0].lower() + word[1:].upper())
        out.add(word[0].upper() + word[1].lower() + word[2:].upper())
    return sorted(out)


BODIES = [
    "0", "00", "07", "08", "0777", "0_7", "0_", "0o17", "0O17", "0x1F", "0X1F", "0x_1f", "0xg",
    "0b101", "0b_1", "0b2", "1", "10", "1_000", "1__0", "_1", "1_", "12345678901234567890123456789012345678901234",
    "1:30", "1:60", "1:5", "190:20:30", "0:30", "01:30", "1:30:", "1::30",
    "1.", "1.5", ".5", "._5", "1_0.5", "1.5e+3", "1.5e3", "1e5", "1E+5", "1.0E-2", "1.e+2", ".5e-1",
    "1.2.3", "190:20:30.15", "1:30.5", "1:70.5", ".inf", ".Inf", ".INF", ".iNf", ".nan", ".NaN",
    ".NAN", "inf", "nan", "1,000", "1 000", "0.", "00.5", "1_._", "123abc", "0x", "0b",
]

TIMESTAMPS = [
    "2024-01-01", "2024-1-1", "2024-01-1", "2024-02-29", "2023-02-29", "2024-02-30", "2024-13-01",
    "2024-00-10", "2024-04-31", "0000-01-01", "0001-01-01", "9999-12-31", "20240101", "2024/01/01",
    "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "2001-12-14 21:59:43.10 Z",
    "2001-12-14T21:59:43Z", "2001-12-14T21:59:43", "2001-12-14T25:00:00", "2001-12-14T21:60:00",
    "2001-12-14T21:59:60", "2001-12-14T21:59:43+24", "2001-12-14T21:59:43+23:59", "2001-12-14T1:02:03",
    "2001-12-14T21:59", "2001-12-14 21:59:43.1234567", "2001-12-14  21:59:43", "2001-12-14T21:59:43.",
    "2024-01-01T00:00:00+05", "2024-01-01T00:00:00 +05:30",
]

MISC = ["=", "<<", "==", "a", "US", "error", "warn", "col > 0", "x:y", "1 + 1", "-", "+", ".", "-.", "+.inf5"]


def scalars():
    seen = set()
    for word in WORDS:
        for c in cases(word):
            yield c
    for body in BODIES:
        for sign in ("", "-", "+"):
            yield sign + body
    yield from TIMESTAMPS
    yield from MISC


def describe(value):
    if value is None:
        return "null", None
    if isinstance(value, bool):
        return "bool", value
    if isinstance(value, int):
        return "int", str(value)
    if isinstance(value, float):
        return "float", repr(value)
    if isinstance(value, datetime.datetime):
        return "datetime", value.isoformat()
    if isinstance(value, datetime.date):
        return "date", value.isoformat()
    if isinstance(value, str):
        return "str", value
    return type(value).__name__, repr(value)


def main():
    out = []
    seen = set()
    for text in scalars():
        if text in seen:
            continue
        seen.add(text)
        try:
            value = yaml.safe_load("v: " + text + "\n")["v"]
            kind, shown = describe(value)
        except Exception as exc:  # noqa: BLE001 - the error is the answer
            kind, shown = "error", type(exc).__name__
        out.append({"text": text, "type": kind, "value": shown})
    json.dump({"pyyaml": yaml.__version__, "scalars": out}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
