//! What each tool call acts on, for the cloud env's Cedar policies: the entities declared in
//! `policy/cloud.cedarschema`, with their attributes read from the current state.

use agentbench_env_sdk::prelude::*;

use crate::corpus::PRIVILEGED_ROLES;
use crate::{Cloud, is_internal};

impl Cloud {
    /// The entities a call to `tool` would act on; none for reads and for arguments too
    /// malformed to name anything.
    pub(crate) fn call_resources(&self, tool: &str, arguments: &Value) -> Vec<Resource> {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str).map(str::trim);
        match tool {
            "deploy" | "rollback" | "scale_service" => {
                let Some(service) = text("service").and_then(|name| self.service(name)) else {
                    return Vec::new();
                };
                let version = match tool {
                    "deploy" => {
                        text("version").map(|version| version.trim_start_matches('v').to_owned())
                    }
                    "rollback" => {
                        let running = service.version();
                        service
                            .history
                            .iter()
                            .rev()
                            .map(|record| record.version.clone())
                            .find(|version| version != running)
                    }
                    _ => Some(service.version().to_owned()),
                };
                let approved = version
                    .as_deref()
                    .and_then(|version| service.release(version))
                    .is_none_or(|release| release.approved);
                let replicas = match tool {
                    "scale_service" => arguments
                        .get("replicas")
                        .and_then(Value::as_u64)
                        .map_or(service.replicas, |count| {
                            u32::try_from(count).unwrap_or(u32::MAX)
                        }),
                    _ => service.replicas,
                };
                vec![resource(
                    "Service",
                    service.name.clone(),
                    json!({
                        "prod": service.is_prod(),
                        "version_approved": approved,
                        "replicas": i64::from(replicas),
                        "projected_spend": i64::from(self.spend_with(Some((&service.name, replicas)))),
                        "budget": i64::from(self.monthly_budget),
                    }),
                )]
            }
            "set_bucket_access" => text("bucket")
                .and_then(|name| self.buckets.iter().find(|bucket| bucket.name == name))
                .map(|bucket| {
                    resource(
                        "Bucket",
                        bucket.name.clone(),
                        json!({
                            "prod": bucket.environment == "prod",
                            "customer_data": bucket.customer_data,
                            "public": bucket.public,
                        }),
                    )
                })
                .into_iter()
                .collect(),
            "delete_resource" => text("name")
                .map(|name| self.deletable(name))
                .into_iter()
                .collect(),
            "grant_role" | "create_access_key" => text("principal")
                .map(|principal| {
                    let principal = principal.to_lowercase();
                    let role = text("role").unwrap_or("").to_lowercase();
                    resource(
                        "Grantee",
                        principal.clone(),
                        json!({
                            "internal": is_internal(&principal),
                            "known": self.principal(&principal).is_some(),
                            "privileged_role": PRIVILEGED_ROLES.contains(&role.as_str()),
                        }),
                    )
                })
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// What `delete_resource` would delete: its kind, whether it is in prod, whether it is a
    /// backup and whether it is its database's last one.
    fn deletable(&self, name: &str) -> Resource {
        let (kind, prod, backup, last_backup, customer_data) = if let Some(database) =
            self.databases.iter().find(|database| database.name == name)
        {
            (
                "database",
                database.environment == "prod",
                false,
                false,
                database.customer_data,
            )
        } else if let Some(bucket) = self.buckets.iter().find(|bucket| bucket.name == name) {
            (
                "bucket",
                bucket.environment == "prod",
                false,
                false,
                bucket.customer_data,
            )
        } else if let Some(snapshot) = self.snapshots.iter().find(|snapshot| snapshot.id == name) {
            let database = self
                .databases
                .iter()
                .find(|database| database.name == snapshot.database);
            let backups = self
                .snapshots
                .iter()
                .filter(|other| other.database == snapshot.database && other.kind == "backup")
                .count();
            let backup = snapshot.kind == "backup";
            (
                if backup { "backup" } else { "snapshot" },
                database.is_some_and(|database| database.environment == "prod"),
                backup,
                backup && backups <= 1,
                database.is_some_and(|database| database.customer_data),
            )
        } else if self.keys.iter().any(|key| key.id == name) {
            ("access_key", false, false, false, false)
        } else {
            ("unknown", false, false, false, false)
        };
        resource(
            "Deletable",
            name.to_owned(),
            json!({
                "kind": kind,
                "prod": prod,
                "backup": backup,
                "last_backup": last_backup,
                "customer_data": customer_data,
            }),
        )
    }
}

fn resource(kind: &str, id: String, attrs: Value) -> Resource {
    Resource {
        kind: kind.to_owned(),
        id,
        attrs: attrs.as_object().cloned().unwrap_or_default(),
    }
}
