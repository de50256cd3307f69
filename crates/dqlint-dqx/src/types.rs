//! DQX's strict argument type check (`CheckSpec._matches_type` in
//! `checks_validator.py`): a pydantic `TypeAdapter` in strict mode per
//! parameter annotation, `isinstance` for classes pydantic does not know
//! (`Column`, `StructType`), and one carve-out: a `bool` that fails is
//! re-checked as `int(value)`, so a boolean passes wherever an `int` (or a
//! `float`, which strict pydantic lets an `int` through) would.
//!
//! Bare `list[T]` annotations take another path (`_validate_func_list_args`):
//! the value must be a list, and each item is checked on its own (with the
//! carve-out). `list[T] | None` is a union and goes through pydantic whole.

use crate::value::{Kind, Typed};

/// A parameter annotation as the catalogue writes it
/// (`int | float | Decimal | str | Column`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamType {
    Int,
    Float,
    Bool,
    Str,
    Bytes,
    None,
    Decimal,
    Date,
    DateTime,
    /// `pyspark.sql.Column`: only a Python object satisfies it.
    Column,
    /// `StructType`, `NLPEngineConfig`...: a class no YAML value is.
    Class(String),
    /// Bare `list`: any list.
    AnyList,
    List(Box<ParamType>),
    Dict(Box<ParamType>, Box<ParamType>),
    /// `Any`, or no annotation: DQX assumes it valid.
    Any,
    Union(Vec<ParamType>),
}

impl ParamType {
    /// Parses a catalogue annotation. Never fails: what it does not know is
    /// a class (which no file value satisfies).
    pub fn parse(text: &str) -> ParamType {
        let parts = split_top(text.trim(), '|');
        if parts.len() > 1 {
            return ParamType::Union(parts.iter().map(|p| ParamType::parse(p)).collect());
        }
        let t = text.trim();
        if let Some(inner) = t.strip_prefix("list[").and_then(|r| r.strip_suffix(']')) {
            return ParamType::List(Box::new(ParamType::parse(inner)));
        }
        if let Some(inner) = t.strip_prefix("dict[").and_then(|r| r.strip_suffix(']')) {
            let kv = split_top(inner, ',');
            if kv.len() == 2 {
                return ParamType::Dict(
                    Box::new(ParamType::parse(&kv[0])),
                    Box::new(ParamType::parse(&kv[1])),
                );
            }
        }
        match t {
            "int" => ParamType::Int,
            "float" => ParamType::Float,
            "bool" => ParamType::Bool,
            "str" => ParamType::Str,
            "bytes" => ParamType::Bytes,
            "None" | "NoneType" => ParamType::None,
            "Decimal" | "decimal.Decimal" => ParamType::Decimal,
            "datetime.date" | "date" => ParamType::Date,
            "datetime.datetime" | "datetime" => ParamType::DateTime,
            "Column" | "pyspark.sql.column.Column" | "pyspark.sql.Column" => ParamType::Column,
            "list" => ParamType::AnyList,
            "dict" => ParamType::Dict(Box::new(ParamType::Any), Box::new(ParamType::Any)),
            "Any" | "typing.Any" | "" | "inspect._empty" => ParamType::Any,
            other => ParamType::Class(other.to_string()),
        }
    }

    pub fn members(&self) -> &[ParamType] {
        match self {
            ParamType::Union(m) => m,
            other => std::slice::from_ref(other),
        }
    }

    /// Strict pydantic validation of one value (no carve-out).
    pub fn strict_accepts(&self, value: &Typed) -> bool {
        match (self, &value.kind) {
            // Not known statically: never reported.
            (_, Kind::Object(o)) if o.class.is_none() => true,
            (ParamType::Column, Kind::Object(o)) => o.class.as_deref() == Some("Column"),
            (ParamType::Class(name), Kind::Object(o)) => {
                o.class.as_deref().is_some_and(|c| name.ends_with(c))
            }
            (ParamType::Union(members), _) => members.iter().any(|m| m.strict_accepts(value)),
            (ParamType::Any, _) => true,
            (ParamType::Int, Kind::Int(_)) => true,
            (ParamType::Float, Kind::Int(_) | Kind::Float(_)) => true,
            (ParamType::Bool, Kind::Bool(_)) => true,
            (ParamType::Str, Kind::Str(_)) => true,
            (ParamType::None, Kind::None) => true,
            (ParamType::Decimal, Kind::Decimal(_)) => true,
            (ParamType::Date, Kind::Date(_)) => true,
            (ParamType::DateTime, Kind::DateTime(..)) => true,
            (ParamType::AnyList, Kind::List(_)) => true,
            (ParamType::List(item), Kind::List(items)) => {
                items.iter().all(|i| item.strict_accepts(i))
            }
            (ParamType::Dict(k, v), Kind::Map(entries)) => entries
                .iter()
                .all(|e| k.strict_accepts(&e.key) && v.strict_accepts(&e.value)),
            _ => false,
        }
    }

    /// `_matches_type`: strict, then a failing `bool` again as an `int`.
    pub fn matches(&self, value: &Typed) -> bool {
        self.strict_accepts(value) || self.accepts_bool_as_int(value)
    }

    /// Whether `value` is a boolean that passes only through DQX's
    /// bool-for-int carve-out (it passes validation and crashes).
    pub fn accepts_bool_as_int(&self, value: &Typed) -> bool {
        let Kind::Bool(b) = value.kind else {
            return false;
        };
        if self.strict_accepts(value) {
            return false;
        }
        let as_int = Typed::new(value.span.clone(), Kind::Int(b as i128));
        self.strict_accepts(&as_int)
    }

    /// Whether some member accepts a string (a column name or expression
    /// can be written).
    pub fn accepts_str(&self) -> bool {
        self.members().iter().any(|m| matches!(m, ParamType::Str))
    }

    /// Whether no value written in a file can satisfy it (`Column | None`
    /// takes `null` only).
    pub fn only_python_objects(&self) -> bool {
        self.members()
            .iter()
            .all(|m| matches!(m, ParamType::Column | ParamType::Class(_) | ParamType::None))
    }

    /// Whether the annotation, with `None` left out, is `int` alone
    /// (`days: int`).
    pub fn is_int(&self) -> bool {
        let m: Vec<_> = self
            .members()
            .iter()
            .filter(|m| !matches!(m, ParamType::None))
            .collect();
        matches!(m.as_slice(), [ParamType::Int])
    }

    /// A bare `list[T]` (not in a union): DQX checks it item by item.
    pub fn bare_list_item(&self) -> Option<&ParamType> {
        match self {
            ParamType::List(item) => Some(item),
            _ => None,
        }
    }
}

/// Why a value fails its parameter's type.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeIssue {
    /// Not of the annotation at all.
    Mismatch,
    /// A bare `list[T]` parameter given something that is not a list.
    NotAList,
    /// Item `index` of a list fails the item type.
    Item { index: usize },
}

/// DQX's verdict on one argument value: the issues it reports (each with
/// the span of the offending value).
pub fn type_issues(ty: &ParamType, value: &Typed) -> Vec<(TypeIssue, std::ops::Range<usize>)> {
    if let Some(item) = ty.bare_list_item() {
        let Some(items) = value.as_list() else {
            return vec![(TypeIssue::NotAList, value.span.clone())];
        };
        return items
            .iter()
            .enumerate()
            .filter(|(_, i)| !item.matches(i))
            .map(|(index, i)| (TypeIssue::Item { index }, i.span.clone()))
            .collect();
    }
    if ty.matches(value) {
        Vec::new()
    } else {
        vec![(TypeIssue::Mismatch, value.span.clone())]
    }
}

fn split_top(text: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if c == sep && depth == 0 {
            out.push(current.trim().to_string());
            current.clear();
        } else {
            current.push(c);
        }
    }
    out.push(current.trim().to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(kind: Kind) -> Typed {
        Typed::new(0..0, kind)
    }

    #[test]
    fn strict_rules() {
        let int = ParamType::parse("int");
        assert!(int.matches(&v(Kind::Int(3))));
        assert!(!int.matches(&v(Kind::Str("3".into()))));
        assert!(!int.matches(&v(Kind::Float(1.0))));
        assert!(int.matches(&v(Kind::Bool(true))));
        assert!(int.accepts_bool_as_int(&v(Kind::Bool(true))));
        let float = ParamType::parse("float | None");
        assert!(float.matches(&v(Kind::Int(3))));
        let s = ParamType::parse("str | Column");
        assert!(!s.matches(&v(Kind::Bool(false))));
        let col = ParamType::parse("Column | None");
        assert!(!col.matches(&v(Kind::Str("x".into()))));
        assert!(col.only_python_objects());
        let strs = ParamType::parse("list[str]");
        assert_eq!(
            type_issues(&strs, &v(Kind::Str("a".into()))),
            vec![(TypeIssue::NotAList, 0..0)]
        );
        let items = v(Kind::List(vec![v(Kind::Str("a".into())), v(Kind::Int(1))]));
        assert_eq!(
            type_issues(&strs, &items),
            vec![(TypeIssue::Item { index: 1 }, 0..0)]
        );
        let limits = ParamType::parse(
            "int | float | Decimal | datetime.date | datetime.datetime | str | Column | None",
        );
        assert!(limits.matches(&v(Kind::Date(crate::yaml11::Date {
            year: 2024,
            month: 1,
            day: 1
        }))));
        let dict = ParamType::parse("dict[str, Any] | None");
        assert!(dict.matches(&v(Kind::Map(vec![]))));
    }
}
