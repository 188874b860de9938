//! The exchange rates' link relations (in the shops namespace: they are shop settings).

crate::rels::define_rels! {
    SHOPS_EXCHANGE_RATES = ("shops", "exchange_rates", Get, "Exchange rates of the shop",
        "The shop's exchange rates, as a paginated list. Parameters: from_currency, to_currency \
         (comma-separated ISO 4217 codes), sort (to_currency, id, created_on, updated_on, each .asc or \
         .desc; default to_currency.asc), page, per_page. Needs shops.read.");
    SHOPS_EXCHANGE_RATE = ("shops", "exchange_rate", Get, "Exchange rate",
        "What one unit of from_currency (the shop's currency when the rate was written) buys of \
         to_currency: rate, a decimal string with at most 6 places (\"950.25\"). An order with \
         currency_code to_currency is priced with it: each unit price and the shipping are converted once \
         to the order currency's minor unit, rounded half up (exactly half a minor unit goes up), and the \
         totals add up the converted amounts. The order keeps the rate it used (exchange_rate), so a \
         later change leaves it as it is. A rate from a currency the shop no longer sells in prices no \
         order. Needs shops.read.");
    SHOPS_CREATE_EXCHANGE_RATE = ("shops", "create_exchange_rate", Post, "Create an exchange rate",
        "Body: to_currency (ISO 4217, not the shop's own) and rate (a decimal string above 0, at most 6 \
         places, at most 10^9). One rate per currency: a second is a 422 on to_currency. Answers 201 and \
         records shops.exchange_rates.created. Needs shops.write.");
    SHOPS_UPDATE_EXCHANGE_RATE = ("shops", "update_exchange_rate", Put, "Update the exchange rate",
        "Body: rate. Orders in checkout are priced with the new rate when they next change or are placed; \
         placed orders keep theirs. Honours If-Match. Records shops.exchange_rates.updated. Needs \
         shops.write.");
    SHOPS_DELETE_EXCHANGE_RATE = ("shops", "delete_exchange_rate", Delete, "Delete the exchange rate",
        "Deletes the rate; an order in checkout in its currency can no longer be placed. Honours If-Match. \
         Records shops.exchange_rates.deleted. Needs shops.write.");
}
