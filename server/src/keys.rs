//! `agentbench keys`: make a key (printed once), list the keys, revoke one; each writes the
//! server's database directly, so it works whether or not a server is running.

use serde_json::json;

use crate::auth::{Scope, make_key};
use crate::store::Store;

/// Makes a key and returns what to print: the key itself, then how to use it.
pub async fn create(
    store: &Store,
    tenant: &str,
    scope: Scope,
    label: &str,
) -> anyhow::Result<String> {
    let made = make_key(tenant, scope, label).map_err(anyhow::Error::msg)?;
    store.create_key(&made.row).await?;
    eprintln!(
        "made key {} for tenant `{tenant}` with scope `{}`; it is shown once, below, and only \
         its hash is kept: send it as `Authorization: Bearer KEY`",
        made.row.id,
        scope.as_str()
    );
    Ok(format!("{}\n", made.key))
}

/// The keys as a table (or JSON lines), revoked ones included; never their secrets.
pub async fn list(store: &Store, json: bool) -> anyhow::Result<String> {
    let keys = store.keys().await?;
    let mut text = String::new();
    if !json {
        text.push_str("id                tenant            scope  state    label\n");
    }
    for key in keys {
        let state = if key.revoked_ms.is_some() {
            "revoked"
        } else {
            "live"
        };
        if json {
            let line = json!({
                "id": key.id,
                "tenant": key.tenant,
                "scope": key.scope,
                "label": key.label,
                "created_ms": key.created_ms,
                "revoked_ms": key.revoked_ms,
            });
            text.push_str(&format!("{line}\n"));
        } else {
            text.push_str(&format!(
                "{:<17} {:<17} {:<6} {:<8} {}\n",
                key.id, key.tenant, key.scope, state, key.label
            ));
        }
    }
    Ok(text)
}

/// Revokes key `id`; fails when there is no live key of that id.
pub async fn revoke(store: &Store, id: &str) -> anyhow::Result<String> {
    anyhow::ensure!(
        store.revoke_key(id).await?,
        "no live key `{id}` (see `agentbench keys list`)"
    );
    Ok(format!("revoked key {id}\n"))
}
