//! This node's lanes of claimed deliveries, one per subscription: at most `per_lane`
//! attempts in flight (sent, and not yet recorded) for one subscription and `max_sending`
//! in all, with up to twice as many waiting per subscription, so that a slow target holds
//! only its own share, a crash cuts short no more than that, and a fast target never
//! waits for a database round trip between attempts: a lane is refilled while it still
//! has a share waiting.

use std::collections::{HashMap, HashSet, VecDeque};

/// What waits in a lane.
pub trait Queued {
    /// The resource whose deliveries go out one at a time and in order, when the
    /// subscription orders them per resource.
    fn sequence(&self) -> Option<&str>;
}

pub struct Lanes<T> {
    lanes: HashMap<i64, Lane<T>>,
    per_lane: usize,
    max_sending: usize,
    sending: usize,
    held: usize,
}

/// The room a claim may fill, counted down as it takes deliveries.
pub struct Quota {
    left: HashMap<i64, usize>,
    /// The room of a subscription with no lane yet.
    fresh: usize,
    total: usize,
}

impl Quota {
    /// Takes room for a delivery of this subscription, if there is some.
    pub fn take(&mut self, webhook: i64) -> bool {
        let left = self.left.entry(webhook).or_insert(self.fresh);
        if *left == 0 || self.total == 0 {
            return false;
        }
        *left -= 1;
        self.total -= 1;
        true
    }
}

struct Lane<T> {
    sending: usize,
    waiting: VecDeque<T>,
    /// Ordered resources with an attempt out and no successful answer yet: the next
    /// delivery about each waits for it.
    busy: HashSet<String>,
}

impl<T: Queued> Lane<T> {
    fn held(&self) -> usize {
        self.sending + self.waiting.len()
    }

    /// Takes out every waiting delivery about an ordered resource, in order.
    fn take_sequence(&mut self, key: &str) -> Vec<T> {
        let mut taken = Vec::new();
        for item in std::mem::take(&mut self.waiting) {
            if item.sequence() == Some(key) {
                taken.push(item);
            } else {
                self.waiting.push_back(item);
            }
        }
        taken
    }
}

/// What an attempt's record means for its lane.
pub struct Recorded<T> {
    /// The lane may be refilled.
    pub refill: bool,
    /// A delivery about an ordered resource went through, and none about it waits or is
    /// unanswered on this node: the resource's next deliveries may be claimable.
    pub sequence_ended: bool,
    /// The deliveries about the same ordered resource that waited behind an attempt that
    /// failed: they go back, and wait in the database behind its retry.
    pub held_back: Vec<T>,
}

impl<T: Queued> Lanes<T> {
    pub fn new(per_lane: usize, max_sending: usize) -> Self {
        Self {
            lanes: HashMap::new(),
            per_lane: per_lane.max(1),
            max_sending: max_sending.max(1),
            sending: 0,
            held: 0,
        }
    }

    /// Deliveries in flight or waiting.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.held
    }

    /// How many more deliveries may be claimed: twice what may be in flight, in all.
    pub fn room(&self) -> usize {
        (2 * self.max_sending).saturating_sub(self.held)
    }

    /// What a lane holds at most: its share in flight and twice that waiting.
    pub fn capacity(&self) -> usize {
        3 * self.per_lane
    }

    /// A lane holding no more than this may be refilled: a share still waits when its
    /// share in flight is sent.
    fn refill_mark(&self) -> usize {
        2 * self.per_lane
    }

    /// Subscriptions not to claim for now: holding more than their refill mark.
    pub fn full(&self) -> Vec<i64> {
        let mark = self.refill_mark();
        self.lanes
            .iter()
            .filter(|(_, lane)| lane.held() > mark)
            .map(|(id, _)| *id)
            .collect()
    }

    /// What a claim may take now: what each lane has room for, and no more than
    /// [`room`](Self::room) in all.
    pub fn quota(&self) -> Quota {
        Quota {
            left: self
                .lanes
                .iter()
                .map(|(id, lane)| (*id, self.capacity().saturating_sub(lane.held())))
                .collect(),
            fresh: self.capacity(),
            total: self.room(),
        }
    }

    /// Whether a claim could add anything: some lane is below its refill mark, or none is
    /// full at all.
    pub fn refillable(&self) -> bool {
        let mark = self.refill_mark();
        self.lanes.is_empty() || self.lanes.values().any(|lane| lane.held() <= mark)
    }

    /// Takes a claimed delivery into its subscription's lane, or gives it back when the
    /// lane is at capacity.
    pub fn admit(&mut self, webhook: i64, item: T) -> Result<(), T> {
        let capacity = self.capacity();
        let lane = self.lanes.entry(webhook).or_insert_with(|| Lane {
            sending: 0,
            waiting: VecDeque::new(),
            busy: HashSet::new(),
        });
        if lane.held() >= capacity {
            return Err(item);
        }
        lane.waiting.push_back(item);
        self.held += 1;
        Ok(())
    }

    /// The waiting deliveries that may be sent now, marked as in flight: in each lane, in
    /// the order they came, but only one at a time about an ordered resource. Those that
    /// `fresh` rejects (their claim runs out too soon) are dropped and answered apart,
    /// with every later one about the same ordered resource, which must not overtake them.
    pub fn ready(&mut self, fresh: impl Fn(&T) -> bool) -> (Vec<(i64, T)>, Vec<T>) {
        let mut ready = Vec::new();
        let mut stale = Vec::new();
        for (id, lane) in &mut self.lanes {
            // Unordered deliveries leave from the front; an ordered one whose resource is
            // busy is stepped over, and waits in its place.
            let mut next = 0;
            while next < lane.waiting.len()
                && lane.sending < self.per_lane
                && self.sending < self.max_sending
            {
                if lane.waiting[next]
                    .sequence()
                    .is_some_and(|key| lane.busy.contains(key))
                {
                    next += 1;
                    continue;
                }
                let Some(item) = lane.waiting.remove(next) else {
                    break;
                };
                if fresh(&item) {
                    if let Some(key) = item.sequence() {
                        lane.busy.insert(key.to_owned());
                    }
                    lane.sending += 1;
                    self.sending += 1;
                    ready.push((*id, item));
                } else {
                    // What follows it about the same resource must not overtake it.
                    let key = item.sequence().map(str::to_owned);
                    self.held -= 1;
                    stale.push(item);
                    if let Some(key) = key {
                        let behind = lane.take_sequence(&key);
                        self.held -= behind.len();
                        stale.extend(behind);
                    }
                }
            }
        }
        self.lanes.retain(|_, lane| lane.held() > 0);
        (ready, stale)
    }

    /// An attempt about an ordered resource was answered with success: the next about the
    /// same resource may go, before this one is recorded.
    pub fn answered(&mut self, webhook: i64, sequence: &str) {
        if let Some(lane) = self.lanes.get_mut(&webhook) {
            lane.busy.remove(sequence);
        }
    }

    /// An attempt of this subscription was recorded (`delivered` when it went through):
    /// its slot is free.
    pub fn finished(
        &mut self,
        webhook: i64,
        sequence: Option<&str>,
        delivered: bool,
    ) -> Recorded<T> {
        let mark = self.refill_mark();
        let Some(lane) = self.lanes.get_mut(&webhook) else {
            return Recorded {
                refill: true,
                sequence_ended: sequence.is_some() && delivered,
                held_back: Vec::new(),
            };
        };
        if lane.sending > 0 {
            lane.sending -= 1;
            self.sending -= 1;
            self.held -= 1;
        }
        let mut held_back = Vec::new();
        let mut sequence_ended = false;
        if let Some(key) = sequence {
            if delivered {
                // Its answer freed the resource; the next about it may be out already.
                sequence_ended = !lane.busy.contains(key)
                    && !lane.waiting.iter().any(|item| item.sequence() == Some(key));
            } else {
                // A failed attempt kept the resource busy until now.
                lane.busy.remove(key);
                held_back = lane.take_sequence(key);
                self.held -= held_back.len();
            }
        }
        let held = lane.held();
        if held == 0 {
            self.lanes.remove(&webhook);
        }
        Recorded {
            refill: held <= mark,
            sequence_ended,
            held_back,
        }
    }

    /// Attempts in flight, in all.
    pub fn sending(&self) -> usize {
        self.sending
    }

    /// Every waiting delivery, to be given back (the node stops).
    pub fn take_waiting(&mut self) -> Vec<T> {
        let waiting: Vec<T> = self
            .lanes
            .values_mut()
            .flat_map(|lane| lane.waiting.drain(..))
            .collect();
        self.held -= waiting.len();
        self.lanes.retain(|_, lane| lane.held() > 0);
        waiting
    }

    /// Stops a subscription's lane (its target asked to be left alone, or it is no longer
    /// active): answers the deliveries that were waiting, to be given back.
    pub fn halt(&mut self, webhook: i64) -> Vec<T> {
        let Some(lane) = self.lanes.get_mut(&webhook) else {
            return Vec::new();
        };
        let waiting: Vec<T> = lane.waiting.drain(..).collect();
        self.held -= waiting.len();
        if lane.held() == 0 {
            self.lanes.remove(&webhook);
        }
        waiting
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Queued for u32 {
        fn sequence(&self) -> Option<&str> {
            None
        }
    }

    /// A delivery about an ordered resource.
    #[derive(Debug, PartialEq)]
    struct About(&'static str, u32);

    impl Queued for About {
        fn sequence(&self) -> Option<&str> {
            Some(self.0)
        }
    }

    fn started(ready: Vec<(i64, About)>) -> Vec<u32> {
        ready.into_iter().map(|(_, About(_, n))| n).collect()
    }

    fn ids(ready: &[(i64, u32)]) -> Vec<u32> {
        let mut items: Vec<u32> = ready.iter().map(|(_, item)| *item).collect();
        items.sort_unstable();
        items
    }

    #[test]
    fn a_lane_sends_its_share_and_keeps_twice_as_many_waiting() {
        let mut lanes = Lanes::new(2, 100);
        for item in 0..7 {
            let admitted = lanes.admit(7, item);
            assert_eq!(admitted.is_ok(), item < 6, "item {item}");
        }
        let (ready, stale) = lanes.ready(|_| true);
        assert_eq!(ids(&ready), vec![0, 1]);
        assert!(stale.is_empty());
        assert_eq!(
            lanes.full(),
            vec![7],
            "6 held is above the refill mark of 4"
        );
        assert!(!lanes.refillable());
        assert!(lanes.ready(|_| true).0.is_empty(), "two in flight already");
        assert!(
            !lanes.finished(7, None, true).refill,
            "5 held is still above the mark"
        );
        assert_eq!(ids(&lanes.ready(|_| true).0), vec![2]);
        assert!(
            lanes.finished(7, None, true).refill,
            "4 held, a share of them waiting: the lane may be refilled"
        );
        assert!(lanes.full().is_empty());
        assert!(lanes.refillable());
        assert_eq!(lanes.held(), 4);
    }

    #[test]
    fn a_quota_takes_what_each_lane_has_room_for() {
        let mut lanes = Lanes::new(2, 4);
        for item in 0..5 {
            lanes.admit(1, item).unwrap();
        }
        let mut quota = lanes.quota();
        assert!(quota.take(1), "one place left of six");
        assert!(!quota.take(1));
        let taken = (0..6).filter(|_| quota.take(2)).count();
        assert_eq!(taken, 2, "eight in all, five held, one taken for lane 1");
        assert!(!quota.take(3), "nothing left in all");
    }

    #[test]
    fn the_node_wide_cap_holds_across_lanes() {
        let mut lanes = Lanes::new(4, 3);
        for webhook in 1..=3 {
            for item in 0..2 {
                lanes.admit(webhook, webhook as u32 * 10 + item).unwrap();
            }
        }
        assert_eq!(lanes.ready(|_| true).0.len(), 3);
        assert!(lanes.ready(|_| true).0.is_empty());
        assert_eq!(lanes.room(), 0);
    }

    #[test]
    fn stale_and_halted_deliveries_are_answered_for_giving_back() {
        let mut lanes = Lanes::new(1, 10);
        for item in 0..2 {
            lanes.admit(1, item).unwrap();
        }
        lanes.admit(2, 9).unwrap();
        let (ready, stale) = lanes.ready(|item| *item != 9);
        assert_eq!(ids(&ready), vec![0]);
        assert_eq!(stale, vec![9]);
        assert_eq!(lanes.halt(1), vec![1]);
        assert_eq!(lanes.held(), 1, "only the attempt in flight");
        assert!(lanes.finished(1, None, true).refill);
        assert_eq!(lanes.held(), 0);
        assert!(lanes.halt(1).is_empty());
    }

    #[test]
    fn taking_the_waiting_leaves_only_what_is_in_flight() {
        let mut lanes = Lanes::new(1, 10);
        for webhook in 1..=2 {
            for item in 0..3 {
                lanes.admit(webhook, webhook as u32 * 10 + item).unwrap();
            }
        }
        assert_eq!(ids(&lanes.ready(|_| true).0), vec![10, 20]);
        let mut waiting = lanes.take_waiting();
        waiting.sort_unstable();
        assert_eq!(waiting, vec![11, 12, 21, 22]);
        assert_eq!((lanes.held(), lanes.sending()), (2, 2));
        assert!(lanes.ready(|_| true).0.is_empty());
        lanes.finished(1, None, true);
        lanes.finished(2, None, true);
        assert_eq!((lanes.held(), lanes.sending()), (0, 0));
    }

    #[test]
    fn an_ordered_resource_goes_one_at_a_time_and_in_order() {
        let mut lanes = Lanes::new(4, 100);
        for (key, n) in [("a", 1), ("a", 2), ("b", 3), ("a", 4)] {
            lanes.admit(1, About(key, n)).unwrap();
        }
        assert_eq!(
            started(lanes.ready(|_| true).0),
            vec![1, 3],
            "one per resource"
        );
        assert!(
            lanes.ready(|_| true).0.is_empty(),
            "a waits for its first answer"
        );
        lanes.answered(1, "a");
        assert_eq!(
            started(lanes.ready(|_| true).0),
            vec![2],
            "a's next goes before the first is recorded"
        );
        let first = lanes.finished(1, Some("a"), true);
        assert!(
            !first.sequence_ended,
            "a's second is out and its third waits"
        );
        assert!(
            lanes.ready(|_| true).0.is_empty(),
            "the second is unanswered"
        );
        lanes.answered(1, "a");
        assert_eq!(started(lanes.ready(|_| true).0), vec![4]);
        assert!(
            !lanes.finished(1, Some("a"), true).sequence_ended,
            "a's third is unanswered"
        );
        lanes.answered(1, "a");
        assert!(lanes.finished(1, Some("a"), true).sequence_ended);
    }

    #[test]
    fn a_failed_attempt_sends_back_what_waits_behind_it() {
        let mut lanes = Lanes::new(4, 100);
        for (key, n) in [("a", 1), ("a", 2), ("b", 3), ("a", 4)] {
            lanes.admit(1, About(key, n)).unwrap();
        }
        assert_eq!(started(lanes.ready(|_| true).0), vec![1, 3]);
        let failed = lanes.finished(1, Some("a"), false);
        assert_eq!(failed.held_back, vec![About("a", 2), About("a", 4)]);
        assert!(!failed.sequence_ended);
        assert_eq!(lanes.held(), 1, "only b's attempt");
        lanes.admit(1, About("a", 5)).unwrap();
        assert_eq!(
            started(lanes.ready(|_| true).0),
            vec![5],
            "a is free again once its failure is recorded"
        );
    }

    #[test]
    fn a_stale_delivery_takes_the_later_ones_about_its_resource_with_it() {
        let mut lanes = Lanes::new(4, 100);
        for (key, n) in [("a", 1), ("a", 2), ("a", 3), ("b", 4)] {
            lanes.admit(1, About(key, n)).unwrap();
        }
        assert_eq!(started(lanes.ready(|_| true).0), vec![1, 4]);
        lanes.answered(1, "a");
        let (ready, stale) = lanes.ready(|About(_, n)| *n != 2);
        assert!(ready.is_empty(), "3 must not overtake 2");
        assert_eq!(stale, vec![About("a", 2), About("a", 3)]);
        assert_eq!(lanes.held(), 2);
    }

    #[test]
    fn a_stale_delivery_takes_its_followers_even_beyond_the_lanes_share() {
        let mut lanes = Lanes::new(2, 100);
        for (key, n) in [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5)] {
            lanes.admit(1, About(key, n)).unwrap();
        }
        assert_eq!(started(lanes.ready(|_| true).0), vec![1, 2]);
        lanes.answered(1, "a");
        lanes.finished(1, Some("a"), true);
        let (ready, stale) = lanes.ready(|About(_, n)| *n != 3);
        assert_eq!(started(ready), vec![4], "the lane's share is full again");
        assert_eq!(stale, vec![About("a", 3), About("a", 5)]);
        assert_eq!(lanes.held(), 2);
    }

    mod sequences {
        use std::collections::BTreeMap;

        use proptest::prelude::*;

        use super::*;

        /// A delivery about resource `key` (ordered) or about none, numbered in the order
        /// claims take them.
        #[derive(Debug)]
        struct Item {
            key: Option<&'static str>,
            id: u32,
        }

        impl Queued for Item {
            fn sequence(&self) -> Option<&str> {
                self.key
            }
        }

        #[derive(Clone, Debug)]
        enum Step {
            Admit(Option<&'static str>),
            /// Sends what may go; those whose id is a multiple of this are stale.
            Ready(u32),
            /// The oldest unanswered attempt is answered: with success or not.
            Answer(bool),
            /// The oldest answered attempt is recorded.
            Record,
        }

        fn step() -> impl Strategy<Value = Step> {
            let key = prop::option::of(prop::sample::select(vec!["a", "b", "c"]));
            prop_oneof![
                3 => key.prop_map(Step::Admit),
                2 => (2u32..7).prop_map(Step::Ready),
                2 => any::<bool>().prop_map(Step::Answer),
                2 => Just(Step::Record),
            ]
        }

        proptest! {
            /// Whatever happens, a delivery about an ordered resource is sent only when
            /// every earlier one about it still held went through, and one that leaves
            /// unsent takes every later one about its resource with it.
            #[test]
            fn no_delivery_overtakes_an_earlier_one_about_its_resource(
                per_lane in 1usize..4,
                steps in prop::collection::vec(step(), 1..80),
            ) {
                let mut lanes = Lanes::new(per_lane, 100);
                let mut next_id = 0;
                // Held deliveries by id: key, and whether sent and answered with success.
                let mut held: BTreeMap<u32, (Option<&'static str>, bool, bool)> = BTreeMap::new();
                let mut unanswered: VecDeque<(u32, Option<&'static str>)> = VecDeque::new();
                let mut answered: VecDeque<(u32, Option<&'static str>, bool)> = VecDeque::new();
                let gone = |held: &mut BTreeMap<u32, (Option<&'static str>, bool, bool)>,
                                items: Vec<Item>| {
                    for item in &items {
                        let (_, sent, _) = held.remove(&item.id).expect("held");
                        prop_assert!(!sent);
                    }
                    for item in items {
                        if let Some(key) = item.key {
                            let later_waiting = held.iter().any(|(id, (k, sent, _))| {
                                *id > item.id && *k == Some(key) && !sent
                            });
                            prop_assert!(!later_waiting, "{key}: a later one stays behind {}", item.id);
                        }
                    }
                    Ok(())
                };
                for step in steps {
                    match step {
                        Step::Admit(key) => {
                            next_id += 1;
                            if lanes.admit(1, Item { key, id: next_id }).is_ok() {
                                held.insert(next_id, (key, false, false));
                            }
                        }
                        Step::Ready(stale_every) => {
                            let (ready, stale) = lanes.ready(|item| item.id % stale_every != 0);
                            gone(&mut held, stale)?;
                            for (_, item) in ready {
                                if let Some(key) = item.key {
                                    let blocked = held.iter().any(|(id, (k, _, through))| {
                                        *id < item.id && *k == Some(key) && !through
                                    });
                                    prop_assert!(!blocked, "{} overtook an earlier one about {key}", item.id);
                                }
                                held.get_mut(&item.id).expect("held").1 = true;
                                unanswered.push_back((item.id, item.key));
                            }
                        }
                        Step::Answer(success) => {
                            if let Some((id, key)) = unanswered.pop_front() {
                                if success {
                                    held.get_mut(&id).expect("held").2 = true;
                                    if let Some(key) = key {
                                        lanes.answered(1, key);
                                    }
                                }
                                answered.push_back((id, key, success));
                            }
                        }
                        Step::Record => {
                            if let Some((id, key, success)) = answered.pop_front() {
                                held.remove(&id);
                                let recorded = lanes.finished(1, key, success);
                                gone(&mut held, recorded.held_back)?;
                            }
                        }
                    }
                    prop_assert_eq!(lanes.held(), held.len());
                }
            }
        }
    }
}
