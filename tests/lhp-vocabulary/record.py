#!/usr/bin/env python3
"""Records the LHP vocabulary (keys per block, allowed values, one-line docs)
from a lakehouse-plumber wheel, and writes it twice:

    pip download --no-deps lakehouse-plumber==0.9.3 -d /tmp/lhp
    python3 tests/lhp-vocabulary/record.py /tmp/lhp/lakehouse_plumber-0.9.3-py3-none-any.whl

- tests/lhp-vocabulary/lhp-0.9.3.json: the recording, facts read from the wheel
  (the JSON schemas under lhp/schemas/, the field catalogue
  lhp/core/validators/field/_field_catalog.py, the Pydantic models and enums under
  lhp/models/), nothing else;
- crates/dqlint-project/src/vocabulary/lhp_0_9_3.rs: the same facts as Rust data,
  plus what dqlint decides on top of them (the keys each action type reads, the
  values a data_quality action accepts, dqlint's own docs where LHP's say less),
  each such decision in CURATED below with its reason.

crates/dqlint-project/tests/vocabulary.rs holds the Rust data against the recording.
Nothing of LHP is imported or run: the Python files are read with `ast`.
"""
import ast
import json
import os
import re
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUST_OUT = os.path.join(ROOT, "crates", "dqlint-project", "src", "vocabulary", "lhp_0_9_3.rs")

# The schema files and which LHP file each describes (lhp/schemas/README.md).
SCHEMAS = {
    "flowgroup": "flowgroup.schema.json",
    "template": "template.schema.json",
    "preset": "preset.schema.json",
    "project": "project.schema.json",
    "substitution": "substitution.schema.json",
    "pipeline_config": "pipeline_config.schema.json",
    "blueprint": "blueprint.schema.json",
}

# --- What dqlint decides on top of LHP's facts ------------------------------
# The keys each action type reads. LHP's field catalogue (ACTION_FIELDS) is one
# flat set for every action; which of them an action of a type uses is read
# from its generator (lhp/generators/<type>/<kind>.py) and validator
# (lhp/core/validators/action/<type>.py). Every key must be in ACTION_FIELDS.
COMMON = ["name", "type", "description", "depends_on"]
ACTION_TYPE_KEYS = {
    "load": COMMON + ["source", "target", "readMode", "operational_metadata", "custom_datasource_class"],
    "transform": COMMON + ["transform_type", "source", "target", "readMode", "operational_metadata"],
    "transform/sql": COMMON + ["transform_type", "source", "target", "sql", "sql_path", "operational_metadata"],
    "transform/python": COMMON + ["transform_type", "source", "target", "readMode", "module_path",
                                  "function_name", "parameters", "operational_metadata"],
    # DQ003's list since it was written (reference/lhp-behaviour.md section 2): the
    # fields the data_quality validator and generator read, plus the common ones.
    "transform/data_quality": ["name", "type", "transform_type", "source", "target", "description",
                               "readMode", "expectations_file", "mode", "quarantine",
                               "operational_metadata", "depends_on"],
    "transform/temp_table": COMMON + ["transform_type", "source", "target", "readMode", "sql",
                                      "operational_metadata"],
    "transform/schema": COMMON + ["transform_type", "source", "target", "readMode", "schema_inline",
                                  "schema_file", "enforcement", "operational_metadata"],
    "write": COMMON + ["source", "write_target", "readMode", "once", "operational_metadata"],
    "test": COMMON + ["test_type", "source", "target", "on_violation", "test_id"],
    "test/row_count": ["tolerance"],
    "test/uniqueness": ["columns", "filter"],
    "test/referential_integrity": ["reference", "source_columns", "reference_columns"],
    "test/completeness": ["required_columns"],
    "test/range": ["column", "min_value", "max_value"],
    "test/schema_match": ["reference"],
    "test/all_lookups_found": ["lookup_table", "lookup_columns", "lookup_result_columns"],
    "test/custom_sql": ["sql", "expectations"],
    "test/custom_expectations": ["expectations"],
}
# Values narrower than the schema's for a key of one block.
VALUE_OVERRIDES = {
    # `lhp generate` rejects anything else (LHP-VAL-068); DQ105 flags it.
    ("action:transform/data_quality", "readMode"): ["stream"],
}
# Keys LHP ignores silently but dqlint accepts without a DQ003 finding:
# `description` documents a flowgroup (it is a key of every other LHP file).
EXTRA_KEYS = {
    "flowgroup:": [("description", "Free text about the flowgroup; LHP ignores it (it is not a FlowGroup field).")],
}
# The order of a flowgroup's top-level keys: the FlowGroup model's, then the
# array form's `flowgroups` (did-you-mean takes the first of equally near keys).
FLOWGROUP_ORDER = ["pipeline", "flowgroup", "job_name", "variables", "presets", "use_template",
                   "template_parameters", "actions", "operational_metadata", "flowgroups"]
# dqlint's own docs, where LHP's schema says less than what a user of
# data_quality needs (facts from reference/lhp-behaviour.md section 2).
DOCS = {
    ("action:transform/data_quality", "source"): "For a data_quality action: a single view name. A list passes `lhp validate` but generates `spark.readStream.table(\"\")`.",
    ("action:transform/data_quality", "expectations_file"): "Path (from the project root) of the YAML or JSON rules file. Required, but only `lhp generate` checks it in dqe mode.",
    ("action:transform/data_quality", "mode"): "`dqe` (default): expectations decorate a view (`warn`/`drop`/`fail`). `quarantine`: failing rows go to a DLQ table and every rule is enforced as `drop`; needs a `quarantine:` block.",
    ("action:transform/data_quality", "quarantine"): "With `mode: quarantine` only: `dlq_table` and `source_table`, both `catalog.schema.table` after substitution. Other keys are dropped silently.",
    ("action:transform/data_quality", "readMode"): "`stream` (default) is the only value a data_quality action accepts; anything else fails at `lhp generate` (LHP-VAL-068).",
    ("action:transform/data_quality", "target"): "The temporary view the action produces; unique within the flowgroup.",
    ("flowgroup:actions[].quarantine", "dlq_table"): "The shared dead-letter table (`catalog.schema.table`) failing rows are merged into; its outbox is `<dlq_table>_outbox`. Needs change data feed and row tracking.",
    ("flowgroup:actions[].quarantine", "source_table"): "The name recorded in `_dlq_source_table` for rows of this action; it must be unique per DLQ across the project.",
}

# Docs for keys LHP's schema does not describe, by block family and key.
FALLBACK_DOCS = {
    ("source", "type"): "The kind of load source; it decides which other keys the source takes.",
    ("flowgroup", "type"): "The kind of load source; it decides which other keys the source takes.",
    ("template", "type"): "The kind of load source; it decides which other keys the source takes.",
    ("flowgroup", "file"): "Path of the schema file, from the project root.",
    ("template", "file"): "Path of the schema file, from the project root.",
    ("write_target", "description"): "In LHP's field catalogue for this target; the table's own description is `comment`.",
}


def read_wheel(path):
    files = {}
    if os.path.isdir(path):
        for base, _, names in os.walk(path):
            for n in names:
                full = os.path.join(base, n)
                files[os.path.relpath(full, path).replace(os.sep, "/")] = open(full, "rb").read()
    else:
        with zipfile.ZipFile(path) as z:
            for n in z.namelist():
                files[n] = z.read(n)
    return files


def version_of(files):
    for name in files:
        m = re.match(r"lakehouse_plumber-([0-9.]+)\.dist-info/METADATA$", name)
        if m:
            return m.group(1)
    raise SystemExit("not a lakehouse-plumber wheel: no dist-info/METADATA")


def one_line(text):
    """The first sentence of a description, on one line."""
    if not text:
        return ""
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text).strip()


# --- JSON schemas -----------------------------------------------------------
def resolve(node, root):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        target = root
        for part in ref.lstrip("#/").split("/"):
            target = target[part]
        merged = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **merged}
    return node


def alternatives(node, root, depth=0):
    """The node and every alternative it merges (allOf/oneOf/anyOf), resolved."""
    node = resolve(node, root)
    out = [node]
    if depth > 6 or not isinstance(node, dict):
        return out
    for key in ("allOf", "oneOf", "anyOf"):
        for alt in node.get(key, []):
            out.extend(alternatives(alt, root, depth + 1))
    return out


def enum_of(node, root):
    values = []
    for alt in alternatives(node, root):
        if isinstance(alt, dict):
            for v in alt.get("enum", []):
                if isinstance(v, str) and v not in values:
                    values.append(v)
    return values


def doc_of(node, root):
    for alt in alternatives(node, root):
        if isinstance(alt, dict) and alt.get("description"):
            return one_line(alt["description"])
    return ""


def walk(node, root, path, blocks, depth=0):
    """Records the block at `path` (keys with docs and values) and its children."""
    if depth > 8:
        return
    props = {}
    items = []
    extra = []
    for alt in alternatives(node, root):
        if not isinstance(alt, dict):
            continue
        for key, sub in alt.get("properties", {}).items():
            props.setdefault(key, []).append(sub)
        if isinstance(alt.get("items"), dict):
            items.append(alt["items"])
        if isinstance(alt.get("additionalProperties"), dict):
            extra.append(alt["additionalProperties"])
    if props:
        block = blocks.setdefault(path, {})
        for key, subs in props.items():
            entry = block.setdefault(key, {"doc": "", "values": []})
            for sub in subs:
                entry["doc"] = entry["doc"] or doc_of(sub, root)
                for v in enum_of(sub, root):
                    if v not in entry["values"]:
                        entry["values"].append(v)
        for key, subs in props.items():
            for sub in subs:
                walk(sub, root, f"{path}.{key}" if path else key, blocks, depth + 1)
    for sub in items:
        walk(sub, root, f"{path}[]", blocks, depth + 1)
    for sub in extra:
        walk(sub, root, f"{path}.*" if path else "*", blocks, depth + 1)


def schema_blocks(files, name):
    root = json.loads(files[f"lhp/schemas/{name}"])
    blocks = {}
    walk(root, root, "", blocks)
    return blocks


# --- Python sources (read, not run) ------------------------------------------
def module(files, rel):
    return ast.parse(files[f"lhp/{rel}"].decode())


def field_catalogue(files):
    tree = module(files, "core/validators/field/_field_catalog.py")
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            value = ast.literal_eval(node.value)
            if isinstance(value, dict):
                value = {k: sorted(v) for k, v in value.items()}
            elif isinstance(value, set):
                value = sorted(value)
            out[node.targets[0].id] = value
    return out


def model_fields(files, rel):
    """Fields of every class of a models file, in declaration order."""
    out = {}
    for node in module(files, rel).body:
        if isinstance(node, ast.ClassDef):
            fields = [s.target.id for s in node.body
                      if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                      and not s.target.id.startswith("_")]
            values = [s.value.value for s in node.body
                      if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
                      and isinstance(s.value.value, str) and not s.targets[0].id.startswith("_")]
            out[node.name] = fields if fields else values
    return out


def record(files):
    catalogue = field_catalogue(files)
    models = {}
    for rel in ("models/_flowgroup.py", "models/_action.py", "models/_template.py",
                "models/_quarantine.py", "models/_enums.py"):
        models.update(model_fields(files, rel))
    keep = ["FlowGroup", "Action", "WriteTarget", "Template", "Preset", "QuarantineConfig",
            "ActionType", "TestActionType", "ViolationAction", "LoadSourceType", "TransformType",
            "DQMode", "WriteTargetType"]
    return {
        "lhp_version": version_of(files),
        "schemas": {kind: schema_blocks(files, name) for kind, name in SCHEMAS.items()},
        "field_catalogue": {
            "action": catalogue["ACTION_FIELDS"],
            "source": catalogue["LOAD_SOURCE_FIELDS"],
            "write_target": catalogue["WRITE_TARGET_FIELDS"],
        },
        "models": {k: models[k] for k in keep},
    }


# --- The Rust data ------------------------------------------------------------
def rust_blocks(rec):
    """Block id -> [(key, doc, values)], in order."""
    schemas = rec["schemas"]
    cat = rec["field_catalogue"]
    enums = rec["models"]
    blocks = {}
    for kind, paths in schemas.items():
        for path, keys in paths.items():
            blocks[f"{kind}:{path}"] = [(k, v["doc"], list(v["values"])) for k, v in keys.items()]
    # A flowgroup's top level in FLOWGROUP_ORDER, then its extras.
    top = dict((k, (d, v)) for k, d, v in blocks["flowgroup:"])
    missing = [k for k in top if k not in FLOWGROUP_ORDER]
    assert not missing, f"new flowgroup keys: {missing}: add them to FLOWGROUP_ORDER"
    blocks["flowgroup:"] = [(k, *top[k]) for k in FLOWGROUP_ORDER if k in top]
    for block, extra in EXTRA_KEYS.items():
        blocks[block] += [(k, d, []) for k, d in extra]

    def schema_entry(path, key):
        for k, d, v in blocks.get(f"flowgroup:{path}", []):
            if k == key:
                return d, v
        return "", []

    # Action types: the curated keys, docs and values from the schema's Action.
    action_fields = set(cat["action"])
    for kind, keys in ACTION_TYPE_KEYS.items():
        if kind.startswith("test/"):
            keys = ACTION_TYPE_KEYS["test"] + keys
        bad = [k for k in keys if k not in action_fields]
        assert not bad, f"{kind}: {bad} are not in LHP's ACTION_FIELDS"
        block = f"action:{kind}"
        rows = []
        for key in keys:
            doc, values = schema_entry("actions[]", key)
            values = VALUE_OVERRIDES.get((block, key), values)
            rows.append((key, DOCS.get((block, key), doc), values))
        blocks[block] = rows
    # An action whose type is not known yet: every action field.
    blocks["action:"] = [(k, *schema_entry("actions[]", k)) for k in sorted(action_fields)]
    for section, path in (("source", "actions[].source"), ("write_target", "actions[].write_target")):
        for kind, keys in cat[section].items():
            rows = []
            for key in keys:
                doc, values = schema_entry(path, key)
                if key == "type":
                    values = [kind]
                rows.append((key, doc, values))
            blocks[f"{section}:{kind}"] = rows
    # Enums the schema leaves open, from LHP's enums.
    fill = {("action:test", "test_type"): enums["TestActionType"],
            ("action:test", "on_violation"): enums["ViolationAction"],
            ("action:transform/data_quality", "mode"): enums["DQMode"]}
    for block, rows in blocks.items():
        for i, (k, d, v) in enumerate(rows):
            base = block.split("/")[0] if block.startswith("action:test") else block
            if not v and (base, k) in fill:
                rows[i] = (k, d, fill[(base, k)])
    for (block, key), doc in DOCS.items():
        blocks[block] = [(k, doc if k == key else d, v) for k, d, v in blocks[block]]
    # A key the schema leaves undescribed in one block: its doc in the block
    # LHP copies it from (a blueprint's flowgroups are flowgroups), else dqlint's.
    for block, rows in blocks.items():
        for i, (k, d, v) in enumerate(rows):
            if d:
                continue
            if block.startswith("blueprint:flowgroups[]"):
                d = next((dd for kk, dd, _ in blocks["flowgroup:"] if kk == k and dd), "")
            d = d or FALLBACK_DOCS.get((block.split(":")[0], k), "")
            assert d, f"no doc for {k} in {block}: add one to FALLBACK_DOCS"
            rows[i] = (k, d, v)
    return blocks


def rust_str(s):
    return json.dumps(s, ensure_ascii=False)


def write_rust(rec, blocks):
    out = [
        "// @generated by tests/lhp-vocabulary/record.py from lakehouse-plumber "
        f"{rec['lhp_version']}; do not edit.",
        "// Re-record (see the script's docstring) instead: the test in",
        "// crates/dqlint-project/tests/vocabulary.rs holds this file against the recording.",
        "",
        "use super::{Block, Key};",
        "",
        f"pub const LHP_VERSION: &str = {rust_str(rec['lhp_version'])};",
        "",
        "pub static BLOCKS: &[Block] = &[",
    ]
    for block in sorted(blocks):
        out.append("    Block {")
        out.append(f"        id: {rust_str(block)},")
        out.append("        keys: &[")
        for key, doc, values in blocks[block]:
            vals = ", ".join(rust_str(v) for v in values)
            out.append(f"            Key {{ name: {rust_str(key)}, doc: {rust_str(doc)}, values: &[{vals}] }},")
        out.append("        ],")
        out.append("    },")
    out.append("];")
    os.makedirs(os.path.dirname(RUST_OUT), exist_ok=True)
    with open(RUST_OUT, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    files = read_wheel(sys.argv[1])
    rec = record(files)
    path = os.path.join(HERE, f"lhp-{rec['lhp_version']}.json")
    with open(path, "w") as f:
        json.dump(rec, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    blocks = rust_blocks(rec)
    write_rust(rec, blocks)
    print(f"{path}: {sum(len(b) for s in rec['schemas'].values() for b in s.values())} schema keys; "
          f"{RUST_OUT}: {len(blocks)} blocks")


if __name__ == "__main__":
    main()
