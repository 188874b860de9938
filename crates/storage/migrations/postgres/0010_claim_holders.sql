-- The claims a node holds, by node: a node restarted on the same host finds those of its
-- killed predecessors at once, to take them over rather than wait for them to run out.
-- Only claimed deliveries name a holder, so the index stays as small as the work in flight.
CREATE INDEX webhook_deliveries_holder_idx ON webhook_deliveries (lease_owner)
    WHERE lease_owner IS NOT NULL;
