//! The batches area as the toolkit gathers it: paths, routes, root links, URL builders.

use domain::Scope;

use super::BATCH_LIST;
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const BATCHES: Path = Path::new("/batches");
pub const BATCH: Path = Path::new("/batches/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::BATCHES_BATCHES,
            shown: reader,
            href: |urls| urls.list_template(BATCHES.pattern(), &BATCH_LIST),
        },
        RootLink {
            rel: &rels::BATCHES_BATCH,
            shown: reader,
            href: |urls| urls.template(BATCH),
        },
    ],
};

fn reader(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::BatchesRead)
}

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::BatchFields;
    routes
        .get(
            BATCHES,
            super::list,
            Op::new("List batch jobs", Answer::list::<Fields>())
                .scope(Scope::BatchesRead)
                .list(&BATCH_LIST)
                .rel(&rels::BATCHES_BATCHES),
        )
        .get(
            BATCH,
            super::show,
            Op::new("Show a batch job", Answer::resource::<Fields>())
                .scope(Scope::BatchesRead)
                .rel(&rels::BATCHES_BATCH),
        );
}

impl Urls {
    pub fn batch(&self, id: i64) -> String {
        self.at(BATCH, &[id])
    }
}
