//! Spark's DDL schema strings as PySpark's `_parse_datatype_string` reads
//! them, which is what DQX calls on `has_valid_schema`'s `expected_schema`
//! and `has_valid_json_schema`'s `schema` when it builds the checks.
//!
//! PySpark tries, in order: a table schema (`id BIGINT NOT NULL COMMENT
//! 'x', name STRING`), a single data type (`STRING`, `STRUCT<a: INT>`),
//! then the text wrapped in `struct<...>` (`a: INT, b: STRING`); the first
//! that parses wins. DQX then needs a struct: a single non-struct type is
//! rejected as "not a StructType". The type grammar is Spark 4's
//! (`SqlBaseParser.dataType` and `visitPrimitiveDataType`): primitive
//! names case-insensitively, `DECIMAL(p, s)`, `CHAR(n)` / `VARCHAR(n)`
//! (length required), `STRING COLLATE name`, year-month and day-time
//! intervals, `ARRAY<t>`, `MAP<k, v>`, `STRUCT<name[:] t [NOT NULL]
//! [COMMENT 'c'], ...>`. Column definitions take no `DEFAULT`.
//!
//! Held against PySpark 4.3.0's own parser on a generated set of strings
//! (`tests/spark_schema.rs`).

/// What Spark makes of a schema string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaShape {
    /// A struct: the top-level column names (`columns` of a table schema
    /// or a `struct<...>`), as written, backticks removed.
    Struct(Vec<String>),
    /// One data type that is not a struct (`STRING`, `ARRAY<INT>`).
    NotStruct(String),
}

/// Why a schema string does not parse, with the byte offset in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    pub offset: usize,
    pub message: String,
}

/// Reads `text` as PySpark's `_parse_datatype_string` does.
pub fn parse_schema(text: &str) -> Result<SchemaShape, SchemaError> {
    let tokens = lex(text)?;
    // 1. a table schema (an empty string is an empty struct: the third
    //    attempt, `struct<>`, accepts it)
    let first = {
        let mut p = Parser::new(text, &tokens);
        p.columns(false).and_then(|c| p.end().map(|_| c))
    };
    let first_error = match first {
        Ok(columns) => return Ok(SchemaShape::Struct(columns)),
        Err(e) => e,
    };
    // 2. one data type
    {
        let mut p = Parser::new(text, &tokens);
        if let Ok(ty) = p.data_type().and_then(|t| p.end().map(|_| t)) {
            return Ok(match ty {
                Type::Struct(columns) => SchemaShape::Struct(columns),
                Type::Other(name) => SchemaShape::NotStruct(name),
            });
        }
    }
    // 3. the fields of a struct, `name: type` allowed
    {
        let mut p = Parser::new(text, &tokens);
        if let Ok(columns) = p.columns(true).and_then(|c| p.end().map(|_| c)) {
            return Ok(SchemaShape::Struct(columns));
        }
    }
    Err(first_error)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Str,
    Int(u64),
    Punct(char),
}

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, SchemaError> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if text[i..].starts_with("--") {
            // a comment to the end of the line
            while chars.next_if(|&(_, c)| c != '\n').is_some() {}
        } else if text[i..].starts_with("/*") {
            let close = text[i + 2..].find("*/").map(|e| i + 2 + e + 2);
            let Some(close) = close else {
                return Err(SchemaError {
                    offset: i,
                    message: "a comment is not closed".into(),
                });
            };
            while chars.next_if(|&(j, _)| j < close).is_some() {}
        } else if c == '`' {
            chars.next();
            let mut name = String::new();
            loop {
                match chars.next() {
                    Some((_, '`')) => {
                        if chars.peek().is_some_and(|&(_, c)| c == '`') {
                            chars.next();
                            name.push('`');
                        } else {
                            break;
                        }
                    }
                    Some((_, c)) => name.push(c),
                    None => {
                        return Err(SchemaError {
                            offset: i,
                            message: "a backtick is not closed".into(),
                        })
                    }
                }
            }
            out.push((Tok::Quoted(name), i));
        } else if c == '\'' || c == '"' {
            chars.next();
            loop {
                match chars.next() {
                    Some((_, '\\')) => {
                        chars.next();
                    }
                    Some((_, q)) if q == c => break,
                    Some(_) => {}
                    None => {
                        return Err(SchemaError {
                            offset: i,
                            message: "a string is not closed".into(),
                        })
                    }
                }
            }
            out.push((Tok::Str, i));
        } else if c.is_ascii_alphanumeric() || c == '_' {
            // Spark's unquoted identifiers are ASCII letters, digits and `_`
            let mut word = String::new();
            while let Some(&(_, c)) = chars.peek() {
                if c.is_ascii_alphanumeric() || c == '_' {
                    word.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            match word.parse::<u64>() {
                Ok(n) => out.push((Tok::Int(n), i)),
                Err(_) => out.push((Tok::Word(word), i)),
            }
        } else if "<>,:()".contains(c) {
            chars.next();
            out.push((Tok::Punct(c), i));
        } else {
            return Err(SchemaError {
                offset: i,
                message: format!("`{c}` cannot appear in a schema"),
            });
        }
    }
    Ok(out)
}

enum Type {
    Struct(Vec<String>),
    Other(String),
}

struct Parser<'t> {
    text: &'t str,
    tokens: &'t [(Tok, usize)],
    at: usize,
}

type Parsed<T> = Result<T, SchemaError>;

impl<'t> Parser<'t> {
    fn new(text: &'t str, tokens: &'t [(Tok, usize)]) -> Parser<'t> {
        Parser {
            text,
            tokens,
            at: 0,
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    fn offset(&self) -> usize {
        self.tokens
            .get(self.at)
            .map_or(self.text.len(), |&(_, o)| o)
    }

    fn error<T>(&self, message: impl Into<String>) -> Parsed<T> {
        Err(SchemaError {
            offset: self.offset(),
            message: message.into(),
        })
    }

    fn keyword(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(word)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Parsed<()> {
        if self.punct(c) {
            Ok(())
        } else {
            self.error(format!("`{c}` expected"))
        }
    }

    fn end(&self) -> Parsed<()> {
        if self.at == self.tokens.len() {
            Ok(())
        } else {
            self.error("unexpected text after the schema")
        }
    }

    fn int(&mut self) -> Parsed<u64> {
        match self.peek() {
            Some(&Tok::Int(n)) => {
                self.at += 1;
                Ok(n)
            }
            _ => self.error("a number expected"),
        }
    }

    fn identifier(&mut self) -> Parsed<String> {
        match self.peek() {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) => {
                let w = w.clone();
                self.at += 1;
                Ok(w)
            }
            _ => self.error("a column name expected"),
        }
    }

    /// `col type [NOT NULL] [COMMENT 'c'], ...`; in a struct (`colon`),
    /// `col: type` too. An empty list only inside a struct.
    fn columns(&mut self, colon: bool) -> Parsed<Vec<String>> {
        let mut names = Vec::new();
        if self.peek().is_none() || self.peek() == Some(&Tok::Punct('>')) {
            if colon {
                return Ok(names);
            }
            return self.error("a column expected");
        }
        loop {
            names.push(self.identifier()?);
            if colon {
                self.punct(':');
            }
            self.data_type()?;
            if self.keyword("NOT") && !self.keyword("NULL") {
                return self.error("`NULL` expected after `NOT`");
            }
            if self.keyword("COMMENT") {
                match self.peek() {
                    Some(Tok::Str) => self.at += 1,
                    _ => return self.error("a quoted comment expected after `COMMENT`"),
                }
            }
            if !self.punct(',') {
                return Ok(names);
            }
        }
    }

    fn data_type(&mut self) -> Parsed<Type> {
        let start = self.offset();
        let Some(Tok::Word(name)) = self.peek().cloned() else {
            return self.error("a data type expected");
        };
        self.at += 1;
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "array" => {
                self.expect('<')?;
                self.data_type()?;
                self.expect('>')?;
            }
            "map" => {
                self.expect('<')?;
                self.data_type()?;
                self.expect(',')?;
                self.data_type()?;
                self.expect('>')?;
            }
            "struct" => {
                // `STRUCT<>` is one token in Spark's lexer; here `<` `>`
                self.expect('<')?;
                let columns = self.columns(true)?;
                self.expect('>')?;
                return Ok(Type::Struct(columns));
            }
            "interval" => self.interval_qualifier()?,
            "decimal" | "dec" | "numeric" => {
                if self.punct('(') {
                    self.int()?;
                    if self.punct(',') {
                        self.int()?;
                    }
                    self.expect(')')?;
                }
            }
            "char" | "character" | "varchar" => {
                if !self.punct('(') {
                    return Err(SchemaError {
                        offset: start,
                        message: format!("`{name}` needs a length, as in `{name}(10)`"),
                    });
                }
                self.int()?;
                self.expect(')')?;
            }
            "string" => {
                if self.keyword("COLLATE") {
                    self.identifier()?;
                }
            }
            "time" | "timestamp" | "timestamp_ntz" | "timestamp_ltz" => {
                if lower == "time" && self.punct('(') {
                    self.int()?;
                    self.expect(')')?;
                }
            }
            "boolean" | "tinyint" | "byte" | "smallint" | "short" | "int" | "integer"
            | "bigint" | "long" | "float" | "real" | "double" | "date" | "binary" | "void"
            | "variant" => {}
            _ => {
                return Err(SchemaError {
                    offset: start,
                    message: format!("`{name}` is not a Spark data type"),
                })
            }
        }
        Ok(Type::Other(
            self.text[start..self.end_of_previous()].to_string(),
        ))
    }

    fn end_of_previous(&self) -> usize {
        // the end of the last consumed token: the start of the next one,
        // trimmed, is close enough for a type's text
        let next = self.offset();
        self.text[..next].trim_end().len()
    }

    /// `INTERVAL`, `INTERVAL YEAR [TO MONTH]`, `INTERVAL DAY [TO HOUR |
    /// MINUTE | SECOND]`, and so on down the units.
    fn interval_qualifier(&mut self) -> Parsed<()> {
        const YEAR_MONTH: &[&str] = &["year", "month"];
        const DAY_TIME: &[&str] = &["day", "hour", "minute", "second"];
        let unit = |p: &Parser| match p.peek() {
            Some(Tok::Word(w)) => {
                let w = w.to_ascii_lowercase();
                YEAR_MONTH
                    .iter()
                    .chain(DAY_TIME)
                    .any(|u| *u == w)
                    .then_some(w)
            }
            _ => None,
        };
        let Some(from) = unit(self) else {
            return Ok(());
        };
        self.at += 1;
        if !self.keyword("TO") {
            return Ok(());
        }
        let Some(to) = unit(self) else {
            return self.error("an interval unit expected after `TO`");
        };
        let family = |u: &str| {
            YEAR_MONTH
                .iter()
                .position(|x| *x == u)
                .map(|i| (0, i))
                .or_else(|| DAY_TIME.iter().position(|x| *x == u).map(|i| (1, i)))
        };
        match (family(&from), family(&to)) {
            (Some((f, a)), Some((g, b))) if f == g && a < b => {
                self.at += 1;
                Ok(())
            }
            _ => self.error(format!("`INTERVAL {from} TO {to}` is not an interval type")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(s: &str) -> String {
        match parse_schema(s) {
            Ok(SchemaShape::Struct(c)) => format!("struct {}", c.join(",")),
            Ok(SchemaShape::NotStruct(t)) => format!("type {t}"),
            Err(e) => format!("error at {}: {}", e.offset, e.message),
        }
    }

    #[test]
    fn the_three_forms_pyspark_tries() {
        assert_eq!(shape("id BIGINT, name STRING"), "struct id,name");
        assert_eq!(shape("STRING"), "type STRING");
        assert_eq!(shape("array<int>"), "type array<int>");
        assert_eq!(shape("struct<a:int, b: string>"), "struct a,b");
        assert_eq!(shape("a: int, b string"), "struct a,b");
        assert_eq!(shape(""), "struct ");
    }

    #[test]
    fn column_definitions() {
        assert_eq!(
            shape("a DECIMAL(10,2) NOT NULL COMMENT 'x, y', `b c` MAP<STRING, ARRAY<INT>>"),
            "struct a,b c"
        );
        assert_eq!(shape("a string collate UTF8_LCASE"), "struct a");
        assert_eq!(
            shape("a interval day to second, b interval year"),
            "struct a,b"
        );
        assert_eq!(shape("a struct<>"), "struct a");
    }

    #[test]
    fn what_spark_rejects() {
        assert_eq!(
            shape("a INTT"),
            "error at 2: `INTT` is not a Spark data type"
        );
        assert!(shape("a int,").starts_with("error"));
        assert!(shape("a varchar").starts_with("error at 2: `varchar` needs a length"));
        assert!(shape("a int default 1").starts_with("error"));
        assert!(shape("a interval month to year").starts_with("error"));
        assert!(shape("a array<int").starts_with("error"));
        assert!(shape("a 'int'").starts_with("error"));
        assert!(shape("`a int").starts_with("error at 0: a backtick"));
    }
}
