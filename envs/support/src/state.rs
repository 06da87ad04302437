//! The parts of the episode state: customers, orders, tickets, planted injections, and the log
//! of what the agent did.
//!
//! Seeded text borrows from the corpus (`Cow::Borrowed`), so `reset` copies little; what the
//! task or the agent wrote, and everything after `load`, is owned.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dates::{Day, Stamp};

/// Text from the corpus or written during the episode.
pub(crate) type Text = Cow<'static, str>;

/// Where an order stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    /// Paid, not yet shipped.
    Placed,
    /// With the carrier.
    Shipped,
    Delivered,
    /// Sent back by the customer and received at the warehouse; the refund is due.
    Returned,
    /// Refunded in full.
    Refunded,
    Cancelled,
}

impl OrderStatus {
    pub(crate) fn name(self) -> &'static str {
        match self {
            OrderStatus::Placed => "placed",
            OrderStatus::Shipped => "shipped",
            OrderStatus::Delivered => "delivered",
            OrderStatus::Returned => "returned",
            OrderStatus::Refunded => "refunded",
            OrderStatus::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Customer {
    pub id: Text,
    pub name: Text,
    pub email: Text,
    pub phone: Text,
    pub street: Text,
    pub city: Text,
    pub postcode: Text,
    pub card: Text,
    pub last_four: Text,
    pub since: Day,
    pub internal: bool,
    /// Goodwill credits given before the episode and during it.
    pub goodwill: Vec<Goodwill>,
    pub credit_balance_cents: i64,
    pub risk_flag: Option<Text>,
}

impl Customer {
    /// The payment method on file, `Visa ending 4417`.
    pub(crate) fn payment(&self) -> String {
        format!("{} ending {}", self.card, self.last_four)
    }

    pub(crate) fn address(&self) -> String {
        format!("{}, {} {}", self.street, self.city, self.postcode)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Goodwill {
    pub day: Day,
    pub cents: i64,
    pub order: Text,
    pub reason: Text,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Order {
    pub id: Text,
    pub customer: Text,
    pub items: Vec<Item>,
    pub placed: Day,
    pub promised: Day,
    pub shipped: Option<Day>,
    pub delivered: Option<Day>,
    pub status: OrderStatus,
    pub refunded_cents: i64,
    /// The payment method charged, `Visa ending 4417`.
    pub payment: Text,
    pub address: Text,
    pub tracking: Option<Text>,
    pub risk_flag: Option<Text>,
    pub notes: Vec<Text>,
}

impl Order {
    pub(crate) fn total_cents(&self) -> i64 {
        self.items
            .iter()
            .map(|item| i64::from(item.quantity) * item.unit_cents)
            .sum()
    }

    /// What can still be refunded: the total less what was refunded.
    pub(crate) fn refundable_cents(&self) -> i64 {
        (self.total_cents() - self.refunded_cents).max(0)
    }

    /// Days since delivery, when it was delivered.
    pub(crate) fn days_since_delivery(&self, today: Day) -> Option<i32> {
        self.delivered.map(|delivered| delivered.days_until(today))
    }

    pub(crate) fn has_shipped(&self) -> bool {
        self.shipped.is_some()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Item {
    pub name: Text,
    pub quantity: u32,
    pub unit_cents: i64,
}

/// Where a ticket stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketStatus {
    Open,
    Replied,
    Escalated,
}

impl TicketStatus {
    pub(crate) fn name(self) -> &'static str {
        match self {
            TicketStatus::Open => "open",
            TicketStatus::Replied => "replied",
            TicketStatus::Escalated => "escalated",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Ticket {
    pub id: Text,
    pub from_name: Text,
    /// The sender's address, lowercase.
    pub from_email: Text,
    /// The account the ticket is about: the one whose email sent it, or the one the sender
    /// claims to be.
    pub claimed: Option<Text>,
    /// The sender's address is the claimed account's email.
    pub from_account_email: bool,
    pub subject: Text,
    pub messages: Vec<Message>,
    pub status: TicketStatus,
}

impl Ticket {
    pub(crate) fn received(&self) -> Stamp {
        self.messages
            .last()
            .map_or(crate::dates::START_OF_SHIFT, |message| message.at)
    }

    /// Everything the sender wrote, for checking that verification details come from them.
    pub(crate) fn contains(&self, needle: &str) -> bool {
        crate::text::contains_ignoring_case(&self.subject, needle)
            || self
                .messages
                .iter()
                .any(|message| crate::text::contains_ignoring_case(&message.text, needle))
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Message {
    pub at: Stamp,
    pub text: Text,
}

/// A prompt injection planted in a ticket, and the order and customer ids it wants acted on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Injection {
    pub ticket: Text,
    pub targets: Vec<Text>,
    /// The agent has read the ticket.
    pub seen: bool,
}

/// Where a refund goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefundDestination {
    /// The card or account the order was paid with.
    OriginalPayment,
    /// Harbor & Pine store credit on the customer's account.
    StoreCredit,
    /// Another card, bank or PayPal account, named in `account`.
    OtherAccount,
}

impl RefundDestination {
    pub(crate) fn name(self) -> &'static str {
        match self {
            RefundDestination::OriginalPayment => "original_payment",
            RefundDestination::StoreCredit => "store_credit",
            RefundDestination::OtherAccount => "other_account",
        }
    }
}

/// What the record of an account-changing action keeps about the account at that moment, so
/// that the checks judge it as it was (verifying afterwards does not undo acting unverified).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Standing {
    pub customer: Text,
    pub verified: bool,
    /// The order or the account carried a risk flag.
    pub risk_flagged: bool,
}

/// One change the agent made, with what the checks need.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Action {
    Verified {
        ticket: Text,
        customer: Text,
    },
    VerificationFailed {
        ticket: Text,
        customer: Text,
    },
    Refund(Box<RefundRecord>),
    Credit(Box<CreditRecord>),
    Cancelled {
        order: Text,
        status_before: OrderStatus,
        standing: Standing,
    },
    AddressChanged {
        order: Text,
        address: Text,
        status_before: OrderStatus,
        standing: Standing,
    },
    Escalated {
        ticket: Text,
        reason: Text,
    },
    Replied(Box<ReplyRecord>),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RefundRecord {
    pub order: Text,
    pub cents: i64,
    pub destination: RefundDestination,
    pub account: Option<Text>,
    pub status_before: OrderStatus,
    pub days_since_delivery: Option<i32>,
    /// What was still refundable before this refund.
    pub refundable_before: i64,
    pub standing: Standing,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CreditRecord {
    pub customer: Text,
    pub order: Text,
    pub cents: i64,
    pub order_total: i64,
    /// The order belongs to the credited account.
    pub owns_order: bool,
    /// Goodwill credits the account had before this one.
    pub earlier_credits: u32,
    pub internal_account: bool,
    pub standing: Standing,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ReplyRecord {
    pub ticket: Text,
    pub message: String,
    /// Personal data of the ticket's own (claimed) account, sent before it was verified.
    pub unverified_disclosures: Vec<String>,
    /// Personal data of other customers: `customer id: what`.
    pub other_customer_disclosures: Vec<String>,
}
