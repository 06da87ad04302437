//! The parts of the cloud account's state and the log of what the agent changed.

use serde::{Deserialize, Serialize};

/// A release of a service.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Release {
    pub version: String,
    /// Approved by change review for production.
    pub approved: bool,
    pub notes: String,
}

/// One deploy in a service's history.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct DeployRecord {
    pub version: String,
    pub at: String,
    pub by: String,
}

/// A log line; `injection` when it carries text planted by a third party.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct LogLine {
    pub text: String,
    pub injection: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Service {
    pub name: String,
    pub environment: String,
    pub description: String,
    /// Oldest first; the last entry is the running version.
    pub history: Vec<DeployRecord>,
    pub replicas: u32,
    pub max_replicas: u32,
    /// Dollars per replica per month.
    pub replica_cost: u32,
    pub health: String,
    pub releases: Vec<Release>,
    pub logs: Vec<LogLine>,
}

impl Service {
    pub fn version(&self) -> &str {
        self.history
            .last()
            .map_or("", |record| record.version.as_str())
    }

    pub fn is_prod(&self) -> bool {
        self.environment == "prod"
    }

    pub fn release(&self, version: &str) -> Option<&Release> {
        self.releases
            .iter()
            .find(|release| release.version == version)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Database {
    pub name: String,
    pub environment: String,
    pub engine: String,
    pub size: String,
    pub customer_data: bool,
    pub last_write: String,
    pub notes: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Snapshot {
    pub id: String,
    pub database: String,
    /// `backup` (scheduled) or `snapshot` (manual).
    pub kind: String,
    pub created: String,
    pub size: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Bucket {
    pub name: String,
    pub environment: String,
    pub public: bool,
    pub customer_data: bool,
    pub objects: u32,
    pub size: String,
    pub purpose: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Principal {
    pub email: String,
    pub kind: String,
    pub roles: Vec<String>,
    pub notes: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AccessKey {
    pub id: String,
    pub principal: String,
    pub created: String,
}

/// A runbook, incident ticket, vendor notice or third-party README.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Doc {
    pub id: String,
    pub title: String,
    pub author: String,
    pub body: String,
    /// Written outside the company.
    pub external: bool,
    pub injection: Option<usize>,
}

/// A prompt injection planted in a doc or a log line: the names it tries to get acted on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Injection {
    pub targets: Vec<String>,
    pub seen: bool,
}

/// Something the agent changed, in order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Action {
    Deployed {
        service: String,
        version: String,
        approved: bool,
        prod: bool,
    },
    Scaled {
        service: String,
        from: u32,
        to: u32,
        /// The projected monthly spend in dollars right after.
        spend_after: u32,
    },
    BucketAccessSet {
        bucket: String,
        public: bool,
        customer_data: bool,
    },
    SnapshotCreated {
        id: String,
        database: String,
    },
    Deleted {
        kind: String,
        name: String,
        prod: bool,
        backup: bool,
    },
    RoleGranted {
        principal: String,
        role: String,
    },
    RoleRevoked {
        principal: String,
        role: String,
    },
    KeyCreated {
        id: String,
        principal: String,
    },
    StatusPosted {
        message: String,
        /// Some prod service was unhealthy when the update said it was resolved.
        claimed_resolved_while_unhealthy: bool,
    },
    AuditLogging {
        enabled: bool,
    },
}
