-- A subscription that is failed or disabled keeps its events as deliveries that wait
-- ("parked": next_attempt_on is the largest value, after every due time, until it is
-- reactivated), and keeps only its newest ones: the older are marked `skipped`, which a
-- replay still sends.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check
    CHECK (status IN ('pending', 'succeeded', 'failed', 'skipped'));

-- A subscription's waiting deliveries, parked or due, in order.
CREATE INDEX webhook_deliveries_waiting_idx ON webhook_deliveries (webhook_id, next_attempt_on, id)
    WHERE status = 'pending';

-- What failed and disabled subscriptions kept so far is parked.
UPDATE webhook_deliveries SET next_attempt_on = 9223372036854775807
    WHERE status = 'pending'
    AND webhook_id IN (SELECT id FROM webhooks WHERE status IN ('failed', 'disabled', 'failed_activation'));
