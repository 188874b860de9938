//! The words `q` searches: a product's search document and a query are cut into the same
//! lower-case words, so that both database engines index and match exactly these words.

/// Longest word kept; longer runs are cut.
const WORD_MAX: usize = 64;
/// Longest search document, in bytes.
const DOCUMENT_MAX: usize = 32 * 1024;
/// Words of a query beyond this are ignored.
pub const QUERY_WORDS_MAX: usize = 8;

/// Lower-case runs of letters and digits.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.chars()
                .flat_map(char::to_lowercase)
                .take(WORD_MAX)
                .collect()
        })
}

/// The search document of a product: each distinct word of its parts once, in order.
pub fn document<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut doc = String::new();
    for word in parts.into_iter().flat_map(words) {
        if doc.len() + word.len() + 1 > DOCUMENT_MAX {
            break;
        }
        if seen.insert(word.clone()) {
            if !doc.is_empty() {
                doc.push(' ');
            }
            doc.push_str(&word);
        }
    }
    doc
}

/// The words of a query, each matched as a prefix of a document word; all must match.
/// `None` when the query has no word at all.
pub fn query_words(q: &str) -> Option<Vec<String>> {
    let mut list: Vec<String> = Vec::new();
    for word in words(q) {
        if !list.contains(&word) {
            list.push(word);
        }
        if list.len() == QUERY_WORDS_MAX {
            break;
        }
    }
    (!list.is_empty()).then_some(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_words_the_same_way_for_documents_and_queries() {
        assert_eq!(
            document(["Red T-Shirt", "TSHIRT-RED-M", "red, Ñandú"]),
            "red t shirt tshirt m ñandú"
        );
        assert_eq!(
            query_words("  t-shirt RED red "),
            Some(vec!["t".into(), "shirt".into(), "red".into()])
        );
        assert_eq!(query_words(" -- "), None);
        assert_eq!(query_words(&"w ".repeat(3)).unwrap().len(), 1);
        let many: String = (0..20).map(|i| format!("w{i} ")).collect();
        assert_eq!(query_words(&many).unwrap().len(), QUERY_WORDS_MAX);
    }

    #[test]
    fn bounds_the_document() {
        let long = "word ".repeat(100_000);
        assert_eq!(document([long.as_str()]), "word");
        let distinct: String = (0..20_000).map(|i| format!("w{i} ")).collect();
        assert!(document([distinct.as_str()]).len() <= DOCUMENT_MAX);
    }
}
