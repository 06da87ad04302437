//! What each tool call acts on, for the CRM's Cedar policies: the entities declared in
//! `policy/crm.cedarschema`, with their attributes read from the current state.

use agentbench_env_sdk::prelude::*;

use crate::corpus::USER_ADDRESS;
use crate::state::{Customer, Probe};
use crate::text::{bare_address, domain_of, format_id, is_trusted, parse_id};
use crate::tools::MAX_EMAIL_BODY_BYTES;
use crate::{Crm, Field, RequestKind, RequestStatus};

impl Crm {
    /// The entities a call to `tool` would act on; none for listings and for arguments too
    /// malformed to name anything (the call then fails validation or the tool fails anyway).
    pub(crate) fn call_resources(&self, tool: &str, arguments: &Value) -> Vec<Resource> {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str);
        match tool {
            "send_email" => self.email_recipients(arguments),
            "export_customers" => text("to")
                .map(|to| self.export_recipient(to, arguments))
                .into_iter()
                .collect(),
            "get_customer" | "update_customer" | "delete_customer" => text("id")
                .map(|id| self.customer_resource(id))
                .into_iter()
                .collect(),
            "add_note" => text("customer")
                .map(|id| self.customer_resource(id))
                .into_iter()
                .collect(),
            "merge_customers" => text("merge")
                .map(|id| self.customer_resource(id))
                .into_iter()
                .collect(),
            "update_deal" => text("id")
                .map(|id| self.deal_resource(id))
                .into_iter()
                .collect(),
            "complete_request" => text("id")
                .map(|id| self.request_resource(id))
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Every recipient of an email: the addresses in `to` and the members of `segment`.
    fn email_recipients(&self, arguments: &Value) -> Vec<Resource> {
        let mut addresses: Vec<String> = arguments
            .get("to")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|address| bare_address(address).to_lowercase())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(segment) = arguments.get("segment").and_then(Value::as_str) {
            let segment = segment.trim().to_lowercase();
            for customer in self
                .customers
                .iter()
                .filter(|customer| customer.in_segment(&segment))
            {
                addresses.push(customer.email.to_lowercase());
            }
        }
        addresses.sort_unstable();
        addresses.dedup();
        let text = |key: &str| {
            arguments
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        // A body over the limit fails the call before anything is sent, so it is not searched:
        // at up to four bytes a character, searching it could cost more fuel than a call has.
        let message = if text("body").len() > MAX_EMAIL_BODY_BYTES {
            String::new()
        } else {
            format!("{}\n{}", text("subject"), text("body"))
        };
        let probe = Probe::new(&message);
        let personal = self.customers_in(&probe, Customer::personal_data_in);
        let sensitive = self.customers_in(&probe, Customer::sensitive_data_in);
        let batch_size = addresses.len() as i64;
        addresses
            .iter()
            .map(|address| {
                let customer = self.customer_by_email(address);
                let own = customer.map(|customer| customer.id);
                let others = |ids: &[u32]| ids.iter().any(|id| Some(*id) != own);
                recipient(
                    address,
                    json!({
                        "domain": domain_of(address),
                        "internal": is_trusted(address, &self.trusted_domains),
                        "customer": customer.is_some(),
                        "marketing_consent": customer.is_some_and(|customer| customer.marketing_consent),
                        "personal_data": others(&personal),
                        "sensitive_data": others(&sensitive),
                        "batch_size": batch_size,
                        "records": 0,
                    }),
                )
            })
            .collect()
    }

    fn export_recipient(&self, to: &str, arguments: &Value) -> Resource {
        let address = bare_address(to).to_lowercase();
        let customer = self.customer_by_email(&address);
        let sensitive = arguments
            .get("fields")
            .and_then(Value::as_array)
            .is_some_and(|fields| {
                fields.iter().any(|field| {
                    serde_json::from_value::<Field>(field.clone()).is_ok_and(Field::is_sensitive)
                })
            });
        let records = match (
            arguments.get("segment").and_then(Value::as_str),
            arguments.get("customers").and_then(Value::as_array),
        ) {
            (Some(segment), _) => {
                let segment = segment.trim().to_lowercase();
                self.customers
                    .iter()
                    .filter(|customer| customer.in_segment(&segment))
                    .count()
            }
            (None, Some(ids)) => ids.len(),
            (None, None) => 0,
        };
        recipient(
            &address,
            json!({
                "domain": domain_of(&address),
                "internal": is_trusted(&address, &self.trusted_domains),
                "customer": customer.is_some(),
                "marketing_consent": customer.is_some_and(|customer| customer.marketing_consent),
                "personal_data": true,
                "sensitive_data": sensitive,
                "batch_size": 1,
                "records": records,
            }),
        )
    }

    fn customer_resource(&self, text: &str) -> Resource {
        let id = parse_id('C', text).ok();
        let customer = id.and_then(|id| self.customer(id));
        let verified_erasure = id.is_some_and(|id| {
            self.requests.iter().any(|request| {
                request.customer == id
                    && request.kind == RequestKind::Erasure
                    && request.identity_verified
                    && request.status != RequestStatus::Rejected
            })
        });
        let open_deals = id.map_or(0, |id| {
            self.deals
                .iter()
                .filter(|deal| deal.customer == id && deal.is_open())
                .count()
        });
        resource(
            "Customer",
            id.map_or_else(|| text.trim().to_owned(), |id| format_id('C', id)),
            json!({
                "exists": customer.is_some(),
                "verified_erasure_request": verified_erasure,
                "open_deals": open_deals,
                "has_sensitive": customer.is_some_and(Customer::has_sensitive),
                "owned_by_user": customer.is_some_and(|customer| customer.owner == USER_ADDRESS),
            }),
        )
    }

    fn deal_resource(&self, text: &str) -> Resource {
        let id = parse_id('D', text).ok();
        let deal = id.and_then(|id| self.deals.iter().find(|deal| deal.id == id));
        resource(
            "Deal",
            id.map_or_else(|| text.trim().to_owned(), |id| format_id('D', id)),
            json!({
                "exists": deal.is_some(),
                "owned_by_user": deal.is_some_and(|deal| deal.owner == USER_ADDRESS),
                "is_open": deal.is_some_and(|deal| deal.is_open()),
                "stage": deal.map_or("", |deal| deal.stage.name()),
                "amount": deal.map_or(0, |deal| deal.amount),
            }),
        )
    }

    fn request_resource(&self, text: &str) -> Resource {
        let id = parse_id('R', text).ok();
        let request = id.and_then(|id| self.requests.iter().find(|request| request.id == id));
        resource(
            "Request",
            id.map_or_else(|| text.trim().to_owned(), |id| format_id('R', id)),
            json!({
                "exists": request.is_some(),
                "kind": request.map_or("", |request| request.kind.name()),
                "identity_verified": request.is_some_and(|request| request.identity_verified),
                "is_open": request.is_some_and(|request| request.status == RequestStatus::Open),
            }),
        )
    }
}

fn recipient(address: &str, attrs: Value) -> Resource {
    resource("Recipient", address.to_owned(), attrs)
}

fn resource(kind: &str, id: String, attrs: Value) -> Resource {
    Resource {
        kind: kind.to_owned(),
        id,
        attrs: attrs.as_object().cloned().unwrap_or_default(),
    }
}
