//! The representations the services record in events: each area's `Present` trait of the
//! `services` crate is implemented beside that area's representation, on this one type.

use std::sync::Arc;

use crate::kernel::urls::Urls;

pub struct Presenter {
    pub(crate) urls: Arc<Urls>,
}

impl Presenter {
    /// Resources as clients reach them under `public_url`.
    pub fn new(public_url: &str) -> Self {
        Self {
            urls: Arc::new(Urls::new(public_url)),
        }
    }
}
