//! The schema's unique indexes, each declared once. A write refused by one is reported by
//! each backend its own way — PostgreSQL names the index, SQLite lists its
//! `table.column`s — so every index is declared with both, and a violation is resolved to
//! one `UniqueIndex` whatever the backend. Callers then decide by index, never by reading
//! messages: the API maps each index to the field it concerns (an exhaustive `match`, so a
//! new index cannot go unmapped), and a test over both migrated schemas keeps this list
//! complete.
//!
//! Primary keys are unique indexes too and are listed, except the surrogate `id` columns:
//! the database generates those, so no write can collide on one.

/// Declares the indexes: the enum, and each one's name, table and columns.
macro_rules! unique_indexes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal on $table:ident ($($column:ident),+);)+) => {
        /// A unique index of the schema (see the module's documentation).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum UniqueIndex {
            $($(#[$doc])* $variant,)+
        }

        impl UniqueIndex {
            /// Every unique index, in declaration order.
            pub const ALL: &[UniqueIndex] = &[$(UniqueIndex::$variant),+];

            /// The index's name, as PostgreSQL reports it (and SQLite keeps it, for a
            /// `CREATE UNIQUE INDEX`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(UniqueIndex::$variant => $name,)+
                }
            }

            pub const fn table(self) -> &'static str {
                match self {
                    $(UniqueIndex::$variant => stringify!($table),)+
                }
            }

            /// The indexed columns, in index order (as SQLite reports them).
            pub const fn columns(self) -> &'static [&'static str] {
                match self {
                    $(UniqueIndex::$variant => &[$(stringify!($column)),+],)+
                }
            }
        }
    };
}

unique_indexes! {
    UsersEmail = "users_email_key" on users (email);
    SellersSlug = "sellers_account_slug_key" on sellers (account_id, slug);
    ShopsSubdomain = "shops_subdomain_key" on shops (subdomain);
    OauthAppsClientId = "oauth_apps_client_id_key" on oauth_apps (client_id);
    /// At most one app per system role (the personal access tokens' app).
    OauthAppsSystemRole = "oauth_apps_system_role_key" on oauth_apps (system_role);
    SigningKeys = "signing_keys_pkey" on signing_keys (kid);
    AccessTokensJti = "access_tokens_jti_key" on access_tokens (jti);
    IdempotencyKeys = "idempotency_keys_pkey" on idempotency_keys (key_digest);
    RefreshTokensDigest = "refresh_tokens_digest_key" on refresh_tokens (digest);
    AuthorizationCodesDigest = "authorization_codes_digest_key" on authorization_codes (digest);
    SignInFailures = "sign_in_failures_pkey" on sign_in_failures (key);
    Settings = "settings_pkey" on settings (name);
    WebSessions = "web_sessions_pkey" on web_sessions (digest);
    /// Names per seller, whatever their case (`name_key` is the lower-case name).
    ProductTypesName = "product_types_name_key" on product_types (seller_id, name_key);
    ProductsSlug = "products_slug_key" on products (seller_id, slug);
    SellerProductCounts = "seller_product_counts_pkey" on seller_product_counts (seller_id);
    ProductShops = "product_shops_pkey" on product_shops (product_id, shop_id);
    ProductTags = "product_tags_pkey" on product_tags (product_id, tag_key);
    /// A product's search words, written by triggers from its search text (PostgreSQL
    /// only: SQLite searches its full-text index).
    ProductWords = "product_words_pkey" on product_words (account_id, word, product_id);
    /// Each account's commit count, in shards (PostgreSQL only: SQLite's writer tells
    /// the serving process directly).
    AccountVersions = "account_versions_pkey" on account_versions (account_id, shard);
    /// SKUs per seller (a variant may have none).
    VariantsSku = "variants_sku_key" on variants (seller_id, sku);
    ProductAssetData = "product_asset_data_pkey" on product_asset_data (asset_id);
    CollectionsSlug = "collections_slug_key" on collections (seller_id, slug);
    CollectionProducts = "collection_products_pkey" on collection_products (collection_id, product_id);
    /// One price per variant and minimum quantity in a price list.
    PriceListItemsTier = "price_list_items_tier_key" on price_list_items (price_list_id, variant_id, min_quantity);
    WebhookDeliveriesEvent = "webhook_deliveries_event_key" on webhook_deliveries (webhook_id, event_id);
    OrderCodes = "order_codes_pkey" on order_codes (shop_id);
    OrdersCode = "orders_code_key" on orders (shop_id, code);
    OrderDocumentNumbers = "order_document_numbers_pkey" on order_document_numbers (shop_id, kind);
    /// A document's number is its shop's and kind's, once.
    OrderDocumentsNumber = "order_documents_number_key" on order_documents (shop_id, kind, number);
    OrderDocumentFiles = "order_document_files_pkey" on order_document_files (document_id);
    /// Emails per seller, whatever their case (a customer may have none).
    CustomersEmail = "customers_email_key" on customers (seller_id, email_key);
    CustomerTags = "customer_tags_pkey" on customer_tags (customer_id, tag_key);
    CustomerSpending = "customer_spending_pkey" on customer_spending (customer_id, currency_code);
    CustomerPasswordResets = "customer_password_resets_pkey" on customer_password_resets (digest);
    /// One refund per charge: refunds are written once under the order's lock, so only
    /// a bug reaches it.
    PaymentsCharge = "payments_charge_key" on payments (charge_id);
    /// One subscription purchase per recurring order line: purchases are opened under the
    /// order's lock, so only a bug reaches it.
    SubscriptionPurchasesLine = "subscription_purchases_line_key" on subscription_purchases (original_line_id);
    /// One renewal order per purchase and cycle: written under the purchase's lock, so only
    /// a bug (or a second node that lost its lock) reaches it.
    OrdersRenewal = "orders_renewal_key" on orders (subscription_purchase_id, renewal_on);
    /// One rate per shop and pair of currencies.
    ExchangeRatesCurrency = "exchange_rates_currency_key" on exchange_rates (shop_id, from_currency, to_currency);
    /// A user is on a shop's roster once.
    ShopAdminsUser = "shop_admins_user_key" on shop_admins (shop_id, user_id);
    ShopAdminInvitations = "shop_admin_invitations_pkey" on shop_admin_invitations (digest);
    /// One lease per singleton job (taken with an upsert, so only a race reaches it).
    Leases = "leases_pkey" on leases (name);
}

impl UniqueIndex {
    /// Whether only PostgreSQL's schema has the index (see `ProductWords`).
    pub const fn postgres_only(self) -> bool {
        matches!(
            self,
            UniqueIndex::ProductWords | UniqueIndex::AccountVersions
        )
    }

    /// The index named `name` (PostgreSQL's report).
    pub fn by_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|i| i.name() == name)
    }

    /// The index on exactly these columns of `table`, in this order.
    pub fn by_columns(table: &str, columns: &[&str]) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|i| i.table() == table && i.columns() == columns)
    }

    /// The index a SQLite report names: `UNIQUE constraint failed: t.a, t.b`, or
    /// `… failed: index 'name'` for an index on expressions.
    pub(crate) fn from_sqlite_message(message: &str) -> Option<Self> {
        let failed = message.strip_prefix("UNIQUE constraint failed: ")?;
        if let Some(name) = failed.strip_prefix("index '") {
            return Self::by_name(name.strip_suffix('\'')?);
        }
        let mut table = None;
        let mut columns = Vec::new();
        for qualified in failed.split(", ") {
            let (t, column) = qualified.split_once('.')?;
            if *table.get_or_insert(t) != t {
                return None;
            }
            columns.push(column);
        }
        Self::by_columns(table?, &columns)
    }
}

impl std::fmt::Display for UniqueIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_column_lists_are_unique() {
        for (i, a) in UniqueIndex::ALL.iter().enumerate() {
            for b in &UniqueIndex::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
                assert!(
                    a.table() != b.table() || a.columns() != b.columns(),
                    "{a} {b}"
                );
            }
        }
    }

    #[test]
    fn sqlite_reports_are_resolved() {
        let resolve = UniqueIndex::from_sqlite_message;
        assert_eq!(
            resolve("UNIQUE constraint failed: products.seller_id, products.slug"),
            Some(UniqueIndex::ProductsSlug)
        );
        assert_eq!(
            resolve("UNIQUE constraint failed: order_codes.shop_id"),
            Some(UniqueIndex::OrderCodes)
        );
        assert_eq!(
            resolve("UNIQUE constraint failed: index 'variants_sku_key'"),
            Some(UniqueIndex::VariantsSku)
        );
        for unknown in [
            "UNIQUE constraint failed: products.id",
            "UNIQUE constraint failed: products.slug",
            "UNIQUE constraint failed: products.seller_id, shops.slug",
            "UNIQUE constraint failed: index 'nothing'",
            "NOT NULL constraint failed: products.slug",
        ] {
            assert_eq!(resolve(unknown), None, "{unknown}");
        }
    }
}
