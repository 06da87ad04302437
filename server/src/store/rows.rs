//! The store's rows (episodes, steps, runs) as the rest of the server sees them, and how they are
//! read back: decoded from a database row, a step record unpacked from its LZ4 block.

use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::Row as _;
use sqlx::any::AnyRow;

use agentbench_env_runtime::Mode;

use super::StoreError;
use crate::ids::{EpisodeId, RunId};

/// Where an episode is in its life, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpisodeState {
    /// It takes actions (when its env is served).
    Open,
    /// It ended: terminated or truncated.
    Over,
    /// It sat idle past the server's time-to-live.
    Expired,
    /// Its client gave up on it before it ended (the agent failed).
    Abandoned,
}

impl EpisodeState {
    pub fn as_str(self) -> &'static str {
        match self {
            EpisodeState::Open => "open",
            EpisodeState::Over => "over",
            EpisodeState::Expired => "expired",
            EpisodeState::Abandoned => "abandoned",
        }
    }

    pub(super) fn parse(text: &str) -> Result<EpisodeState, StoreError> {
        match text {
            "open" => Ok(EpisodeState::Open),
            "over" => Ok(EpisodeState::Over),
            "expired" => Ok(EpisodeState::Expired),
            "abandoned" => Ok(EpisodeState::Abandoned),
            other => Err(StoreError::Corrupt {
                what: "episode state",
                reason: format!("unknown state `{other}`"),
            }),
        }
    }
}

/// An episode's row: what it is, not its steps.
#[derive(Debug, Clone)]
pub struct EpisodeRow {
    pub id: EpisodeId,
    pub env: String,
    pub env_version: String,
    pub env_hash: String,
    pub seed: u64,
    /// The task config as JSON text.
    pub task: String,
    /// The first observation as JSON text.
    pub observation: String,
    /// The episode it was forked from, and after how many of that one's steps.
    pub forked_from: Option<(EpisodeId, u32)>,
    pub state: EpisodeState,
    /// The outcome checks as JSON text, once over.
    pub outcome: Option<String>,
    pub created_ms: i64,
    /// How its policies act on forbidden calls: `enforce` or `audit`.
    pub mode: Mode,
    /// Whose it is: only keys of this tenant see or change it.
    pub tenant: String,
    /// The suite run it was played for, when a run played it: it is that run's evidence.
    pub run_id: Option<RunId>,
}

/// One recorded step.
#[derive(Debug, Clone)]
pub struct StepRow {
    pub index: u32,
    pub request_id: Option<String>,
    /// The step record as JSON text.
    pub record: String,
}

/// A suite run as stored: what ran, and its report once done.
#[derive(Debug, Clone)]
pub struct RunRow {
    pub id: RunId,
    pub suite: String,
    pub suite_version: String,
    pub suite_hash: String,
    pub agent: String,
    /// The run's settings, JSON.
    pub settings: String,
    /// `running` or `done`.
    pub state: String,
    /// The report, JSON, once done.
    pub report: Option<String>,
    pub created_ms: i64,
    pub ended_ms: Option<i64>,
    /// Whose it is: only keys of this tenant see it (unless the leaderboard is public).
    pub tenant: String,
}

pub(super) fn episode_row(row: &AnyRow) -> Result<EpisodeRow, StoreError> {
    let forked_from: Option<String> = row.try_get("forked_from")?;
    let forked_after: Option<i64> = row.try_get("forked_after")?;
    let state: String = row.try_get("state")?;
    let mode: String = row.try_get("mode")?;
    Ok(EpisodeRow {
        id: EpisodeId::from(row.try_get::<String, _>("id")?),
        env: row.try_get("env")?,
        env_version: row.try_get("env_version")?,
        env_hash: row.try_get("env_hash")?,
        seed: row.try_get::<i64, _>("seed")?.cast_unsigned(),
        task: row.try_get("task")?,
        observation: row.try_get("observation")?,
        forked_from: forked_from
            .map(EpisodeId::from)
            .zip(forked_after.map(index)),
        state: EpisodeState::parse(&state)?,
        outcome: row.try_get("outcome")?,
        created_ms: row.try_get("created_ms")?,
        mode: mode.parse().map_err(|reason| StoreError::Corrupt {
            what: "mode",
            reason,
        })?,
        tenant: row.try_get("tenant")?,
        run_id: row.try_get::<Option<String>, _>("run_id")?.map(RunId::from),
    })
}

pub(super) fn run_row(row: &AnyRow) -> Result<RunRow, StoreError> {
    Ok(RunRow {
        id: RunId::from(row.try_get::<String, _>("id")?),
        suite: row.try_get("suite")?,
        suite_version: row.try_get("suite_version")?,
        suite_hash: row.try_get("suite_hash")?,
        agent: row.try_get("agent")?,
        settings: row.try_get("settings")?,
        state: row.try_get("state")?,
        report: row.try_get("report")?,
        created_ms: row.try_get("created_ms")?,
        ended_ms: row.try_get("ended_ms")?,
        tenant: row.try_get("tenant")?,
    })
}

pub(super) fn step_row(row: &AnyRow) -> Result<StepRow, StoreError> {
    let record = match row.try_get::<Option<&[u8]>, _>("record_lz4")? {
        Some(packed) => unpack(packed)?,
        // Recorded before records were compressed (migration 5).
        None => row
            .try_get::<Option<String>, _>("record")?
            .ok_or_else(|| corrupt_record("it has neither `record` nor `record_lz4`"))?,
    };
    Ok(StepRow {
        index: index(row.try_get("idx")?),
        request_id: row.try_get("request_id")?,
        record,
    })
}

/// A step record as stored in `record_lz4`: its length as 4 little-endian bytes, then the LZ4
/// block. About a third of the JSON text (a workspace step's 3.5 KB become 1.3 KB), so a third of
/// the table's pages to write, checkpoint and keep, for a few µs of compression a step.
pub(super) fn pack(record: &str) -> Vec<u8> {
    lz4_flex::compress_prepend_size(record.as_bytes())
}

/// The record text `pack` stored.
fn unpack(packed: &[u8]) -> Result<String, StoreError> {
    // An LZ4 block expands at most about 255-fold; a length past that is corruption, not a
    // reason to allocate gigabytes.
    let claimed = packed
        .first_chunk::<4>()
        .map_or(0, |length| u32::from_le_bytes(*length) as usize);
    if claimed > 255 * packed.len() {
        return Err(corrupt_record(format!(
            "it claims {claimed} bytes from {} compressed",
            packed.len()
        )));
    }
    let bytes = lz4_flex::decompress_size_prepended(packed)
        .map_err(|error| corrupt_record(error.to_string()))?;
    String::from_utf8(bytes).map_err(|error| corrupt_record(error.to_string()))
}

fn corrupt_record(reason: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        what: "step record",
        reason: reason.into(),
    }
}

pub(super) fn index(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::{StoreError, pack, unpack};

    #[test]
    fn records_unpack_to_what_was_packed_and_damage_is_an_error() {
        let record = r#"{"index":3,"observation":{"text":"héllo héllo héllo héllo"}}"#;
        let packed = pack(record);
        assert_eq!(unpack(&packed).unwrap(), record);
        assert_eq!(unpack(&pack("")).unwrap(), "");

        let corrupt = |packed: &[u8]| matches!(unpack(packed), Err(StoreError::Corrupt { .. }));
        assert!(corrupt(&[]));
        assert!(corrupt(&packed[..packed.len() - 3]));
        let mut huge = packed.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(corrupt(&huge));
        // Valid LZ4 of bytes that are not UTF-8.
        assert!(corrupt(&lz4_flex::compress_prepend_size(&[
            0xff, 0xfe, 0xfd
        ])));
    }
}
