//! What a client is told when a unique index refuses its write: the one registry from the
//! schema's unique indexes (`storage::UniqueIndex`, kept complete by a test over both
//! migrated schemas) to the field each concerns. The conversion of storage errors applies
//! it (`ApiError::from`), so no call site maps a violation by hand; and the `match` is
//! exhaustive, so a new index cannot be added without saying what it means to a client.

use storage::UniqueIndex;

/// The answer to a write a unique index refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// A value the client gives must be unique: 422 on this field, "has already been
    /// taken". (The other row is committed: the index waits for it.)
    Field(&'static str),
    /// No field of the request is at fault — a value the server made (a token, a code, a
    /// counter) or a row two writes add at once: 409 `already_exists`, after the write
    /// ran again in case it was a race it now sees the outcome of.
    Conflict,
}

pub fn answer(index: UniqueIndex) -> Taken {
    use Taken::{Conflict, Field};
    use UniqueIndex as U;
    match index {
        U::UsersEmail => Field("email"),
        U::SellersSlug | U::ProductsSlug | U::CollectionsSlug => Field("slug"),
        U::ShopsSubdomain => Field("subdomain"),
        U::ProductTypesName => Field("name"),
        U::CustomersEmail => Field("email"),
        // Two invitations of one user at once: the request names the user by email.
        U::ShopAdminsUser => Field("email"),
        U::VariantsSku => Field("sku"),
        U::ExchangeRatesCurrency => Field("to_currency"),
        // Tiers are written as an upsert, so only a race can reach the index, and the
        // request may name several items.
        U::PriceListItemsTier => Conflict,
        U::OauthAppsClientId
        | U::OauthAppsSystemRole
        | U::SigningKeys
        | U::AccessTokensJti
        | U::IdempotencyKeys
        | U::RefreshTokensDigest
        | U::AuthorizationCodesDigest
        | U::SignInFailures
        | U::Settings
        | U::WebSessions
        | U::SellerProductCounts
        | U::ProductShops
        | U::ProductTags
        | U::CustomerTags
        | U::CustomerSpending
        | U::CustomerPasswordResets
        | U::ShopAdminInvitations
        | U::ProductWords
        | U::AccountVersions
        | U::ProductAssetData
        | U::CollectionProducts
        | U::WebhookDeliveriesEvent
        | U::OrderCodes
        | U::OrdersCode
        | U::OrderDocumentNumbers
        | U::OrderDocumentsNumber
        | U::OrderDocumentFiles
        | U::PaymentsCharge
        | U::SubscriptionPurchasesLine
        | U::OrdersRenewal
        | U::Leases => Conflict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field named is one the resource's writes accept; in particular the indexes whose
    /// values clients choose name theirs.
    #[test]
    fn client_chosen_values_name_their_field() {
        for (index, field) in [
            (UniqueIndex::ProductsSlug, "slug"),
            (UniqueIndex::CollectionsSlug, "slug"),
            (UniqueIndex::VariantsSku, "sku"),
            (UniqueIndex::ShopsSubdomain, "subdomain"),
            (UniqueIndex::ProductTypesName, "name"),
            (UniqueIndex::UsersEmail, "email"),
        ] {
            assert_eq!(answer(index), Taken::Field(field), "{index}");
        }
        assert_eq!(answer(UniqueIndex::OrdersCode), Taken::Conflict);
        assert_eq!(answer(UniqueIndex::CollectionProducts), Taken::Conflict);
    }
}
