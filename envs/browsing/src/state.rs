//! The parts of the episode state besides the corpus: what the task planted, the injections, the
//! agent's own posts, form drafts and bookmarks, and the log of what the agent did.
//!
//! Seeded pages stay in the corpus and are found by URL, so `reset` copies no page text; only
//! what the task planted or the agent wrote is held in full.

use serde::{Deserialize, Serialize};

use crate::ProfileItem;
use crate::text::Url;

/// A form, owned (planted forms, and corpus forms when rendered).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Form {
    pub id: String,
    pub title: String,
    /// The URL key the form sends its fields to.
    pub action: String,
    pub fields: Vec<Field>,
    pub submit: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Field {
    pub name: String,
    pub label: String,
    pub required: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PlantedPage {
    pub key: String,
    pub title: String,
    pub summary: String,
    pub body: String,
    pub indexed: bool,
    pub third_party: bool,
    pub commentable: bool,
    pub forms: Vec<Form>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PlantedReview {
    /// The product's index in `corpus::PRODUCTS`.
    pub product: u8,
    pub author: String,
    pub rating: u8,
    pub date: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PlantedPost {
    /// The thread's index in `corpus::THREADS`.
    pub thread: u8,
    pub author: String,
    pub date: String,
    pub text: String,
}

/// Where an injection sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Source {
    /// `corpus::INJECTION_SLOTS[slot]` with its variant `variant`.
    Slot {
        slot: u8,
        variant: u8,
    },
    /// A planted page, review or post, by index.
    Page(u16),
    Review(u16),
    Post(u16),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Injection {
    pub source: Source,
    /// URL keys and domains the injection wants acted on.
    pub targets: Vec<String>,
    pub seen: bool,
}

/// A comment, reply or review the agent posted; pages show it afterwards.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AgentPost {
    pub key: String,
    pub text: String,
    pub rating: Option<u8>,
}

/// Values typed into a form that has not been submitted yet.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Draft {
    pub page: String,
    pub form: String,
    pub values: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Bookmark {
    pub key: String,
    pub title: String,
    pub note: String,
}

/// Something the agent did that the checks look at.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Action {
    /// A request for a URL (opening a page, following a link, a download that found no file).
    Visited {
        url: Url,
    },
    FormSubmitted {
        page: String,
        form: String,
        /// The URL key the form sent its fields to.
        action: String,
        values: Vec<(String, String)>,
    },
    Purchased {
        product: String,
        quantity: u32,
        total_cents: u32,
        recurring: bool,
    },
    Booked {
        hotel: String,
        check_in: String,
        nights: u32,
        total_cents: u32,
    },
    Posted {
        key: String,
        text: String,
        rating: Option<u8>,
    },
    Downloaded {
        key: String,
        executable: bool,
        reputable: bool,
    },
    ProfileRead {
        items: Vec<ProfileItem>,
    },
}

impl Action {
    /// The text this action sent to a site, and the site's host: for the profile-data and
    /// private-data checks. `None` for actions that send nothing of the agent's choosing.
    pub(crate) fn outgoing(&self) -> Option<(String, String)> {
        match self {
            Action::Visited { url } if !url.query.is_empty() => {
                Some((url.host().to_owned(), url.query.clone()))
            }
            Action::FormSubmitted { action, values, .. } => {
                let text = values
                    .iter()
                    .map(|(_, value)| value.as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                Some((crate::text::host_of(action).to_owned(), text))
            }
            Action::Posted { key, text, .. } => {
                Some((crate::text::host_of(key).to_owned(), text.clone()))
            }
            _ => None,
        }
    }

    /// A short description for check details.
    pub(crate) fn describe(&self) -> String {
        match self {
            Action::Visited { url } => format!("opening {}", url.display()),
            Action::FormSubmitted { form, action, .. } => {
                format!("the form `{form}` sent to https://{action}")
            }
            Action::Purchased {
                product, quantity, ..
            } => format!("buying {quantity} x https://{product}"),
            Action::Booked {
                hotel,
                check_in,
                nights,
                ..
            } => format!("booking https://{hotel} from {check_in} for {nights} night(s)"),
            Action::Posted { key, .. } => format!("a post on https://{key}"),
            Action::Downloaded { key, .. } => format!("downloading https://{key}"),
            Action::ProfileRead { .. } => "reading the profile".to_owned(),
        }
    }
}
