//! What each token of a rule expression is, for an editor's semantic
//! highlighting: keywords, function names, column names, literals,
//! operators and comments, at byte ranges of the text given. Read with the
//! same tokenizer as the checks (sqlparser's Databricks dialect); a text it
//! cannot tokenize has no tokens.

use std::ops::Range;

use sqlparser::dialect::DatabricksDialect;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};

use crate::text;

/// The kind of a highlighted token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Keyword,
    Function,
    Column,
    String,
    Number,
    Operator,
    Comment,
}

/// The words that are keywords in an expression or a query; any other
/// word is a column or, before `(`, a function (sqlparser's keyword list
/// also holds `status`, `name`, `date_format`...: names in real rules).
const KEYWORDS: &[&str] = &[
    "ALL",
    "AND",
    "ANTI",
    "ANY",
    "AS",
    "ASC",
    "BETWEEN",
    "BY",
    "CASE",
    "CAST",
    "CROSS",
    "CURRENT",
    "DATE",
    "DAY",
    "DAYS",
    "DESC",
    "DISTINCT",
    "DIV",
    "ELSE",
    "END",
    "ESCAPE",
    "EXCEPT",
    "EXISTS",
    "FALSE",
    "FILTER",
    "FIRST",
    "FOLLOWING",
    "FROM",
    "FULL",
    "GROUP",
    "HAVING",
    "HOUR",
    "HOURS",
    "ILIKE",
    "IN",
    "INNER",
    "INTERSECT",
    "INTERVAL",
    "IS",
    "JOIN",
    "LAST",
    "LATERAL",
    "LEFT",
    "LIKE",
    "LIMIT",
    "MINUTE",
    "MINUTES",
    "MONTH",
    "MONTHS",
    "NATURAL",
    "NOT",
    "NULL",
    "NULLS",
    "OFFSET",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "OVER",
    "PARTITION",
    "PRECEDING",
    "QUALIFY",
    "RANGE",
    "REGEXP",
    "RIGHT",
    "RLIKE",
    "ROW",
    "ROWS",
    "SECOND",
    "SECONDS",
    "SELECT",
    "SEMI",
    "SOME",
    "THEN",
    "TIMESTAMP",
    "TRUE",
    "UNBOUNDED",
    "UNION",
    "USING",
    "WEEK",
    "WEEKS",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
    "WITHIN",
    "YEAR",
    "YEARS",
];

fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

/// The tokens of `text` worth highlighting, in order.
pub fn highlight(text: &str) -> Vec<(Range<usize>, TokenKind)> {
    let dialect = DatabricksDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, text).tokenize_with_location() else {
        return Vec::new();
    };
    let ranges = text::token_ranges(text, &tokens);
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !text::is_trivia(&tokens[i].token))
        .collect();
    let next_is_call = |i: usize| {
        significant
            .iter()
            .find(|&&j| j > i)
            .is_some_and(|&j| tokens[j].token == Token::LParen)
    };
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let kind = match &t.token {
            Token::Word(w) if w.quote_style.is_some() => TokenKind::Column,
            Token::Word(w) if is_keyword(&w.value) => TokenKind::Keyword,
            Token::Word(_) if next_is_call(i) => TokenKind::Function,
            Token::Word(_) => TokenKind::Column,
            Token::Number(..) => TokenKind::Number,
            Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::NationalStringLiteral(_)
            | Token::HexStringLiteral(_)
            | Token::EscapedStringLiteral(_) => TokenKind::String,
            Token::Whitespace(Whitespace::SingleLineComment { .. })
            | Token::Whitespace(Whitespace::MultiLineComment(_)) => TokenKind::Comment,
            Token::Eq
            | Token::DoubleEq
            | Token::Neq
            | Token::Lt
            | Token::Gt
            | Token::LtEq
            | Token::GtEq
            | Token::Spaceship
            | Token::Plus
            | Token::Minus
            | Token::Mul
            | Token::Div
            | Token::Mod
            | Token::StringConcat
            | Token::Arrow => TokenKind::Operator,
            _ => continue,
        };
        if let Some(range) = ranges.get(i).filter(|r| !r.is_empty()) {
            out.push((range.clone(), kind));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_a_rule() {
        let text = "price IS NOT NULL AND upper(`code`) = 'A' -- c\nOR status IN ('x')";
        let got: Vec<(&str, TokenKind)> = highlight(text)
            .into_iter()
            .map(|(r, k)| (&text[r], k))
            .collect();
        use TokenKind::*;
        assert_eq!(
            got,
            [
                ("price", Column),
                ("IS", Keyword),
                ("NOT", Keyword),
                ("NULL", Keyword),
                ("AND", Keyword),
                ("upper", Function),
                ("`code`", Column),
                ("=", Operator),
                ("'A'", String),
                ("-- c", Comment),
                ("OR", Keyword),
                ("status", Column),
                ("IN", Keyword),
                ("'x'", String),
            ]
        );
        assert_eq!(highlight("'unterminated"), []);
    }
}
