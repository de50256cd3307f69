//! `docs/dqlint.schema.json` (the JSON schema editors use for
//! `dqlint.toml`) is generated from the registry and the configuration's
//! key lists, and agrees with the parser: the same keys, examples the
//! parser accepts, and the same verdict on sample files.
//!
//! Regenerate after adding a rule or a key:
//! `DQLINT_UPDATE_SCHEMA=1 cargo test -p dqlint-linter --test config_schema`

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use dqlint_linter::config::{
    Config, CIRCUIT_BREAKER_KEYS, DEFAULT_QUARANTINE_NAMES, DLT_KEYS, DLT_RUNTIMES, DQX_KEYS,
    MANDATORY_KEYS, MANDATORY_KINDS, MIN_ACTIONS, OVERRIDE_KEYS, POLICY_KEYS, SEVERITY_NAMES,
    TOP_LEVEL_KEYS,
};
use dqlint_linter::RULES;
use serde_json::{json, Map, Value};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schema_path() -> PathBuf {
    repo().join("docs/dqlint.schema.json")
}

/// Codes, names, and the code prefixes from `DQ` on.
fn selectors() -> Vec<String> {
    let mut prefixes = BTreeSet::new();
    for rule in RULES {
        for len in 2..rule.code.len() {
            prefixes.insert(rule.code[..len].to_string());
        }
    }
    let mut out: Vec<String> = prefixes.into_iter().collect();
    out.extend(RULES.iter().map(|r| r.code.to_string()));
    out.extend(RULES.iter().map(|r| r.name.to_string()));
    out
}

fn key_doc(key: &str) -> (&'static str, Value, Value) {
    let selector_list =
        json!({ "type": "array", "items": { "$ref": "#/definitions/ruleSelector" } });
    match key {
        "select" => ("Rules to run: codes (DQ207), code prefixes (DQ2) or names (quarantine-coerces-action). Default: every rule. In [[overrides]]: rules turned on in those files.", selector_list, json!(["DQ1", "DQ4"])),
        "ignore" => ("Rules to skip: codes, code prefixes or names. In [[overrides]]: rules turned off in those files.", selector_list, json!(["dlq-ddl-not-found"])),
        "envs" => ("Environments to check (stems of substitutions/<env>.yaml). Default: every substitutions file. --env replaces it.", json!({ "type": "array", "items": { "type": "string", "minLength": 1 } }), json!(["dev", "prod"])),
        "ddl" => ("Globs of the .sql files dqlint reads for the DDL catalog and DQ409, relative to the project root. Default: every *.sql under the root.", json!({ "type": "array", "items": { "type": "string", "minLength": 1 } }), json!(["sql/**/*.sql"])),
        "severity" => ("Severity per rule selector; an exact code or name wins over a prefix.", json!({ "$ref": "#/definitions/severityTable" }), json!({ "DQ402": "warning" })),
        "sql" => ("SQL settings. `udfs`: the functions the project registers (spark.udf.register, session functions), one-part names; DQ306 does not report calls of them.", json!({ "type": "object", "additionalProperties": false, "properties": { "udfs": { "type": "array", "items": { "type": "string", "minLength": 1 } } } }), json!({ "udfs": ["is_valid_sku"] })),
        "overrides" => ("Settings for the findings located in some files; later entries win.", json!({ "type": "array", "items": { "$ref": "#/definitions/override" } }), json!([{ "files": ["pipelines/legacy/**"], "ignore": ["DQ105"] }])),
        "files" => ("Globs of the files this override applies to, relative to the project root; a glob without / matches file names anywhere.", json!({ "type": "array", "minItems": 1, "items": { "type": "string", "minLength": 1 } }), json!(["pipelines/legacy/**"])),
        "dqx" => ("DQX checks files and run configs: the catalogue version, extras, custom functions, variables, target runtime, files forced to a DQX kind, and table schemas (docs/dqx.md).", json!({ "$ref": "#/definitions/dqx" }), json!({ "version": "0.17.0", "extras": ["pii"], "custom_functions": { "is_valid_sku": ["column"] }, "variables": { "min_price": "0" }, "dbr": "16.4", "checks": ["quality/**/*.yml"], "configs": [".dqx/config.yml"], "schemas": { "quality/orders*.yml": "order_id BIGINT, country STRING" } })),
        "dlt" => ("Pipeline sources (Lakeflow Declarative Pipelines, Python and SQL): the runtime, the dataset names that make a quarantine table, and the functions that load rules from a registry (docs/pipelines.md).", json!({ "$ref": "#/definitions/dlt" }), json!({ "runtime": "databricks", "quarantine_names": ["*quarantine*", "*_dlq"], "rule_loaders": ["get_rules"] })),
        "policy" => ("Team policies over every dialect (docs/policy.md): rule kinds every matched dataset must have, the circuit breaker its quarantine needs, the registry rules must come from.", json!({ "$ref": "#/definitions/policy" }), json!({ "mandatory": [{ "datasets": ["*.silver.*", "silver_*"], "kinds": ["not_null", "unique", "range"], "columns": { "not_null": ["id"], "unique": ["id"] }, "min_action": "drop" }], "circuit_breaker": { "datasets": ["*.silver.*"], "max_quarantine_ratio": 0.05 }, "registry": ["expectations/**/*.yaml"] })),
        other => panic!("no documentation for the key `{other}`: add it here"),
    }
}

/// `[policy]`, its `[[policy.mandatory]]` entries and `[policy.circuit_breaker]`.
fn policy_schema() -> Value {
    let dataset_globs =
        json!({ "type": "array", "minItems": 1, "items": { "type": "string", "minLength": 1 } });
    let kind_list = json!({ "type": "array", "minItems": 1, "items": { "type": "string", "enum": MANDATORY_KINDS } });
    let mandatory: Map<String, Value> = MANDATORY_KEYS
        .iter()
        .map(|key| {
            let (description, schema) = match *key {
                "datasets" => ("Globs over dataset names (LHP write targets per environment, DQX input/output tables, pipeline datasets), case-insensitive; `*` crosses dots; a glob without a dot also matches the last part of a qualified name.", dataset_globs.clone()),
                "table_properties" => ("Table properties that select a dataset too (all of them, values compared exactly): pipeline `table_properties` / `TBLPROPERTIES`, LHP `write_target.table_properties`.", json!({ "type": "object", "minProperties": 1, "additionalProperties": { "type": "string" } })),
                "kinds" => ("The rule kinds every selected dataset needs (DQ950).", kind_list.clone()),
                "columns" => ("Kind -> the columns it must be on; every listed column needs its own rule of that kind.", json!({ "type": "object", "propertyNames": { "enum": MANDATORY_KINDS }, "additionalProperties": { "type": "array", "minItems": 1, "items": { "type": "string", "minLength": 1 } } })),
                "min_action" => ("The weakest action that counts (DQ951): `warn`, `drop` (the default; quarantine and DQX `error` count as drop) or `fail`.", json!({ "type": "string", "enum": MIN_ACTIONS, "default": "drop" })),
                "unique" => ("`external`: uniqueness is enforced outside the pipeline, so `unique` counts as present.", json!({ "type": "string", "enum": ["external"] })),
                other => panic!("no documentation for the [[policy.mandatory]] key `{other}`: add it here"),
            };
            let mut schema = schema;
            schema["description"] = json!(description);
            (key.to_string(), schema)
        })
        .collect();
    let breaker: Map<String, Value> = CIRCUIT_BREAKER_KEYS
        .iter()
        .map(|key| {
            let (description, schema) = match *key {
                "datasets" => ("Globs over dataset names (as in [[policy.mandatory]]) whose quarantine needs a circuit breaker (DQ953).", dataset_globs.clone()),
                "max_quarantine_ratio" => ("The largest share of a batch that may be quarantined, from 0 to 1 (0.05: 5%); a looser breaker is DQ954.", json!({ "type": "number", "minimum": 0, "maximum": 1 })),
                other => panic!("no documentation for the [policy.circuit_breaker] key `{other}`: add it here"),
            };
            let mut schema = schema;
            schema["description"] = json!(description);
            (key.to_string(), schema)
        })
        .collect();
    let properties: Map<String, Value> = POLICY_KEYS
        .iter()
        .map(|key| {
            let (description, schema) = match *key {
                "mandatory" => ("[[policy.mandatory]]: the rule kinds the datasets it selects must have.", json!({ "type": "array", "items": { "type": "object", "additionalProperties": false, "required": ["kinds"], "properties": mandatory.clone() } })),
                "circuit_breaker" => ("[policy.circuit_breaker]: datasets whose quarantine must fail the pipeline past a ratio.", json!({ "type": "object", "additionalProperties": false, "required": ["datasets", "max_quarantine_ratio"], "properties": breaker.clone() })),
                "registry" => ("Globs of the YAML files pipeline rules must come from (DQ952), relative to the project root.", json!({ "type": "array", "minItems": 1, "items": { "type": "string", "minLength": 1 } })),
                other => panic!("no documentation for the [policy] key `{other}`: add it here"),
            };
            let mut schema = schema;
            schema["description"] = json!(description);
            (key.to_string(), schema)
        })
        .collect();
    json!({ "type": "object", "additionalProperties": false, "properties": properties })
}

/// `[dlt]`: one property per key of `DLT_KEYS`.
fn dlt_schema() -> Value {
    let properties: Map<String, Value> = DLT_KEYS
        .iter()
        .map(|key| {
            let (description, schema) = match *key {
                "runtime" => ("Where the pipelines run: `databricks` (Lakeflow Declarative Pipelines, the default) or `oss-spark` (Apache Spark 4.x `pyspark.pipelines`, which has no expectations; DQ905).", json!({ "type": "string", "enum": DLT_RUNTIMES })),
                "quarantine_names" => ("Patterns (`*`, `?`) on dataset names that make a dataset a quarantine table (DQ920-DQ925), matched on the last part of the name, case-insensitively.", json!({ "type": "array", "items": { "type": "string", "minLength": 1 }, "default": DEFAULT_QUARANTINE_NAMES })),
                "rule_loaders" => ("Python functions that return rules from a registry (`get_rules`, `registry.load_rules`): their calls are resolved against the policy registry (policy.md, DQ952).", json!({ "type": "array", "items": { "type": "string", "minLength": 1 } })),
                other => panic!("no documentation for the [dlt] key `{other}`: add it here"),
            };
            let mut schema = schema;
            schema["description"] = json!(description);
            (key.to_string(), schema)
        })
        .collect();
    json!({ "type": "object", "additionalProperties": false, "properties": properties })
}

fn property(key: &str) -> Value {
    let (description, mut schema, example) = key_doc(key);
    schema["description"] = json!(description);
    schema["examples"] = json!([example]);
    schema
}

/// `[dqx]`: one property per key of `DQX_KEYS`.
fn dqx_schema() -> Value {
    let globs = json!({ "type": "array", "items": { "type": "string", "minLength": 1 } });
    let properties: Map<String, Value> = DQX_KEYS
        .iter()
        .map(|key| {
            let (description, schema) = match *key {
                "version" => ("The DQX version whose function catalogue checks are held to. Default: 0.17.0.", json!({ "type": "string", "enum": dqlint_dqx::catalogue::VERSIONS })),
                "extras" => ("Optional DQX modules installed (databricks-labs-dqx[pii]), whose check functions then exist.", json!({ "type": "array", "items": { "type": "string", "enum": ["pii", "anomaly"] } })),
                "custom_functions" => ("Custom check functions: name -> parameters (`column` required, `limit=10` optional); DQ810-DQ812 accept them.", json!({ "type": "object", "additionalProperties": { "type": "array", "items": { "type": "string", "minLength": 1 } } })),
                "variables" => ("Values of `{{ name }}` placeholders (DQ824), scalars, substituted as DQX does.", json!({ "type": "object", "additionalProperties": { "type": ["string", "number", "boolean"] } })),
                "dbr" => ("The Databricks Runtime the checks run on (MAJOR.MINOR), for DQ826.", json!({ "type": "string", "pattern": "^[0-9]+\\.[0-9]+$" })),
                "checks" => ("Globs of files read as DQX checks files whatever their content, relative to the project root.", globs.clone()),
                "configs" => ("Globs of files read as DQX run configs whatever their content, relative to the project root.", globs.clone()),
                "schemas" => ("Glob of checks files -> the Spark DDL schema of the table they check (`id BIGINT, name STRING`), for DQ827.", json!({ "type": "object", "additionalProperties": { "type": "string", "minLength": 1 } })),
                other => panic!("no documentation for the [dqx] key `{other}`: add it here"),
            };
            let mut schema = schema;
            schema["description"] = json!(description);
            (key.to_string(), schema)
        })
        .collect();
    json!({ "type": "object", "additionalProperties": false, "properties": properties })
}

fn expected_schema() -> Value {
    let properties: Map<String, Value> = TOP_LEVEL_KEYS
        .iter()
        .map(|k| (k.to_string(), property(k)))
        .collect();
    let override_properties: Map<String, Value> = OVERRIDE_KEYS
        .iter()
        .map(|k| (k.to_string(), property(k)))
        .collect();
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://github.com/dqlint/dqlint/blob/main/docs/dqlint.schema.json",
        "title": "dqlint.toml",
        "description": "Configuration of dqlint, the linter of Lakehouse Plumber data-quality configs. Generated by `DQLINT_UPDATE_SCHEMA=1 cargo test -p dqlint-linter --test config_schema`.",
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
        "definitions": {
            "ruleSelector": {
                "description": "A rule code (DQ207), a code prefix (DQ2) or a rule name (quarantine-coerces-action).",
                "type": "string",
                "enum": selectors(),
            },
            "severity": { "type": "string", "enum": SEVERITY_NAMES },
            "severityTable": {
                "type": "object",
                "propertyNames": { "$ref": "#/definitions/ruleSelector" },
                "additionalProperties": { "$ref": "#/definitions/severity" },
            },
            "override": {
                "type": "object",
                "additionalProperties": false,
                "required": ["files"],
                "properties": override_properties,
            },
            "dqx": dqx_schema(),
            "dlt": dlt_schema(),
            "policy": policy_schema(),
        },
    })
}

#[test]
fn the_schema_file_is_up_to_date() {
    let expected = serde_json::to_string_pretty(&expected_schema()).unwrap() + "\n";
    if std::env::var_os("DQLINT_UPDATE_SCHEMA").is_some() {
        std::fs::write(schema_path(), &expected).unwrap();
    }
    let actual = std::fs::read_to_string(schema_path()).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/dqlint.schema.json is stale: run `DQLINT_UPDATE_SCHEMA=1 cargo test -p dqlint-linter --test config_schema`"
    );
}

// ---------------------------------------------------------------------------
// A validator for the part of JSON Schema (draft-07) the file uses.
// ---------------------------------------------------------------------------

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r
                .strip_prefix("#/definitions/")
                .expect("local references only");
            resolve(root, &root["definitions"][name])
        }
        None => schema,
    }
}

fn validate(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let schema = resolve(root, schema);
    if let Some(t) = schema["type"].as_str() {
        let ok = match t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "number" => value.is_number(),
            other => panic!("type `{other}` is not supported by this validator"),
        };
        if !ok {
            errors.push(format!("{at}: not a {t}"));
            return;
        }
    }
    if let Some(options) = schema["enum"].as_array() {
        if !options.contains(value) {
            errors.push(format!("{at}: {value} is not one of the allowed values"));
        }
    }
    if let (Some(min), Some(s)) = (schema["minLength"].as_u64(), value.as_str()) {
        if (s.chars().count() as u64) < min {
            errors.push(format!("{at}: too short"));
        }
    }
    if let Some(n) = value.as_f64() {
        if schema["minimum"].as_f64().is_some_and(|min| n < min)
            || schema["maximum"].as_f64().is_some_and(|max| n > max)
        {
            errors.push(format!("{at}: out of range"));
        }
    }
    if let Some(object) = value.as_object() {
        if (object.len() as u64) < schema["minProperties"].as_u64().unwrap_or(0) {
            errors.push(format!("{at}: too few properties"));
        }
    }
    if let Some(items) = value.as_array() {
        if (items.len() as u64) < schema["minItems"].as_u64().unwrap_or(0) {
            errors.push(format!("{at}: too few items"));
        }
        for (i, item) in items.iter().enumerate() {
            validate(root, &schema["items"], item, &format!("{at}[{i}]"), errors);
        }
    }
    if let Some(object) = value.as_object() {
        for required in schema["required"].as_array().into_iter().flatten() {
            if !object.contains_key(required.as_str().unwrap()) {
                errors.push(format!("{at}: missing {required}"));
            }
        }
        for (key, item) in object {
            let path = format!("{at}.{key}");
            if !schema["propertyNames"].is_null() {
                validate(root, &schema["propertyNames"], &json!(key), &path, errors);
            }
            match schema["properties"].get(key) {
                Some(property) => validate(root, property, item, &path, errors),
                None => match &schema["additionalProperties"] {
                    Value::Bool(false) => errors.push(format!("{path}: not allowed")),
                    Value::Object(_) => {
                        validate(root, &schema["additionalProperties"], item, &path, errors)
                    }
                    _ => {}
                },
            }
        }
    }
}

fn schema_errors(toml_text: &str) -> Vec<String> {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    let table: toml::Table = toml::from_str(toml_text).expect("valid TOML");
    let value = serde_json::to_value(table).unwrap();
    let mut errors = Vec::new();
    validate(&schema, &schema, &value, "$", &mut errors);
    errors
}

fn parses(toml_text: &str) -> Result<Config, String> {
    Config::parse(toml_text, Path::new("dqlint.toml")).map_err(|e| e.to_string())
}

/// The keys the parser accepts, as its "unknown key" message lists them.
fn accepted_keys(toml_text: &str) -> BTreeSet<String> {
    let message = parses(toml_text).expect_err("an unknown key is rejected");
    let list = message
        .split("(expected one of ")
        .nth(1)
        .expect("the message lists the keys");
    let list = list.split(')').next().unwrap();
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

#[test]
fn schema_keys_are_the_keys_the_parser_accepts() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    let keys = |v: &Value| {
        v.as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<BTreeSet<String>>()
    };
    assert_eq!(
        keys(&schema["properties"]),
        accepted_keys("not_a_key = 1\n")
    );
    assert_eq!(
        keys(&schema["definitions"]["override"]["properties"]),
        accepted_keys("[[overrides]]\nfiles = [\"a\"]\nnot_a_key = 1\n")
    );
    assert_eq!(
        keys(&schema["definitions"]["dqx"]["properties"]),
        accepted_keys("[dqx]\nnot_a_key = 1\n")
    );
    assert_eq!(
        keys(&schema["definitions"]["dlt"]["properties"]),
        accepted_keys("[dlt]\nnot_a_key = 1\n")
    );
    let policy = &schema["definitions"]["policy"]["properties"];
    assert_eq!(keys(policy), accepted_keys("[policy]\nnot_a_key = 1\n"));
    assert_eq!(
        keys(&policy["mandatory"]["items"]["properties"]),
        accepted_keys("[[policy.mandatory]]\nnot_a_key = 1\n")
    );
    assert_eq!(
        keys(&policy["circuit_breaker"]["properties"]),
        accepted_keys("[policy.circuit_breaker]\nnot_a_key = 1\n")
    );
}

#[test]
fn every_schema_example_is_accepted_by_the_parser() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    for (key, property) in schema["properties"].as_object().unwrap() {
        let text = format!("{key} = {}\n", inline_toml(&property["examples"][0]));
        parses(&text).unwrap_or_else(|e| panic!("the example of `{key}` is rejected: {e}\n{text}"));
        assert!(
            schema_errors(&text).is_empty(),
            "{key}: {:?}",
            schema_errors(&text)
        );
    }
    for selector in schema["definitions"]["ruleSelector"]["enum"]
        .as_array()
        .unwrap()
    {
        let text = format!("select = [{selector}]\n");
        parses(&text).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A JSON example as a TOML inline value (strings, arrays, tables).
fn inline_toml(value: &Value) -> String {
    match value {
        Value::String(_) | Value::Number(_) => value.to_string(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(inline_toml).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{ {} }}",
            map.iter()
                .map(|(k, v)| format!("{} = {}", json!(k), inline_toml(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => panic!("no TOML form for {other} in this test"),
    }
}

/// The `dqlint.toml` example of the README's "Configuration" section.
fn readme_example() -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("## Configuration")
        .nth(1)
        .expect("a Configuration section");
    let block = section.split("```toml\n").nth(1).expect("a toml block");
    block.split("```").next().unwrap().to_string()
}

#[test]
fn schema_and_parser_agree_on_sample_files() {
    let valid = [
        readme_example(),
        String::new(),
        "select = [\"DQ4\", \"quarantine-coerces-action\"]\nignore = [\"DQ402\"]\n".into(),
        "[severity]\nDQ2 = \"info\"\n\n[[overrides]]\nfiles = [\"*.sql\"]\nselect = [\"DQ409\"]\n[overrides.severity]\nDQ409 = \"error\"\n".into(),
        "[dqx]\nversion = \"0.16.0\"\nchecks = [\"q/*.yml\"]\n[dqx.schemas]\n\"q/*.yml\" = \"id BIGINT\"\n".into(),
        "[[policy.mandatory]]\ndatasets = [\"*.silver.*\"]\nkinds = [\"not_null\", \"range\"]\ncolumns = { not_null = [\"id\"] }\nmin_action = \"fail\"\n\n[[policy.mandatory]]\ntable_properties = { quality = \"gold\" }\nkinds = [\"unique\"]\nunique = \"external\"\n\n[policy.circuit_breaker]\ndatasets = [\"*.silver.*\"]\nmax_quarantine_ratio = 0.05\n\n[policy]\nregistry = [\"rules/*.yaml\"]\n".into(),
    ];
    for text in &valid {
        assert!(
            schema_errors(text).is_empty(),
            "schema rejects:\n{text}\n{:?}",
            schema_errors(text)
        );
        parses(text).unwrap_or_else(|e| panic!("parser rejects:\n{text}\n{e}"));
    }
    let invalid = [
        "selct = [\"DQ4\"]\n",
        "select = \"DQ4\"\n",
        "ignore = [\"DQ999\"]\n",
        "[severity]\nDQ402 = \"off\"\n",
        "[severity]\nDQ999 = \"info\"\n",
        "[[overrides]]\nignore = [\"DQ1\"]\n",
        "[[overrides]]\nfiles = []\n",
        "[[overrides]]\nfiles = [\"a\"]\nenvs = [\"dev\"]\n",
        "envs = [\"\"]\n",
        "[dqx]\nverison = \"0.17.0\"\n",
        "[dqx]\nversion = \"0.15.0\"\n",
        "[dqx]\nextras = [\"pi\"]\n",
        "[policy]\nmandatroy = []\n",
        "[[policy.mandatory]]\ndatasets = [\"a\"]\nkinds = [\"other\"]\n",
        "[[policy.mandatory]]\ndatasets = []\nkinds = [\"range\"]\n",
        "[[policy.mandatory]]\ndatasets = [\"a\"]\n",
        "[[policy.mandatory]]\ndatasets = [\"a\"]\nkinds = [\"range\"]\nmin_action = \"quarantine\"\n",
        "[policy.circuit_breaker]\ndatasets = [\"a\"]\nmax_quarantine_ratio = 5\n",
        "[policy.circuit_breaker]\ndatasets = [\"a\"]\n",
        "[policy]\nregistry = []\n",
    ];
    for text in invalid {
        assert!(!schema_errors(text).is_empty(), "schema accepts:\n{text}");
        assert!(parses(text).is_err(), "parser accepts:\n{text}");
    }
}
