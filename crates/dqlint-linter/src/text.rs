//! Small helpers rules share: pointing inside source text, suggestions.

use dqlint_project::{Origin, Project};

/// The place of `needle` inside the source text of `origin` (the `n`-th
/// occurrence), or the whole origin when the text is not there (a value
/// rendered from a template parameter, for instance).
pub fn find_in_origin(project: &Project, origin: &Origin, needle: &str, n: usize) -> Origin {
    let text = &project.file(origin.file).text;
    let Some(source) = text.get(origin.span.clone()) else {
        return origin.clone();
    };
    match source.match_indices(needle).nth(n) {
        Some((at, _)) => Origin {
            file: origin.file,
            span: origin.span.start + at..origin.span.start + at + needle.len(),
            via: origin.via.clone(),
        },
        None => origin.clone(),
    }
}

/// The closest known word, if it is close enough to be a typo.
pub fn did_you_mean<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(word, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4) && *d < k.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The raw source text of an origin.
pub fn source_text<'a>(project: &'a Project, origin: &Origin) -> &'a str {
    project
        .file(origin.file)
        .text
        .get(origin.span.clone())
        .unwrap_or("")
}

/// `new` written in the same quoting style as the scalar at `origin`
/// (JSON needs its double quotes kept).
pub fn requote(project: &Project, origin: &Origin, new: &str) -> String {
    let raw = source_text(project, origin);
    match raw.chars().next() {
        Some('"') => format!("\"{new}\""),
        Some('\'') => format!("'{new}'"),
        _ => new.to_string(),
    }
}
