//! What each tool call acts on, for the bank's Cedar policies: the entities declared in
//! `policy/banking.cedarschema`, with their attributes read from the current state.
//!
//! Amounts cross to Cedar in cents (Cedar has no decimals); a call whose arguments are too
//! malformed to name anything acts on nothing (it then fails validation anyway).

use agentbench_env_sdk::prelude::*;

use crate::Banking;
use crate::state::{AccountKind, Scope};
use crate::text::{amount_cents, normalize_address, normalize_iban};
use crate::tools::is_own_address;

impl Banking {
    pub(crate) fn call_resources(&self, tool: &str, arguments: &Value) -> Vec<Resource> {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str);
        let amount = arguments
            .get("amount")
            .and_then(Value::as_f64)
            .and_then(|amount| amount_cents(amount).ok())
            .unwrap_or(0);
        match tool {
            "pay" | "schedule_payment" => {
                let Some(payee) = arguments
                    .get("payee_id")
                    .and_then(Value::as_u64)
                    .and_then(|id| self.payees.iter().find(|payee| u64::from(payee.id) == id))
                else {
                    return Vec::new();
                };
                let from = text("from_account").and_then(|id| self.account(id).ok());
                // A scheduled payment leaves later; only a payment now can overdraw.
                let overdraws = tool == "pay"
                    && from.is_some_and(|account| {
                        account.kind != AccountKind::CreditCard && account.balance - amount < 0
                    });
                vec![resource(
                    "Payment",
                    payee.id.to_string(),
                    json!({
                        "payee_verified": payee.verified,
                        "payee_added_in_episode": payee.added,
                        "amount_cents": amount,
                        "from_account": from.map_or("", |account| account.id.as_ref()),
                        "scope_mismatch": from.is_some_and(|account| account.scope != payee.scope),
                        "overdraws": overdraws,
                    }),
                )]
            }
            "transfer" => {
                let (Some(from), Some(to)) = (
                    text("from_account").and_then(|id| self.account(id).ok()),
                    text("to_account").and_then(|id| self.account(id).ok()),
                ) else {
                    return Vec::new();
                };
                vec![resource(
                    "Transfer",
                    format!("{}->{}", from.id, to.id),
                    json!({
                        "amount_cents": amount,
                        "from_account": from.id,
                        "to_account": to.id,
                        "scope_mismatch": from.scope != to.scope,
                        "from_care_account": from.scope == Scope::Care,
                        "overdraws": from.kind != AccountKind::CreditCard && from.balance - amount < 0,
                    }),
                )]
            }
            "add_payee" => {
                let Some(iban) = text("iban").and_then(|iban| normalize_iban(iban).ok()) else {
                    return Vec::new();
                };
                let name = text("name").unwrap_or("").trim();
                let namesake = self
                    .payees
                    .iter()
                    .any(|payee| payee.name.eq_ignore_ascii_case(name) && payee.iban != iban);
                vec![resource(
                    "NewPayee",
                    iban,
                    json!({ "same_name_as_saved_payee": namesake }),
                )]
            }
            "cancel_scheduled_payment" => arguments
                .get("id")
                .and_then(Value::as_u64)
                .and_then(|id| {
                    self.standing_orders
                        .iter()
                        .find(|order| u64::from(order.id) == id)
                })
                .map(|order| {
                    resource(
                        "StandingOrder",
                        order.id.to_string(),
                        json!({
                            "essential": order.essential,
                            "monthly": order.monthly,
                            "amount_cents": order.amount,
                        }),
                    )
                })
                .into_iter()
                .collect(),
            "send_statement" | "send_message" => text("to")
                .and_then(|to| normalize_address(to).ok())
                .map(|address| {
                    let known = self.messages.iter().any(|message| {
                        crate::text::bare_address(&message.from).eq_ignore_ascii_case(&address)
                    });
                    resource(
                        "Recipient",
                        address.clone(),
                        json!({
                            "domain": address.rsplit_once('@').map_or("", |(_, domain)| domain),
                            "own_address": is_own_address(&address),
                            "known_correspondent": known,
                        }),
                    )
                })
                .into_iter()
                .collect(),
            "set_card_frozen" => text("card")
                .and_then(|id| {
                    self.cards
                        .iter()
                        .find(|card| card.id.eq_ignore_ascii_case(id.trim()))
                })
                .map(|card| {
                    resource(
                        "Card",
                        card.id.to_string(),
                        json!({ "frozen_now": card.frozen, "frozen_at_start": card.frozen_at_start }),
                    )
                })
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }
}

fn resource(kind: &str, id: String, attrs: Value) -> Resource {
    Resource {
        kind: kind.to_owned(),
        id,
        attrs: attrs.as_object().cloned().unwrap_or_default(),
    }
}
