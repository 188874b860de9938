//! What a client may send to create or change a webhook subscription, and its rules.

use std::borrow::Cow;

use delivery::ssrf::Guard;
use domain::limits::IntRange;
use domain::webhook::{AuthType, Ordering};
use domain::{FieldErrors, Patch, Timestamp, topic, validation};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

const URL_MAX: usize = 2_000;
const CREDENTIAL_MAX: usize = 255;
/// How long a rotated-out secret keeps signing by default, and at most.
const GRACE_DEFAULT_SECS: i64 = 86_400;
/// How long a rotated-out secret may keep signing: up to a week.
const GRACE_PERIOD_SECS: IntRange = IntRange::new(0, 7 * 86_400);

/// How deliveries authenticate to the target.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[schemars(rename = "WebhookAuthInput")]
pub struct AuthInput {
    #[serde(rename = "type", default)]
    kind: Option<AuthType>,
    #[serde(default)]
    username: Option<String>,
    #[serde(default)]
    password: Option<String>,
}

// Topic and URL are checked by `check` rather than required by the parser, so that
// their absence is a 422 like any other invalid field.
/// A webhook subscription to create.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewSubscription {
    // Required, but an absent `Option` field is `None` to serde: its absence is answered
    // as a 422 like any other invalid field.
    /// One of the topics `/v2/webhooks/topics` lists; its sub-topics are heard too.
    #[schemars(required, with = "String")]
    topic: Option<String>,
    /// Where deliveries are sent: an `https` or `http` URL on a globally reachable host.
    #[schemars(required, with = "String")]
    url: Option<String>,
    #[serde(default)]
    notify_origin: Option<bool>,
    #[serde(default)]
    auth: Option<AuthInput>,
    #[serde(default)]
    ordering: Option<Ordering>,
    /// Only on `POST /webhooks`, where the shop is not in the path.
    #[serde(default)]
    pub shop_id: Option<i64>,
}

/// A checked subscription, its password still in the clear (the caller seals it).
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub topic: String,
    pub url: String,
    pub notify_origin: bool,
    pub auth_type: AuthType,
    pub auth_username: Option<String>,
    /// `Some` when a new password was given.
    pub auth_password: Option<String>,
    pub ordering: Ordering,
}

impl NewSubscription {
    pub fn validate(self, guard: &Guard) -> Result<Checked, FieldErrors> {
        let mut errors = FieldErrors::new();
        let auth = self.auth.unwrap_or_default();
        let checked = Checked {
            topic: self.topic.unwrap_or_default().trim().to_owned(),
            url: self.url.unwrap_or_default().trim().to_owned(),
            notify_origin: self.notify_origin.unwrap_or(true),
            auth_type: auth.kind.unwrap_or(AuthType::None),
            auth_username: auth.username,
            auth_password: auth.password,
            ordering: self.ordering.unwrap_or(Ordering::None),
        };
        check(&checked, true, guard, &mut errors);
        errors.into_result().map(|()| checked)
    }
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct SubscriptionChanges {
    #[serde(default)]
    topic: Patch<String>,
    #[serde(default)]
    url: Patch<String>,
    #[serde(default)]
    notify_origin: Patch<bool>,
    #[serde(default)]
    auth: Patch<AuthInput>,
    #[serde(default)]
    ordering: Patch<Ordering>,
}

impl SubscriptionChanges {
    /// `current` with these changes; a password is only needed when basic credentials
    /// change or are first given.
    pub fn apply(self, mut current: Checked, guard: &Guard) -> Result<Checked, FieldErrors> {
        let mut errors = FieldErrors::new();
        for (field, null) in [
            ("topic", self.topic == Patch::Null),
            ("url", self.url == Patch::Null),
            ("notify_origin", self.notify_origin == Patch::Null),
            ("ordering", self.ordering == Patch::Null),
        ] {
            if null {
                errors.add(field, "can't be null");
            }
        }
        if let Patch::Value(topic) = self.topic {
            current.topic = topic.trim().to_owned();
        }
        if let Patch::Value(url) = self.url {
            current.url = url.trim().to_owned();
        }
        if let Patch::Value(notify) = self.notify_origin {
            current.notify_origin = notify;
        }
        if let Patch::Value(ordering) = self.ordering {
            current.ordering = ordering;
        }
        let password_needed = match self.auth {
            Patch::Absent => false,
            Patch::Null => {
                (
                    current.auth_type,
                    current.auth_username,
                    current.auth_password,
                ) = (AuthType::None, None, None);
                false
            }
            Patch::Value(auth) => {
                let kind = auth.kind.unwrap_or(current.auth_type);
                let new_user = auth.username != current.auth_username || kind != current.auth_type;
                current.auth_type = kind;
                current.auth_username = auth.username.or(current.auth_username);
                current.auth_password = auth.password;
                new_user && kind == AuthType::Basic
            }
        };
        check(&current, password_needed, guard, &mut errors);
        errors.into_result().map(|()| current)
    }
}

fn check(checked: &Checked, password_needed: bool, guard: &Guard, errors: &mut FieldErrors) {
    if checked.topic.is_empty() {
        errors.add("topic", "can't be blank");
    } else if !topic::is_known(&checked.topic) {
        errors.add(
            "topic",
            "is not a known topic (see webhooks:topics for the list)",
        );
    }
    if checked.url.is_empty() {
        errors.add("url", "can't be blank");
    } else if checked.url.chars().count() > URL_MAX {
        errors.add(
            "url",
            format!("is too long (maximum is {URL_MAX} characters)"),
        );
    } else if let Err(blocked) = guard.check_url(&checked.url) {
        errors.add("url", blocked.to_string());
    }
    if checked.auth_type == AuthType::Basic {
        match &checked.auth_username {
            Some(user) if user.contains(':') => {
                errors.add("auth.username", "must not contain a colon");
            }
            Some(user) => errors.check("auth.username", validation::text(user, CREDENTIAL_MAX)),
            None => errors.add("auth.username", "is required for basic authentication"),
        }
        match &checked.auth_password {
            Some(password) => {
                errors.check("auth.password", validation::text(password, CREDENTIAL_MAX))
            }
            None if password_needed => {
                errors.add("auth.password", "is required for basic authentication")
            }
            None => {}
        }
    }
}

/// A secret rotation: how long the old secret keeps signing.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Rotation {
    #[serde(default)]
    grace_period_seconds: Option<i64>,
}

impl Rotation {
    /// The grace period in seconds (a day unless given).
    pub fn grace_secs(&self) -> Result<i64, FieldErrors> {
        let grace = self.grace_period_seconds.unwrap_or(GRACE_DEFAULT_SECS);
        GRACE_PERIOD_SECS
            .check(grace)
            .map(|()| grace)
            .map_err(|message| FieldErrors::single("grace_period_seconds", message))
    }
}

/// A replay as a client asks for it: deliveries created from `since` until `until`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReplayInput {
    #[schemars(with = "TimeOrDate")]
    since: String,
    /// Now, unless given.
    #[serde(default)]
    #[schemars(with = "Option<TimeOrDate>")]
    until: Option<String>,
}

/// What `Timestamp::parse` reads: an RFC 3339 date-time or a `YYYY-MM-DD` date (midnight
/// UTC).
struct TimeOrDate;

impl JsonSchema for TimeOrDate {
    fn schema_name() -> Cow<'static, str> {
        "TimeOrDate".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "anyOf": [{ "format": "date-time" }, { "format": "date" }],
            "description": "An RFC 3339 date-time, or a YYYY-MM-DD date (midnight UTC)",
        })
    }
}

/// The checked window of a replay: `[since, until)`, `until` being now when not given.
#[derive(Clone, Copy, Debug)]
pub struct ReplayWindow {
    pub since: Timestamp,
    pub until: Timestamp,
}

impl ReplayInput {
    /// The window, or every problem with it, as of `now`.
    pub fn validate(self, now: Timestamp) -> Result<ReplayWindow, FieldErrors> {
        let mut errors = FieldErrors::new();
        let since = Timestamp::parse(&self.since);
        if since.is_none() {
            errors.add("since", Timestamp::MESSAGE);
        }
        let until = match self.until.as_deref() {
            None => Some(now),
            Some(text) => Timestamp::parse(text),
        };
        if until.is_none() {
            errors.add("until", Timestamp::MESSAGE);
        }
        if let (Some(since), Some(until)) = (since, until)
            && until <= since
        {
            errors.add("until", "must be after since");
        }
        errors.into_result()?;
        Ok(ReplayWindow {
            since: since.unwrap_or(now),
            until: until.unwrap_or(now),
        })
    }
}
