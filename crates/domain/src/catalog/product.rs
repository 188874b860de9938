//! Products and variants: status, slugs, tags, prices.

use crate::{limits, text_enum};

text_enum! {
    /// Whether storefronts and public catalog readers see a product.
    pub enum ProductStatus {
        Visible => "visible",
        Hidden => "hidden",
    }
}

pub const SLUG_MAX: usize = 100;
pub const TAG_MAX: usize = 100;
pub const TAGS_MAX: usize = 250;

/// A URL-safe slug from a title: lower-case ASCII letters and digits separated by single
/// hyphens, common Latin accents folded (`Café Niño` → `cafe-nino`). Empty when the title
/// has no letter or digit at all.
pub fn slugify(title: &str) -> String {
    let mut slug = String::with_capacity(title.len());
    let mut pending_hyphen = false;
    for c in title.chars().flat_map(char::to_lowercase) {
        let folded = fold_accent(c);
        if folded.is_ascii_alphanumeric() {
            if pending_hyphen && !slug.is_empty() {
                slug.push('-');
            }
            pending_hyphen = false;
            slug.push(folded);
            if slug.len() >= SLUG_MAX {
                break;
            }
        } else {
            pending_hyphen = true;
        }
    }
    slug.trim_end_matches('-').to_owned()
}

fn fold_accent(c: char) -> char {
    match c {
        'à'..='å' | 'ā' | 'ă' | 'ą' => 'a',
        'ç' | 'ć' | 'č' => 'c',
        'ď' => 'd',
        'è'..='ë' | 'ē' | 'ė' | 'ę' | 'ě' => 'e',
        'ì'..='ï' | 'ī' | 'į' => 'i',
        'ñ' | 'ń' | 'ň' => 'n',
        'ò'..='ö' | 'ø' | 'ō' | 'ő' => 'o',
        'ř' => 'r',
        'ś' | 'š' | 'ş' => 's',
        'ť' => 't',
        'ù'..='ü' | 'ū' | 'ů' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        other => other,
    }
}

/// 1 to 100 lower-case letters, digits and single hyphens, not starting or ending with one.
pub fn validate_slug(slug: &str) -> Result<(), String> {
    let well_formed = !slug.is_empty()
        && slug.len() <= SLUG_MAX
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !slug.starts_with('-')
        && !slug.ends_with('-')
        && !slug.contains("--");
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "must be 1 to {SLUG_MAX} lower-case letters, digits and single hyphens"
        ))
    }
}

/// The key a tag is matched by, whatever its case.
pub fn tag_key(tag: &str) -> String {
    tag.trim().to_lowercase()
}

/// Tags as stored: trimmed, blank ones dropped, repeats (in any case) dropped with the
/// first spelling kept. Commas are refused: filters take comma-separated tags.
pub fn normalize_tags(tags: &[String]) -> Result<Vec<String>, String> {
    let mut kept: Vec<String> = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for tag in tags.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        if tag.contains(',') {
            return Err(format!("`{tag}` contains a comma"));
        }
        if tag.chars().count() > TAG_MAX {
            return Err(format!(
                "`{tag}` is too long (maximum is {TAG_MAX} characters)"
            ));
        }
        if tag.chars().any(char::is_control) {
            return Err("contains control characters".into());
        }
        if keys.insert(tag_key(tag)) {
            kept.push(tag.to_owned());
        }
    }
    if kept.len() > TAGS_MAX {
        return Err(format!("has too many tags (maximum is {TAGS_MAX})"));
    }
    Ok(kept)
}

/// How much cheaper `price` is than `comparison`, in whole percent (rounded half up); 0
/// when there is no comparison price or it is not higher.
pub fn discount_percentage(price: i64, comparison: Option<i64>) -> i64 {
    match comparison {
        Some(c) if c > price && price >= 0 => {
            let saved = i128::from(c - price) * 100;
            let c = i128::from(c);
            i64::try_from((saved + c / 2) / c).unwrap_or(0)
        }
        _ => 0,
    }
}

/// An amount in minor units: 0 up to `money::AMOUNT_MAX`.
pub fn amount(value: i64) -> Result<(), String> {
    limits::AMOUNT.check(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::AMOUNT_MAX;

    #[test]
    fn slugs() {
        assert_eq!(
            slugify("  Café Niño -- Summer '26! "),
            "cafe-nino-summer-26"
        );
        assert_eq!(slugify("T-Shirt (Red)"), "t-shirt-red");
        assert_eq!(slugify("日本"), "");
        assert_eq!(slugify(&"a".repeat(300)).len(), SLUG_MAX);
        assert!(validate_slug("t-shirt-2").is_ok());
        for bad in ["", "-a", "a-", "a--b", "A", "a b", "ñ"] {
            assert!(validate_slug(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tags() {
        let tags = ["Summer", " sale ", "summer", "", "SALE"].map(String::from);
        assert_eq!(normalize_tags(&tags).unwrap(), ["Summer", "sale"]);
        assert!(normalize_tags(&["a,b".to_owned()]).is_err());
        assert!(normalize_tags(&["x".repeat(101)]).is_err());
        assert_eq!(tag_key(" Summer "), "summer");
    }

    #[test]
    fn discounts() {
        assert_eq!(discount_percentage(750, Some(1000)), 25);
        assert_eq!(discount_percentage(666, Some(1000)), 33);
        assert_eq!(discount_percentage(665, Some(1000)), 34);
        assert_eq!(discount_percentage(1000, Some(1000)), 0);
        assert_eq!(discount_percentage(1200, Some(1000)), 0);
        assert_eq!(discount_percentage(0, Some(1000)), 100);
        assert_eq!(discount_percentage(1000, None), 0);
        assert_eq!(discount_percentage(1, Some(AMOUNT_MAX)), 100);
    }
}
