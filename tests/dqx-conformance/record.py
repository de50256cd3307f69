#!/usr/bin/env python3
"""Records what DQX itself says about every case of the conformance corpus.

    DQX_PYTHON=/path/to/venv/bin/python python3 tests/dqx-conformance/record.py

DQX_PYTHON is a Python with databricks-labs-dqx 0.17.0 and pyspark installed (see
../shared/tools/README.md; the oracles are ../shared/tools/dqx_oracle.py and
dqx_config_oracle.py beside the repo root, or DQX_ORACLES=folder). Java 17 is needed: checks are
built on a local classic Spark session (--classic), as a cluster would build them.

The cases are the generated files under cases/ (generate.py) and the bad and good doc example of
every DQ8xx rule (read from the rule sources, as the doc-example test reads them). The verdicts go
to verdicts.json, with the text of each example file so that the test notices an example that
changed since it was recorded. crates/dqlint/tests/dqx_conformance.rs holds dqlint to them.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RULES = os.path.join(ROOT, "crates", "dqlint-linter", "src", "rules", "dqx")
PYTHON = os.environ.get("DQX_PYTHON", sys.executable)


def oracles_dir():
    candidates = [os.environ.get("DQX_ORACLES", ""), os.path.join(ROOT, "..", "shared", "tools"),
                  "/work/shared/tools"]
    for c in candidates:
        if c and os.path.exists(os.path.join(c, "dqx_oracle.py")):
            return c
    raise SystemExit("dqx_oracle.py not found: set DQX_ORACLES")


def doc_examples(source):
    """{"bad": [(path, text)], "good": [...]}, parsed as DocExample::parse does."""
    doc = "\n".join(l[4:] if l.startswith("//! ") else l[3:] for l in source.splitlines() if l.startswith("//!"))
    out = {}
    for kind, heading in (("bad", "## Example (bad)"), ("good", "## Example (good)")):
        start = doc.find(heading)
        if start < 0:
            continue
        section = doc[start + len(heading):]
        end = re.search(r"^## ", section, re.M)
        section = section[: end.start()] if end else section
        files, previous, lines = [], "", iter(section.splitlines())
        for line in lines:
            named, previous = previous.strip(), line
            if not line.lstrip().startswith("```"):
                continue
            m = re.fullmatch(r"`([^`]+)`:", named)
            if not m:
                continue
            text = []
            for inner in lines:
                if inner.lstrip().startswith("```"):
                    break
                text.append(inner + "\n")
            files.append((m.group(1), "".join(text)))
        out[kind] = files
    return out


def is_dqx_file(path):
    name = os.path.basename(path)
    return name.endswith((".yml", ".yaml", ".json")) and name != "lhp.yaml" and not path.startswith("substitutions/")


def is_run_config(path, text):
    if os.path.basename(path) == "config.yml":
        return True
    return re.search(r"^run_configs\s*:", text, re.M) is not None


def dqx_options(files):
    """--var / --custom from the example's dqlint.toml [dqx] section."""
    args = []
    for path, text in files:
        if path == "dqlint.toml":
            try:
                dqx = tomllib.loads(text).get("dqx", {})
            except tomllib.TOMLDecodeError:
                continue
            for k, v in dqx.get("variables", {}).items():
                args += ["--var", f"{k}={v}"]
            for name in dqx.get("custom_functions", {}):
                args += ["--custom", name]
    return tuple(args)


def run_json(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0 and not done.stdout.strip():
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def messages(items):
    return [i if isinstance(i, str) else json.dumps(i, sort_keys=True) for i in items]


def checks_verdict(raw):
    v = {"load": None, "validate": [], "semantic": [], "build": []}
    load = raw.get("load", {})
    if not load.get("ok"):
        v["load"] = load.get("error", {}).get("message", "not loaded")
        return v
    v["validate"] = messages(raw.get("validate", {}).get("errors", []))
    v["semantic"] = messages(raw.get("semantic", {}).get("issues", []))
    build = raw.get("build", {})
    if build.get("ok") is False:
        errors = build.get("per_check_errors") or [build]
        v["build"] = [f"{e['error']['type']}: {e['error']['message']}" for e in errors if "error" in e]
    return v


def config_verdict(raw):
    load = raw.get("load", {})
    runtime = []
    for rc in raw.get("runtime", []) or []:
        for key, outcome in rc.items():
            if isinstance(outcome, str) and outcome.startswith("error"):
                runtime.append(f"{rc.get('name')}.{key}: {outcome}")
    return {
        "load": None if load.get("ok") else json.dumps(load, sort_keys=True),
        "dropped": sorted(d["path"] for d in raw.get("dropped", []) or []),
        "runtime": runtime,
    }


def main():
    tools = oracles_dir()
    checks_oracle = [PYTHON, os.path.join(tools, "dqx_oracle.py"), "--build", "--classic"]
    config_oracle = [PYTHON, os.path.join(tools, "dqx_config_oracle.py")]
    with tempfile.TemporaryDirectory() as tmp:
        # (options) -> [(key, file on disk, kind)]
        batches, texts = {}, {}
        for path in sorted(glob.glob(os.path.join(HERE, "cases", "**", "*.*"), recursive=True)):
            rel = os.path.relpath(path, HERE)
            batches.setdefault((), []).append((("cases", rel), path, "checks"))
        for source in sorted(glob.glob(os.path.join(RULES, "dq*.rs"))):
            code = os.path.basename(source)[:5].upper()
            examples = doc_examples(open(source).read())
            bad = examples.get("bad", [])
            good = dict(bad)
            good.update(dict(examples.get("good", [])))
            for kind, files in (("bad", bad), ("good", list(good.items()))):
                folder = os.path.join(tmp, code, kind)
                options = dqx_options(files)
                for rel, text in files:
                    if not is_dqx_file(rel):
                        continue
                    disk = os.path.join(folder, rel)
                    os.makedirs(os.path.dirname(disk), exist_ok=True)
                    with open(disk, "w") as f:
                        f.write(text)
                    key = ("examples", code, kind, rel)
                    texts[key] = text
                    batches.setdefault(options, []).append(
                        (key, disk, "config" if is_run_config(rel, text) else "checks"))
        verdicts = {"cases": {}, "examples": {}}
        for options, entries in batches.items():
            checks = [e for e in entries if e[2] == "checks"]
            configs = [e for e in entries if e[2] == "config"]
            results = {}
            if checks:
                out = run_json(checks_oracle + list(options) + [e[1] for e in checks])
                results.update(out if len(checks) > 1 else {checks[0][1]: out})
            if configs:
                out = run_json(config_oracle + [e[1] for e in configs])
                if len(configs) == 1:
                    out = {configs[0][1]: out}
                results.update(out)
            for key, disk, kind in entries:
                raw = results.get(disk)
                if raw is None:
                    raise SystemExit(f"no verdict for {disk}")
                verdict = config_verdict(raw) if kind == "config" else checks_verdict(raw)
                verdict["kind"] = kind
                if key[0] == "cases":
                    verdicts["cases"][key[1]] = verdict
                else:
                    _, code, kind_, rel = key
                    verdict["text"] = texts[key]
                    verdicts["examples"].setdefault(code, {}).setdefault(kind_, {})[rel] = verdict
    with open(os.path.join(HERE, "verdicts.json"), "w") as f:
        json.dump(verdicts, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"recorded {len(verdicts['cases'])} cases and the examples of {len(verdicts['examples'])} rules")


if __name__ == "__main__":
    main()
