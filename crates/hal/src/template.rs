//! RFC 6570 URI templates (levels 1–4), expanded with iri-string's processor.

use iri_string::spec::UriSpec;
use iri_string::template::UriTemplateStr;
use iri_string::template::simple_context::{SimpleContext, Value};

/// A value for a template variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateValue {
    Str(String),
    List(Vec<String>),
    Assoc(Vec<(String, String)>),
}

impl From<&str> for TemplateValue {
    fn from(v: &str) -> Self {
        Self::Str(v.to_owned())
    }
}

impl From<String> for TemplateValue {
    fn from(v: String) -> Self {
        Self::Str(v)
    }
}

#[derive(Debug)]
pub struct TemplateError(String);

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid URI template: {}", self.0)
    }
}

impl std::error::Error for TemplateError {}

/// A validated URI template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template(String);

impl Template {
    pub fn new(template: impl Into<String>) -> Result<Self, TemplateError> {
        let template = template.into();
        UriTemplateStr::new(&template).map_err(|e| TemplateError(e.to_string()))?;
        Ok(Self(template))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The variable names, each once, in order of first appearance.
    pub fn variables(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for var in self.parsed().variables() {
            if !names.iter().any(|n| n == var.as_str()) {
                names.push(var.as_str().to_owned());
            }
        }
        names
    }

    /// Expands the template; variables not given are undefined (and vanish).
    pub fn expand<'a, I>(&self, vars: I) -> Result<String, TemplateError>
    where
        I: IntoIterator<Item = (&'a str, TemplateValue)>,
    {
        let mut context = SimpleContext::new();
        for (name, value) in vars {
            let value = match value {
                TemplateValue::Str(s) => Value::String(s),
                TemplateValue::List(l) => Value::List(l),
                TemplateValue::Assoc(a) => Value::Assoc(a),
            };
            context.insert(name, value);
        }
        self.parsed()
            .expand::<UriSpec, _>(&context)
            .map(|expanded| expanded.to_string())
            .map_err(|e| TemplateError(e.to_string()))
    }

    fn parsed(&self) -> &UriTemplateStr {
        UriTemplateStr::new(&self.0).expect("validated at construction")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variables of RFC 6570 section 3.2, plus those our links use.
    fn vars() -> Vec<(&'static str, TemplateValue)> {
        let s = |v: &str| TemplateValue::Str(v.to_owned());
        vec![
            ("var", s("value")),
            ("hello", s("Hello World!")),
            ("path", s("/foo/bar")),
            ("empty", s("")),
            ("x", s("1024")),
            ("y", s("768")),
            (
                "list",
                TemplateValue::List(vec!["red".into(), "green".into(), "blue".into()]),
            ),
            (
                "keys",
                TemplateValue::Assoc(vec![
                    ("semi".into(), ";".into()),
                    ("dot".into(), ".".into()),
                    ("comma".into(), ",".into()),
                ]),
            ),
        ]
    }

    fn check(cases: &[(&str, &str)]) {
        for (template, expected) in cases {
            let got = Template::new(*template).unwrap().expand(vars()).unwrap();
            assert_eq!(&got, expected, "template {template}");
        }
    }

    #[test]
    fn level_1_simple_strings() {
        check(&[
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{undef}", ""),
        ]);
    }

    #[test]
    fn level_2_reserved_and_fragment() {
        check(&[
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("X{#var}", "X#value"),
            ("X{#hello}", "X#Hello%20World!"),
        ]);
    }

    #[test]
    fn level_3_multiple_variables_and_operators() {
        check(&[
            ("map?{x,y}", "map?1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("X{.var}", "X.value"),
            ("X{.x,y}", "X.1024.768"),
            ("{/var}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
        ]);
    }

    #[test]
    fn level_4_prefixes_and_explosion() {
        check(&[
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{+keys*}", "semi=;,dot=.,comma=,"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("X{.list*}", "X.red.green.blue"),
            ("{/var:1,var}", "/v/value"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{;hello:5}", ";hello=Hello"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
            ("{?var:3}", "?var=val"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
            ("{&list*}", "&list=red&list=green&list=blue"),
            ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
        ]);
    }

    #[test]
    fn our_list_and_item_templates() {
        let list =
            Template::new("https://x/v2/shops{?q,seller_ids,created_on.gte,page,per_page,sort}")
                .unwrap();
        assert_eq!(
            list.variables(),
            [
                "q",
                "seller_ids",
                "created_on.gte",
                "page",
                "per_page",
                "sort"
            ]
        );
        let href = list
            .expand([
                ("page", "2".into()),
                ("created_on.gte", "2026-01-01".into()),
                (
                    "seller_ids",
                    TemplateValue::List(vec!["1".into(), "2".into()]),
                ),
            ])
            .unwrap();
        assert_eq!(
            href,
            "https://x/v2/shops?seller_ids=1,2&created_on.gte=2026-01-01&page=2"
        );
        let item = Template::new("https://x/v2/shops/{id}").unwrap();
        assert_eq!(
            item.expand([("id", "42".into())]).unwrap(),
            "https://x/v2/shops/42"
        );
        assert!(Template::new("https://x/{unclosed").is_err());
    }
}
