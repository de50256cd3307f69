//! `textDocument/semanticTokens/full`: the SQL inside rule expressions
//! (LHP expectations files) and DQX checks (filters, expressions,
//! messages, queries) highlighted as SQL: keywords, functions, columns,
//! strings, numbers, operators, comments. YAML around them is the YAML
//! grammar's to colour.

use dqlint_linter::Context;
use dqlint_project::SourceFile;
use dqlint_sql::highlight::TokenKind;
use tower_lsp_server::ls_types::{SemanticToken, SemanticTokenType, SemanticTokensLegend};

use crate::convert;
use crate::workspace::Snapshot;

/// The token types, in legend order.
const TYPES: &[(TokenKind, SemanticTokenType)] = &[
    (TokenKind::Keyword, SemanticTokenType::KEYWORD),
    (TokenKind::Function, SemanticTokenType::FUNCTION),
    (TokenKind::Column, SemanticTokenType::VARIABLE),
    (TokenKind::String, SemanticTokenType::STRING),
    (TokenKind::Number, SemanticTokenType::NUMBER),
    (TokenKind::Operator, SemanticTokenType::OPERATOR),
    (TokenKind::Comment, SemanticTokenType::COMMENT),
];

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.iter().map(|(_, t)| t.clone()).collect(),
        token_modifiers: Vec::new(),
    }
}

/// The tokens of `file`, encoded relative to each other as the protocol
/// wants them.
pub fn semantic_tokens(snapshot: &Snapshot, file: &SourceFile) -> Vec<SemanticToken> {
    let mut ctx = Context::with_dqx(&snapshot.project, &snapshot.config.dqx);
    ctx.udfs = snapshot.config.udfs.clone();
    let tokens = dqlint_linter::expressions::sql_tokens(&ctx, file.id);
    let mut out = Vec::with_capacity(tokens.len());
    let (mut line, mut character) = (0u32, 0u32);
    for (span, kind) in tokens {
        let start = convert::position(file, span.start);
        let end = convert::position(file, span.end);
        if end.line != start.line || end.character <= start.character {
            continue;
        }
        let Some(index) = TYPES.iter().position(|(k, _)| *k == kind) else {
            continue;
        };
        let delta_start = if start.line == line {
            start.character - character
        } else {
            start.character
        };
        out.push(SemanticToken {
            delta_line: start.line - line,
            delta_start,
            length: end.character - start.character,
            token_type: index as u32,
            token_modifiers_bitset: 0,
        });
        line = start.line;
        character = start.character;
    }
    out
}
