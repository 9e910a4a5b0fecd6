//! How many long polls each agent has waiting: each holds a connection and a task, so one
//! agent (one token) must not be able to hold thousands.

use std::sync::Arc;

use moot_kernel::world::AgentId;

/// Counts each agent's waiting long polls: each holds a connection and a task, so one agent
/// (one token) must not be able to hold thousands.
pub(super) struct Polls {
    pub(super) max: usize,
    waiting: std::sync::Mutex<std::collections::HashMap<AgentId, usize>>,
}

/// One waiting long poll; the count goes down when it ends, however it ends.
pub(super) struct PollSlot {
    polls: Arc<Polls>,
    agent: AgentId,
}

impl Polls {
    /// At most `max` waiting polls per agent (none: no limit).
    pub(super) fn new(max: usize) -> Polls {
        Polls {
            max,
            waiting: std::sync::Mutex::default(),
        }
    }

    pub(super) fn enter(self: &Arc<Self>, agent: &AgentId) -> Option<PollSlot> {
        let mut map = self
            .waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = map.entry(agent.clone()).or_default();
        if self.max > 0 && *n >= self.max {
            return None;
        }
        *n += 1;
        moot_kernel::metrics::get()
            .long_polls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(PollSlot {
            polls: self.clone(),
            agent: agent.clone(),
        })
    }
}

impl Drop for PollSlot {
    fn drop(&mut self) {
        moot_kernel::metrics::get()
            .long_polls
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        let mut map = self
            .polls
            .waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = map.get_mut(&self.agent) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.agent);
            }
        }
    }
}
