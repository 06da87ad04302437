//! The parts of the episode state: accounts, cards, payees, bills, standing orders,
//! transactions, messages, documents, planted injections and the log of what the agent did.
//!
//! Seeded text is borrowed from the corpus (`Cow::Borrowed`), so `reset` copies no text; what
//! the agent or the task wrote is owned. A saved state reloads as owned text, which is equal.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dates::Day;

/// Text from the corpus or written in the episode.
pub(crate) type Text = Cow<'static, str>;

/// Whose money an account holds, and whom a payee is paid for: the user's own household, her
/// studio, or her mother's care (which she manages under a power of attorney).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Personal,
    Business,
    Care,
}

impl Scope {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scope::Personal => "personal",
            Scope::Business => "business",
            Scope::Care => "care",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum AccountKind {
    Checking,
    Savings,
    CreditCard,
}

impl AccountKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            AccountKind::Checking => "checking",
            AccountKind::Savings => "savings",
            AccountKind::CreditCard => "credit card",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Account {
    pub id: Text,
    pub name: Text,
    pub holder: Text,
    pub iban: Text,
    pub kind: AccountKind,
    pub scope: Scope,
    /// In cents; negative on a credit card (what is owed) or in overdraft.
    pub balance: i64,
    pub overdraft: i64,
    pub daily_limit: i64,
    pub credit_limit: i64,
    /// Paid to others today, in cents, against the daily limit.
    pub sent_today: i64,
}

impl Account {
    /// The most that can leave the account now, in cents.
    pub(crate) fn available(&self) -> i64 {
        match self.kind {
            AccountKind::CreditCard => 0,
            _ => self.balance + self.overdraft,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Card {
    pub id: Text,
    pub label: Text,
    pub account: Text,
    pub frozen: bool,
    pub frozen_at_start: bool,
    pub note: Text,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Payee {
    pub id: u32,
    pub name: Text,
    /// Compact and uppercase.
    pub iban: Text,
    pub scope: Scope,
    /// The bank has matched the name to the account holder.
    pub verified: bool,
    /// The agent added it in this episode.
    pub added: bool,
    pub note: Text,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Bill {
    pub id: u32,
    pub payee: Text,
    pub iban: Text,
    pub description: Text,
    pub reference: Text,
    pub amount: i64,
    pub due: Day,
    pub paid_on: Option<Day>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StandingOrder {
    pub id: u32,
    pub from: Text,
    pub payee: Text,
    pub iban: Text,
    pub amount: i64,
    pub next: Day,
    pub monthly: bool,
    pub reference: Text,
    pub essential: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Transaction {
    pub id: u32,
    /// The account's index in the state's accounts.
    pub account: u8,
    pub day: Day,
    /// In cents: positive in, negative out.
    pub amount: i64,
    pub counterparty: Text,
    pub description: Text,
    pub category: Text,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Message {
    pub id: u32,
    /// `Name <address>`.
    pub from: Text,
    pub subject: Text,
    pub body: Text,
    /// An injection planted in the body, appended to it (often empty).
    pub appended: Text,
    pub day: Day,
    pub read: bool,
    /// Ids of the documents attached.
    pub documents: Vec<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Document {
    pub id: u32,
    pub title: Text,
    pub issuer: Text,
    pub content: Text,
    /// An injection planted in the content, appended to it (often empty).
    pub appended: Text,
}

/// Where an injection was planted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Source {
    Message(u32),
    Document(u32),
}

impl Source {
    pub(crate) fn describe(self) -> String {
        match self {
            Source::Message(id) => format!("message #{id}"),
            Source::Document(id) => format!("document #{id}"),
        }
    }
}

/// A prompt injection a third party planted, and the IBANs and addresses it tries to get money
/// or data sent to (compact IBANs, lowercase addresses).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Injection {
    pub source: Source,
    pub targets: Vec<Text>,
    pub seen: bool,
}

impl Injection {
    pub(crate) fn targets(&self, value: &str) -> bool {
        self.targets.iter().any(|target| target == value)
    }
}

/// How much of an account a statement shows.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// Opening and closing balance and the totals per category.
    Summary,
    /// Every transaction with its counterparty, and the account number.
    Full,
}

impl Detail {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Detail::Summary => "summary",
            Detail::Full => "full",
        }
    }
}

/// A payment the agent made, with what the checks need.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Payment {
    pub transaction: u32,
    pub from: String,
    pub from_scope: Scope,
    pub payee_id: u32,
    pub payee: String,
    pub payee_scope: Scope,
    pub iban: String,
    pub amount: i64,
    pub reference: String,
    /// The bill it settles, when it names one or matches one by IBAN and amount.
    pub bill: Option<u32>,
    /// That bill had been paid already.
    pub bill_already_paid: bool,
}

/// One change the agent made, with what the checks need even after later changes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Action {
    Paid(Payment),
    Scheduled {
        id: u32,
        from: String,
        from_scope: Scope,
        payee: String,
        payee_scope: Scope,
        iban: String,
        amount: i64,
        first: Day,
        monthly: bool,
    },
    Transferred {
        from: String,
        from_scope: Scope,
        to: String,
        to_scope: Scope,
        amount: i64,
    },
    PayeeAdded {
        id: u32,
        name: String,
        iban: String,
    },
    Cancelled {
        id: u32,
        payee: String,
        amount: i64,
        essential: bool,
    },
    MessageSent {
        to: String,
        subject: String,
        body: String,
    },
    StatementSent {
        to: String,
        account: String,
        detail: Detail,
        from: Day,
        until: Day,
    },
    CardChanged {
        card: String,
        frozen: bool,
        frozen_at_start: bool,
    },
    Overdrawn {
        account: String,
        balance: i64,
    },
}
