//! Renders an order document as a PDF: A4 pages of text in the standard Helvetica fonts
//! (WinAnsi encoding, so any reader extracts the text), the lines continuing on further
//! pages as needed. Characters the encoding lacks print as `?`.

use domain::document::{DocumentKind, format_amount};
use domain::order::Address;
use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str};
use storage::order_documents::Document;
use storage::orders::{Order, OrderLine};
use storage::shops::Shop;

const WIDTH: f32 = 595.0;
const HEIGHT: f32 = 842.0;
const MARGIN: f32 = 50.0;
const LEADING: f32 = 15.0;
/// Longest title printed on a line before it is cut short.
const TITLE_CHARS: usize = 48;

/// One run of text at a place on a page.
struct Run {
    x: f32,
    y: f32,
    bold: bool,
    size: f32,
    text: String,
}

/// Lays text out down the pages.
struct Layout {
    pages: Vec<Vec<Run>>,
    y: f32,
}

impl Layout {
    fn new() -> Self {
        Self {
            pages: vec![Vec::new()],
            y: HEIGHT - MARGIN,
        }
    }

    /// Moves down a row, to a new page when this one is full.
    fn row(&mut self, height: f32) {
        self.y -= height;
        if self.y < MARGIN {
            self.pages.push(Vec::new());
            self.y = HEIGHT - MARGIN - height;
        }
    }

    fn text(&mut self, x: f32, bold: bool, size: f32, text: impl Into<String>) {
        let run = Run {
            x,
            y: self.y,
            bold,
            size,
            text: text.into(),
        };
        if let Some(page) = self.pages.last_mut() {
            page.push(run);
        }
    }

    fn line(&mut self, text: impl Into<String>) {
        self.row(LEADING);
        self.text(MARGIN, false, 10.0, text);
    }
}

/// The document's PDF file.
pub fn render(document: &Document, shop: &Shop, order: &Order, lines: &[OrderLine]) -> Vec<u8> {
    let mut layout = Layout::new();
    let kind = document.kind;
    let prices = kind == DocumentKind::Invoice;
    layout.text(MARGIN, true, 18.0, shop.name.clone());
    layout.row(28.0);
    layout.text(
        MARGIN,
        true,
        14.0,
        format!("{} {}", kind.title(), kind.display_number(document.number)),
    );
    layout.line(format!("Order {}", order.code));
    let dated = order.placed_on.unwrap_or(order.created_on);
    layout.line(format!("Date {}", date_of(dated)));
    let buyer = [&order.contact_name, &order.email, &order.phone_number];
    for value in buyer.into_iter().flatten() {
        layout.line(value.clone());
    }
    let addresses = [
        ("Ship to", order.shipping_address.0.as_ref()),
        ("Bill to", order.billing_address.0.as_ref()),
    ];
    for (label, address) in addresses {
        if let Some(address) = address.filter(|_| prices || label == "Ship to") {
            layout.row(6.0);
            layout.line(label);
            for part in address_lines(address) {
                layout.line(part);
            }
        }
    }

    layout.row(LEADING + 6.0);
    let columns: &[(f32, &str)] = if prices {
        &[
            (MARGIN, "Item"),
            (290.0, "SKU"),
            (370.0, "Qty"),
            (410.0, "Unit price"),
            (490.0, "Total"),
        ]
    } else {
        &[(MARGIN, "Item"), (350.0, "SKU"), (470.0, "Qty")]
    };
    for (x, heading) in columns {
        layout.text(*x, true, 10.0, *heading);
    }
    let currency = &order.currency_code;
    for line in lines {
        let sold = &line.sold;
        let mut title = sold.title.clone();
        if !sold.variant_title.is_empty() {
            title = format!("{title} - {}", sold.variant_title);
        }
        layout.row(LEADING);
        let sku = sold.sku.clone().unwrap_or_default();
        let mut cells = vec![
            (columns[0].0, cut(&title)),
            (columns[1].0, sku),
            (columns[2].0, sold.quantity.to_string()),
        ];
        if prices {
            cells.push((columns[3].0, format_amount(sold.unit_price, currency)));
            cells.push((columns[4].0, format_amount(sold.line_total, currency)));
        }
        for (x, cell) in cells {
            layout.text(x, false, 10.0, cell);
        }
    }
    if prices {
        layout.row(8.0);
        for (label, amount) in [
            ("Subtotal", order.net_total),
            ("Shipping", order.shipping_total),
            ("Discount", order.discount_total),
            ("Tax", order.tax_total),
            ("Total", order.total),
        ] {
            layout.row(LEADING);
            let bold = label == "Total";
            layout.text(370.0, bold, 10.0, label);
            layout.text(450.0, bold, 10.0, format_amount(amount, currency));
        }
    }
    write(&layout.pages)
}

/// The address as printed lines.
fn address_lines(a: &Address) -> Vec<String> {
    let locality = [&a.postal_code, &a.locality, &a.region]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    [
        a.name.clone(),
        a.company.clone(),
        a.street.clone(),
        a.street_2.clone(),
        Some(locality),
        a.country_code.clone(),
    ]
    .into_iter()
    .flatten()
    .filter(|part| !part.trim().is_empty())
    .collect()
}

/// The day of a time, as YYYY-MM-DD.
fn date_of(at: domain::Timestamp) -> String {
    let rfc3339 = at.to_rfc3339();
    rfc3339.get(..10).unwrap_or(&rfc3339).to_owned()
}

fn cut(text: &str) -> String {
    if text.chars().count() <= TITLE_CHARS {
        return text.to_owned();
    }
    let kept: String = text.chars().take(TITLE_CHARS - 3).collect();
    format!("{kept}...")
}

/// The PDF of laid-out pages.
fn write(pages: &[Vec<Run>]) -> Vec<u8> {
    let mut pdf = Pdf::new();
    let catalog = Ref::new(1);
    let tree = Ref::new(2);
    let regular = Ref::new(3);
    let bold = Ref::new(4);
    let first_page = 5;
    let page_ids: Vec<Ref> = (0..pages.len())
        .map(|i| Ref::new(first_page + 2 * i32::try_from(i).unwrap_or(0)))
        .collect();
    pdf.catalog(catalog).pages(tree);
    pdf.pages(tree)
        .kids(page_ids.iter().copied())
        .count(i32::try_from(pages.len()).unwrap_or(i32::MAX));
    for (font, name) in [(regular, "Helvetica"), (bold, "Helvetica-Bold")] {
        pdf.type1_font(font)
            .base_font(Name(name.as_bytes()))
            .encoding_predefined(Name(b"WinAnsiEncoding"));
    }
    for (runs, id) in pages.iter().zip(&page_ids) {
        let contents = Ref::new(id.get() + 1);
        let mut page = pdf.page(*id);
        page.media_box(Rect::new(0.0, 0.0, WIDTH, HEIGHT))
            .parent(tree)
            .contents(contents);
        page.resources()
            .fonts()
            .pair(Name(b"F1"), regular)
            .pair(Name(b"F2"), bold);
        page.finish();
        let mut content = Content::new();
        for run in runs {
            let font = if run.bold { b"F2" } else { b"F1" };
            content
                .begin_text()
                .set_font(Name(font), run.size)
                .set_text_matrix([1.0, 0.0, 0.0, 1.0, run.x, run.y])
                .show(Str(&win_ansi(&run.text)))
                .end_text();
        }
        pdf.stream(contents, &content.finish());
    }
    pdf.finish()
}

/// The text in the WinAnsi encoding of the standard fonts; what it lacks becomes `?`, and
/// control characters a space.
pub fn win_ansi(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            ' '..='~' => c as u8,
            '\u{a0}'..='\u{ff}' => c as u32 as u8,
            c if c.is_control() => b' ',
            '€' => 0x80,
            '‚' => 0x82,
            'ƒ' => 0x83,
            '„' => 0x84,
            '…' => 0x85,
            '†' => 0x86,
            '‡' => 0x87,
            'ˆ' => 0x88,
            '‰' => 0x89,
            'Š' => 0x8a,
            '‹' => 0x8b,
            'Œ' => 0x8c,
            'Ž' => 0x8e,
            '‘' => 0x91,
            '’' => 0x92,
            '“' => 0x93,
            '”' => 0x94,
            '•' => 0x95,
            '–' => 0x96,
            '—' => 0x97,
            '˜' => 0x98,
            '™' => 0x99,
            'š' => 0x9a,
            '›' => 0x9b,
            'œ' => 0x9c,
            'ž' => 0x9e,
            'Ÿ' => 0x9f,
            _ => b'?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::win_ansi;

    #[test]
    fn text_is_encoded_for_the_standard_fonts() {
        assert_eq!(win_ansi("Café 5€"), b"Caf\xe9 5\x80");
        assert_eq!(win_ansi("日本\n"), b"?? ");
        assert_eq!(win_ansi("(a)\\"), b"(a)\\");
    }
}
