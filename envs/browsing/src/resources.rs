//! What each tool call acts on, for the browsing env's Cedar policies: the entities declared in
//! `policy/browsing.cedarschema`, with their attributes read from the current state.

use agentbench_env_sdk::prelude::*;

use crate::Browsing;
use crate::corpus;
use crate::render::Target;
use crate::text::{Url, host_of, in_domain, linked_hosts, private_data, profile_items};

impl Browsing {
    /// The entities a call to `tool` would act on; none for searching, reading the current page,
    /// filling forms, bookmarks and the profile, and for arguments too malformed to name anything
    /// (the call then fails anyway).
    pub(crate) fn call_resources(&self, tool: &str, arguments: &Value) -> Vec<Resource> {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str);
        match tool {
            "open_page" => text("url")
                .and_then(|url| Url::parse(url).ok())
                .map(|url| self.site(url.host(), &url.query, false))
                .into_iter()
                .collect(),
            "download_file" => text("url")
                .and_then(|url| Url::parse(url).ok())
                .map(|url| {
                    let executable = matches!(self.resolve(&url.key), Target::File(index)
                        if corpus::FILES[index].executable);
                    self.site(url.host(), &url.query, executable)
                })
                .into_iter()
                .collect(),
            "follow_link" => arguments
                .get("link")
                .and_then(Value::as_u64)
                .and_then(|link| u32::try_from(link).ok())
                .and_then(|link| self.link_target(link).ok())
                .map(|url| self.site(url.host(), &url.query, false))
                .into_iter()
                .collect(),
            "submit_form" => {
                let Some(page) = self.current.as_ref() else {
                    return Vec::new();
                };
                text("form")
                    .and_then(|id| self.form(&page.key, id))
                    .map(|form| {
                        let sent: Vec<String> = self
                            .draft_values(&page.key, &form.id)
                            .into_iter()
                            .map(|(_, value)| value)
                            .collect();
                        self.site(host_of(&form.action), &sent.join("\n"), false)
                    })
                    .into_iter()
                    .collect()
            }
            "buy" => text("product")
                .and_then(|url| Url::parse(url).ok())
                .and_then(|url| match self.resolve(&url.key) {
                    Target::Product(index) => Some(index),
                    _ => None,
                })
                .map(|index| {
                    let product = &corpus::PRODUCTS[index];
                    let quantity = arguments
                        .get("quantity")
                        .and_then(Value::as_u64)
                        .unwrap_or(1)
                        .min(u64::from(u32::MAX)) as u32;
                    let total = product.price_cents.saturating_mul(quantity);
                    resource(
                        "Product",
                        product.url.to_owned(),
                        json!({
                            "total_cents": total,
                            "over_limit": self.over_limit(total),
                            "recurring": product.renews.is_some(),
                        }),
                    )
                })
                .into_iter()
                .collect(),
            "book_hotel" => text("hotel")
                .and_then(|url| Url::parse(url).ok())
                .and_then(|url| match self.resolve(&url.key) {
                    Target::Hotel(index) => Some(index),
                    _ => None,
                })
                .map(|index| {
                    let hotel = &corpus::HOTELS[index];
                    let nights = arguments
                        .get("nights")
                        .and_then(Value::as_u64)
                        .unwrap_or(1)
                        .min(1000) as u32;
                    let total = hotel.nightly_cents.saturating_mul(nights);
                    resource(
                        "Stay",
                        hotel.url.to_owned(),
                        json!({
                            "total_cents": total,
                            "over_limit": self.over_limit(total),
                        }),
                    )
                })
                .into_iter()
                .collect(),
            "post_comment" => text("url")
                .and_then(|url| Url::parse(url).ok())
                .map(|url| {
                    let body = text("text").unwrap_or("");
                    let host = url.host().to_owned();
                    let links_elsewhere = linked_hosts(body)
                        .iter()
                        .any(|linked| !in_domain(linked, &host));
                    resource(
                        "PostTarget",
                        url.key.clone(),
                        json!({
                            "domain": host,
                            "has_link": !linked_hosts(body).is_empty(),
                            "links_elsewhere": links_elsewhere,
                            "profile_data": !profile_items(body).is_empty(),
                            "private_data": !private_data(body).is_empty(),
                            "review": matches!(self.resolve(&url.key), Target::Product(_)),
                        }),
                    )
                })
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A site that a request, a download or a form sends `sent` to.
    fn site(&self, host: &str, sent: &str, executable: bool) -> Resource {
        resource(
            "Site",
            host.to_owned(),
            json!({
                "allowed": self.is_allowed(host),
                "reputable": self.is_reputable(host),
                "profile_data": !profile_items(sent).is_empty(),
                "private_data": !private_data(sent).is_empty(),
                "executable": executable,
            }),
        )
    }

    /// Whether spending `cents` more would pass the task's spending limit.
    fn over_limit(&self, cents: u32) -> bool {
        self.spending_limit_cents
            .is_some_and(|limit| self.spent_cents().saturating_add(cents) > limit)
    }
}

fn resource(kind: &str, id: String, attrs: Value) -> Resource {
    Resource {
        kind: kind.to_owned(),
        id,
        attrs: attrs.as_object().cloned().unwrap_or_default(),
    }
}
