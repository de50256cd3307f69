//! Databricks type texts compared as types: aliases resolved, case,
//! spacing, backticks and struct-field colons ignored.

use sqlparser::ast::DataType;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::text;

/// Whether two Databricks type texts denote the same type: case, spacing,
/// the optional `:` in struct fields, backticks and aliases (`INTEGER` =
/// `INT`, `LONG` = `BIGINT`, `BOOL` = `BOOLEAN`, `DEC`/`NUMERIC` = `DECIMAL`,
/// `TIMESTAMP_LTZ` = `TIMESTAMP`, ...) do not matter.
pub fn type_matches(actual: &str, expected: &str) -> bool {
    canonical_type(actual) == canonical_type(expected)
}

/// Canonical rendering of a type text: upper case, aliases resolved,
/// `ARRAY<T>`, `MAP<K, V>`, `STRUCT<NAME: T, ...>`, `DECIMAL(P,S)`.
/// Text that does not look like a type is upper-cased with its whitespace
/// collapsed.
pub fn canonical_type(text: &str) -> String {
    let lexemes = lex_type(text);
    let mut pos = 0;
    match render_type(&lexemes, &mut pos, 0) {
        Some(s) if pos == lexemes.len() => s,
        _ => text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_uppercase(),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Lx {
    Word(String),
    Quoted(String),
    Str,
    Punct(char),
}

fn lex_type(text: &str) -> Vec<Lx> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let mut w = String::new();
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                w.push(chars[i]);
                i += 1;
            }
            out.push(Lx::Word(w));
        } else if c == '`' {
            let mut w = String::new();
            i += 1;
            while i < chars.len() {
                if chars[i] == '`' {
                    if i + 1 < chars.len() && chars[i + 1] == '`' {
                        w.push('`');
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                w.push(chars[i]);
                i += 1;
            }
            out.push(Lx::Quoted(w));
        } else if c == '\'' || c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push(Lx::Str);
        } else {
            out.push(Lx::Punct(c));
            i += 1;
        }
    }
    out
}

fn type_alias(word: &str) -> String {
    let up = word.to_uppercase();
    match up.as_str() {
        "INTEGER" => "INT",
        "LONG" => "BIGINT",
        "SHORT" => "SMALLINT",
        "BYTE" => "TINYINT",
        "BOOL" => "BOOLEAN",
        "DEC" | "NUMERIC" => "DECIMAL",
        "REAL" => "FLOAT",
        "TIMESTAMP_LTZ" => "TIMESTAMP",
        "TEXT" => "STRING",
        _ => return up,
    }
    .to_string()
}

/// Nesting limit of [`render_type`] (deeper types fall back to plain text).
const MAX_TYPE_DEPTH: usize = 64;

fn render_type(lx: &[Lx], pos: &mut usize, depth: usize) -> Option<String> {
    if depth > MAX_TYPE_DEPTH {
        return None;
    }
    let Lx::Word(w) = lx.get(*pos)? else {
        return None;
    };
    *pos += 1;
    let mut name = type_alias(w);
    // DOUBLE PRECISION, INTERVAL DAY TO SECOND, ...
    while let Some(Lx::Word(next)) = lx.get(*pos) {
        let up = next.to_uppercase();
        if matches!(
            up.as_str(),
            "NOT" | "NULL" | "COMMENT" | "COLLATE" | "DEFAULT"
        ) {
            break;
        }
        if name == "DOUBLE" && up == "PRECISION" {
            *pos += 1;
            continue;
        }
        name.push(' ');
        name.push_str(&up);
        *pos += 1;
    }
    match lx.get(*pos) {
        Some(Lx::Punct('(')) => {
            *pos += 1;
            let mut args = Vec::new();
            loop {
                match lx.get(*pos)? {
                    Lx::Word(a) => args.push(a.to_uppercase()),
                    Lx::Punct(',') => {}
                    Lx::Punct(')') => {
                        *pos += 1;
                        break;
                    }
                    _ => return None,
                }
                *pos += 1;
            }
            Some(format!("{name}({})", args.join(",")))
        }
        Some(Lx::Punct('<')) => {
            *pos += 1;
            let inner = match name.as_str() {
                "STRUCT" => {
                    let mut fields = Vec::new();
                    loop {
                        let field = match lx.get(*pos)? {
                            Lx::Word(f) | Lx::Quoted(f) => f.to_uppercase(),
                            Lx::Punct('>') if fields.is_empty() => break,
                            _ => return None,
                        };
                        *pos += 1;
                        if lx.get(*pos) == Some(&Lx::Punct(':')) {
                            *pos += 1;
                        }
                        let ty = render_type(lx, pos, depth + 1)?;
                        // field modifiers: NOT NULL, COMMENT '...', COLLATE x
                        loop {
                            match lx.get(*pos) {
                                Some(Lx::Word(m)) if m.eq_ignore_ascii_case("not") => *pos += 1,
                                Some(Lx::Word(m)) if m.eq_ignore_ascii_case("null") => *pos += 1,
                                Some(Lx::Word(m)) if m.eq_ignore_ascii_case("comment") => {
                                    *pos += 1;
                                    if lx.get(*pos) == Some(&Lx::Str) {
                                        *pos += 1;
                                    }
                                }
                                _ => break,
                            }
                        }
                        fields.push(format!("{field}: {ty}"));
                        match lx.get(*pos)? {
                            Lx::Punct(',') => *pos += 1,
                            Lx::Punct('>') => break,
                            _ => return None,
                        }
                    }
                    fields.join(", ")
                }
                _ => {
                    let mut items = Vec::new();
                    loop {
                        items.push(render_type(lx, pos, depth + 1)?);
                        match lx.get(*pos)? {
                            Lx::Punct(',') => *pos += 1,
                            Lx::Punct('>') => break,
                            _ => return None,
                        }
                    }
                    items.join(", ")
                }
            };
            *pos += 1; // '>'
            Some(format!("{name}<{inner}>"))
        }
        _ => Some(name),
    }
}

pub(super) fn render_data_type(dt: &DataType) -> String {
    canonical_type(&dt.to_string())
}

/// sqlparser does not accept `NOT NULL` or `COMMENT '...'` on the fields of
/// a `STRUCT<...>` type, `INTERVAL DAY TO SECOND` as a column type, nor
/// column masks `MASK fn [USING COLUMNS (...)]` (valid in Databricks). Those tokens are replaced by whitespace (so token indices
/// and positions are unchanged).
pub(super) fn strip_nested_field_modifiers(tokens: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
    use sqlparser::tokenizer::Whitespace;
    let mut out = tokens.to_vec();
    let sig: Vec<usize> = (0..out.len())
        .filter(|&i| !text::is_trivia(&out[i].token))
        .collect();
    let word_is = |t: &Token, kw: &str| matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw));
    let mut depth = 0usize;
    let mut k = 0;
    while k < sig.len() {
        let t = out[sig[k]].token.clone();
        let next = sig.get(k + 1).map(|&i| out[i].token.clone());
        let prev_is_separator =
            k == 0 || matches!(out[sig[k - 1]].token, Token::Comma | Token::LParen);
        if depth == 0
            && word_is(&t, "MASK")
            && !prev_is_separator
            && matches!(next, Some(Token::Word(_)))
        {
            // column mask: `MASK fn [USING COLUMNS (...)]`
            let blank = |out: &mut Vec<TokenWithSpan>, j: usize| {
                out[sig[j]].token = Token::Whitespace(Whitespace::Space);
            };
            blank(&mut out, k);
            let mut j = k + 1;
            blank(&mut out, j);
            while j + 2 < sig.len()
                && out[sig[j + 1]].token == Token::Period
                && matches!(out[sig[j + 2]].token, Token::Word(_))
            {
                blank(&mut out, j + 1);
                blank(&mut out, j + 2);
                j += 2;
            }
            j += 1;
            if j + 2 < sig.len()
                && word_is(&out[sig[j]].token, "USING")
                && word_is(&out[sig[j + 1]].token, "COLUMNS")
                && out[sig[j + 2]].token == Token::LParen
            {
                let mut d = 0usize;
                while j < sig.len() {
                    match out[sig[j]].token {
                        Token::LParen => d += 1,
                        Token::RParen => d = d.saturating_sub(1),
                        _ => {}
                    }
                    let closing = out[sig[j]].token == Token::RParen && d == 0;
                    blank(&mut out, j);
                    j += 1;
                    if closing {
                        break;
                    }
                }
            }
            k = j;
            continue;
        }
        if word_is(&t, "INTERVAL") {
            // `INTERVAL DAY TO SECOND` as a column type: keep `INTERVAL` only
            const UNITS: &[&str] = &["YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "TO"];
            let mut j = k + 1;
            while j < sig.len() && UNITS.iter().any(|u| word_is(&out[sig[j]].token, u)) {
                out[sig[j]].token = Token::Whitespace(Whitespace::Space);
                j += 1;
            }
            k = j;
            continue;
        }
        if depth == 0 {
            let opens_type = ["STRUCT", "ARRAY", "MAP"].iter().any(|kw| word_is(&t, kw))
                && next == Some(Token::Lt);
            if opens_type {
                depth = 1;
                k += 2;
                continue;
            }
            k += 1;
            continue;
        }
        match t {
            Token::Lt => depth += 1,
            Token::Gt => depth -= 1,
            Token::ShiftRight => depth = depth.saturating_sub(2),
            _ if word_is(&t, "NOT") && next.as_ref().is_some_and(|n| word_is(n, "NULL")) => {
                out[sig[k]].token = Token::Whitespace(Whitespace::Space);
                out[sig[k + 1]].token = Token::Whitespace(Whitespace::Space);
                k += 2;
                continue;
            }
            _ if word_is(&t, "COMMENT")
                && matches!(
                    next,
                    Some(Token::SingleQuotedString(_) | Token::DoubleQuotedString(_))
                ) =>
            {
                out[sig[k]].token = Token::Whitespace(Whitespace::Space);
                out[sig[k + 1]].token = Token::Whitespace(Whitespace::Space);
                k += 2;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out
}
