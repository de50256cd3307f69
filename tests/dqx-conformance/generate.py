#!/usr/bin/env python3
"""Writes the generated cases of the DQX conformance corpus from a DQX function catalogue.

    python3 tests/dqx-conformance/generate.py [CATALOGUE.json]

(default: the 0.17.0 catalogue the binary embeds, crates/dqlint-dqx/data/). For every
function of the catalogue it writes, under cases/functions/ (not "generated/": dqlint skips that folder, it is where LHP writes its output):

  valid/required.yml     one check per function, only the parameters without a default
  valid/all_params.yml   one check per function, every parameter given a valid value
  valid/all_params.json  the same as JSON (json.load, not YAML 1.1)
  build/<fn>.yml         a check DQX validates but cannot build (a parameter with a default it needs)
  missing/<fn>.yml       the function without its first required parameter
  wrong_type/<fn>.yml    its first int, float, bool or list parameter (no str in its union) given a string

The values come from VALUES below (by parameter name, then by function); they were chosen so that
DQX 0.17.0 validates and builds every valid check (record.py checks that it still does).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_CATALOGUE = os.path.join(ROOT, "crates", "dqlint-dqx", "data", "functions-0.17.0.json")

# A valid value for a parameter, by name; per-function overrides in BY_FUNCTION.
VALUES = {
    "column": "a",
    "columns": ["a", "b"],
    "ref_columns": ["a", "b"],
    "column1": "a",
    "column2": "b",
    "ref_table": "main.reference.orders",
    "ref_df_name": None,  # exactly one of ref_table / ref_df_name: ref_table is the one given
    "ref_column": "a",
    "aggr_type": "count",
    "aggr_params": None,
    "group_by": ["b"],
    "ref_group_by": ["b"],
    "row_filter": "b > 0",
    "ref_row_filter": "b > 0",
    "abs_tolerance": 0.5,
    "rel_tolerance": 0.1,
    "check_missing_records": True,
    "exclude_columns": ["c"],
    "null_safe_row_matching": True,
    "null_safe_column_value_matching": True,
    "raise_on_duplicate_keys": False,
    "negate": False,
    "null_safe": True,
    "broadcast_ref": False,
    "dimension": 2,
    "convert_column": False,
    "keys": ["id", "name"],
    "require_all": True,
    "time_column": "ts",
    "sigma": 3.0,
    "lookback_num_intervals": 10,
    "warmup_num_intervals": 2,
    "time_interval": "day",
    "window_minutes": 60,
    "trailing_gap": True,
    "curr_timestamp": None,  # a Column object only: no file can give one
    "curr_date": None,
    "limit": 10,
    "allow_nulls": False,
    "schema": "id INT, name STRING",
    "expected_schema": "a INT, b STRING",
    "strict": False,
    "case": "upper",
    "min_value": -10.0,
    "max_value": 10.0,
    "value": 5,
    "srid": 4326,
    "geodesic": False,
    "max_age_minutes": 60,
    "base_timestamp": "2024-01-01 00:00:00",
    "min_records_per_window": 1,
    "lookback_windows": 24,
    "trim_strings": True,
    "reference_geometry": "POINT (0 0)",
    "convert_reference_geometry": True,
    "precise": True,
    "resolution": 7,
    "distance": 1.5,
    "distribution": {"US": 0.5, "CA": 0.5},
    "case_sensitive": True,
    "allowed": ["'US'", "'CA'"],
    "forbidden": ["'XX'"],
    "min_limit": 1,
    "max_limit": 100,
    "cidr_block": "192.168.1.0/24",
    "offset": 60,
    "days": 7,
    "code_format": "alpha-2",
    "date_format": "yyyy-MM-dd",
    "timestamp_format": "yyyy-MM-dd HH:mm:ss",
    "country": "US",
    "country_column": "country",
    "regex": "^[A-Z]{2}[0-9]+$",
    "expression": "a > 0",
    "msg": "a must be positive",
    "name": "a_positive",
    "merge_columns": ["a"],
    "query": "SELECT a, a > 0 AS condition FROM {{ input_view }}",
    "condition_column": "condition",
    "input_placeholder": "input_view",
}

BY_FUNCTION = {
    "is_ipv6_address_in_cidr": {"cidr_block": "2001:db8::/32"},
    "is_valid_currency_code": {"code_format": "alphabetic"},
    "is_valid_language_code": {"code_format": "alpha-2"},
    "is_in_distribution": {"distance": 0.1},
    "has_valid_schema": {"ref_table": None, "columns": ["a", "b"]},
    "compare_datasets": {"exclude_columns": None},
    "is_equal_to": {"value": 5},
    "is_not_equal_to": {"value": 5},
}


# Parameters with a default that DQX 0.17.0 still needs when it builds the rule (it validates the
# check without them, then raises MissingParameterError / InvalidParameterError): the minimal
# valid check gives them, and build/<fn>.yml is the check without them.
NEEDED_TO_BUILD = {
    "aggr_matches_dataset": ["ref_table"],
    "compare_datasets": ["ref_table"],
    "foreign_key": ["ref_table"],
    "has_num_decimal_places": ["limit"],
    "is_equal_to": ["value"],
    "is_not_equal_to": ["value"],
    "is_geo_covers": ["resolution"],
    "is_geo_intersects": ["resolution"],
    "is_in_range": ["min_limit", "max_limit"],
    "is_not_in_range": ["min_limit", "max_limit"],
    "is_not_greater_than": ["limit"],
    "is_not_less_than": ["limit"],
}


def value(fn, param):
    if param in BY_FUNCTION.get(fn, {}):
        return BY_FUNCTION[fn][param]
    return VALUES.get(param)


def arguments(fn, spec, every, buildable=True):
    args = {}
    for p in spec["params"]:
        if p["kind"] not in ("positional_or_keyword", "keyword_only"):
            continue
        needed = buildable and p["name"] in NEEDED_TO_BUILD.get(fn, [])
        if not (p["required"] or every or needed):
            continue
        v = value(fn, p["name"])
        if v is None:
            if p["required"]:
                raise SystemExit(f"no value for required {fn}.{p['name']}")
            continue
        args[p["name"]] = v
    if not args and not every:
        # DQX rejects a check without arguments even when every parameter has a default.
        first = next((p for p in spec["params"] if value(fn, p["name"]) is not None), None)
        if first is not None:
            args[first["name"]] = value(fn, first["name"])
    return args


def rejects_a_string(ty):
    """An int, float, bool or list parameter whose union has no `str` (a string limit is SQL)."""
    members = [m.strip() for m in ty.split("|")]
    return "str" not in members and members[0].split("[")[0] in ("int", "float", "bool", "list")


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(v)  # a double-quoted YAML string is a JSON string


def yaml_value(v, indent):
    pad = " " * indent
    if isinstance(v, list):
        return "[" + ", ".join(yaml_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "".join(f"\n{pad}{yaml_scalar(k)}: {yaml_scalar(x)}" for k, x in v.items())
    return yaml_scalar(v)


def yaml_check(fn, args, criticality="error"):
    out = [f"- criticality: {criticality}", "  check:", f"    function: {fn}"]
    if args:
        out.append("    arguments:")
        for k, v in args.items():
            out.append(f"      {k}: {yaml_value(v, 8)}")
    return "\n".join(out) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    catalogue_path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_CATALOGUE
    with open(catalogue_path) as f:
        catalogue = json.load(f)
    version = catalogue["dqx_version"]
    functions = catalogue["functions"]
    out = os.path.join(HERE, "cases", "functions")
    header = f"# Generated by tests/dqx-conformance/generate.py from the DQX {version} catalogue.\n"
    required, every, every_json = [header], [header], []
    for fn, spec in sorted(functions.items()):
        required.append(yaml_check(fn, arguments(fn, spec, False)))
        all_args = arguments(fn, spec, True)
        every.append(yaml_check(fn, all_args, "warn"))
        every_json.append({"criticality": "warn", "check": {"function": fn, "arguments": all_args}})
        if fn in NEEDED_TO_BUILD:
            write(os.path.join(out, "build", f"{fn}.yml"),
                  header + yaml_check(fn, arguments(fn, spec, False, buildable=False)))
        first_required = next((p for p in spec["params"] if p["required"]), None)
        if first_required is not None:
            args = arguments(fn, spec, False)
            del args[first_required["name"]]
            if args or len([p for p in spec["params"] if p["required"]]) == 1:
                write(os.path.join(out, "missing", f"{fn}.yml"), header + yaml_check(fn, args))
        typed = next((p for p in spec["params"] if p["name"] in all_args and rejects_a_string(p["type"])), None)
        if typed is not None:
            args = dict(all_args)
            args[typed["name"]] = "oops"
            write(os.path.join(out, "wrong_type", f"{fn}.yml"), header + yaml_check(fn, args))
    write(os.path.join(out, "valid", "required.yml"), "".join(required))
    write(os.path.join(out, "valid", "all_params.yml"), "".join(every))
    write(os.path.join(out, "valid", "all_params.json"), json.dumps(every_json, indent=2) + "\n")


if __name__ == "__main__":
    main()
