//! Builds an episode's initial state from the corpus, the seed and the task.
//!
//! The seed decides the everyday card spending (how many purchases a month, on which days, for
//! how much) and which variant of each injection is planted. Balances today are fixed by the
//! corpus (or the task), so a scenario can rely on them whatever the seed; the history before
//! is whatever the transactions add up to.

use std::borrow::Cow;

use agentbench_env_sdk::Rng;

use crate::Banking;
use crate::corpus::{self, Carrier};
use crate::dates::{Day, TODAY, days_in_month, parse_day};
use crate::state::{
    Account, Bill, Card, Document, Injection, Message, Payee, Source, StandingOrder, Text,
    Transaction,
};
use crate::task::{ExtraMessage, Task, normalize_target};
use crate::text::{amount_cents, normalize_address, normalize_iban};

pub(crate) fn build(rng: &mut Rng, mut task: Task) -> Result<Banking, String> {
    let (instruction, goals) = task.instruction_and_goals()?;
    let accounts = seed_accounts(&task)?;
    let transactions = seed_transactions(rng, &accounts);
    let payees = seed_payees(&task, &accounts)?;
    let bills = seed_bills(&task)?;
    let standing_orders: Vec<StandingOrder> = corpus::STANDING_ORDERS
        .iter()
        .enumerate()
        .map(|(index, entry)| StandingOrder {
            id: index as u32 + 1,
            from: Cow::Borrowed(entry.from),
            payee: Cow::Borrowed(entry.payee),
            iban: Cow::Borrowed(entry.iban),
            amount: entry.amount,
            next: entry.next,
            monthly: entry.monthly,
            reference: Cow::Borrowed(entry.reference),
            essential: entry.essential,
        })
        .collect();
    let cards = corpus::CARDS
        .iter()
        .map(|entry| Card {
            id: Cow::Borrowed(entry.id),
            label: Cow::Borrowed(entry.label),
            account: Cow::Borrowed(entry.account),
            frozen: entry.frozen,
            frozen_at_start: entry.frozen,
            note: Cow::Borrowed(entry.note),
        })
        .collect();
    let mut injections = Vec::new();
    let (messages, documents) = seed_messages(rng, &mut task, &mut injections)?;

    Ok(Banking {
        instruction,
        goals,
        accounts,
        cards,
        next_transaction_id: transactions.len() as u32 + 1,
        transactions,
        next_payee_id: payees.len() as u32 + 1,
        payees,
        bills,
        next_order_id: standing_orders.len() as u32 + 1,
        standing_orders,
        messages,
        documents,
        injections,
        log: Vec::new(),
        irreversible_actions: 0,
        untrusted_content_read: false,
    })
}

fn seed_accounts(task: &Task) -> Result<Vec<Account>, String> {
    for id in task.balances.keys() {
        if !corpus::ACCOUNTS.iter().any(|account| account.id == id) {
            return Err(format!("balances: unknown account `{id}`"));
        }
    }
    corpus::ACCOUNTS
        .iter()
        .map(|entry| {
            let balance = match task.balances.get(entry.id) {
                None => entry.balance,
                Some(&euros) => balance_cents(euros)?,
            };
            Ok(Account {
                id: Cow::Borrowed(entry.id),
                name: Cow::Borrowed(entry.name),
                holder: Cow::Borrowed(entry.holder),
                iban: Cow::Borrowed(entry.iban),
                kind: entry.kind,
                scope: entry.scope,
                balance,
                overdraft: entry.overdraft,
                daily_limit: entry.daily_limit,
                credit_limit: entry.credit_limit,
                sent_today: 0,
            })
        })
        .collect()
}

/// A starting balance in euros, in cents: it may be negative or zero, unlike an amount paid.
fn balance_cents(euros: f64) -> Result<i64, String> {
    if euros == 0.0 {
        Ok(0)
    } else if euros < 0.0 {
        amount_cents(-euros).map(|cents| -cents)
    } else {
        amount_cents(euros)
    }
    .map_err(|error| format!("balances: {error}"))
}

fn account_index(accounts: &[Account], id: &str) -> u8 {
    accounts
        .iter()
        .position(|account| account.id == id)
        .expect("the corpus names only its own accounts") as u8
}

/// The recurring movements and one-offs of the corpus, plus seeded card spending, sorted by day
/// and numbered in that order.
fn seed_transactions(rng: &mut Rng, accounts: &[Account]) -> Vec<Transaction> {
    let mut transactions = Vec::with_capacity(EXPECTED_TRANSACTIONS);
    let mut push = |account: &str, day: Day, amount, counterparty, description, category| {
        transactions.push(Transaction {
            id: 0,
            account: account_index(accounts, account),
            day,
            amount,
            counterparty: Cow::Borrowed(counterparty),
            description: Cow::Borrowed(description),
            category: Cow::Borrowed(category),
        });
    };
    for &(year, month) in corpus::HISTORY_MONTHS {
        for entry in corpus::RECURRING {
            let day = Day::ymd(year, month, entry.day_of_month);
            if day < TODAY {
                push(
                    entry.account,
                    day,
                    entry.amount,
                    entry.counterparty,
                    entry.description,
                    entry.category,
                );
            }
        }
        let month_days = days_in_month(year, month);
        for entry in corpus::FILLER {
            let (fewest, most) = entry.per_month;
            let count = fewest + rng.below(most - fewest + 1);
            for _ in 0..count {
                let day = Day::ymd(year, month, 1 + rng.below(u64::from(month_days)) as u32);
                let (low, high) = entry.cents;
                let amount = low + rng.below((high - low + 1) as u64) as i64;
                if day < TODAY {
                    push(
                        entry.account,
                        day,
                        -amount,
                        entry.counterparty,
                        entry.description,
                        entry.category,
                    );
                }
            }
        }
    }
    for entry in corpus::ONE_OFF {
        push(
            entry.account,
            entry.day,
            entry.amount,
            entry.counterparty,
            entry.description,
            entry.category,
        );
    }
    // A stable sort keeps the corpus order within a day, so the ids are stable for a seed.
    transactions.sort_by_key(|transaction| transaction.day);
    for (index, transaction) in transactions.iter_mut().enumerate() {
        transaction.id = index as u32 + 1;
    }
    transactions
}

/// Room for the history plus what an agent typically books.
const EXPECTED_TRANSACTIONS: usize = 320;

fn seed_payees(task: &Task, accounts: &[Account]) -> Result<Vec<Payee>, String> {
    let mut payees: Vec<Payee> = corpus::PAYEES
        .iter()
        .enumerate()
        .map(|(index, entry)| Payee {
            id: index as u32 + 1,
            name: Cow::Borrowed(entry.name),
            iban: Cow::Borrowed(entry.iban),
            scope: entry.scope,
            verified: entry.verified,
            added: false,
            note: Cow::Borrowed(entry.note),
        })
        .collect();
    for extra in &task.extra_payees {
        let iban = normalize_iban(&extra.iban)
            .map_err(|error| format!("extra payee `{}`: {error}", extra.name))?;
        let taken = payees.iter().any(|payee| payee.iban == iban)
            || accounts.iter().any(|account| account.iban == iban);
        if taken || extra.name.trim().is_empty() {
            return Err(format!(
                "extra payee `{}`: the name is empty or the IBAN is already saved",
                extra.name
            ));
        }
        payees.push(Payee {
            id: payees.len() as u32 + 1,
            name: Cow::Owned(extra.name.trim().to_owned()),
            iban: Cow::Owned(iban),
            scope: extra.scope,
            verified: extra.verified,
            added: false,
            note: Cow::Owned(extra.note.clone()),
        });
    }
    Ok(payees)
}

fn seed_bills(task: &Task) -> Result<Vec<Bill>, String> {
    let mut bills: Vec<Bill> = corpus::BILLS
        .iter()
        .enumerate()
        .map(|(index, entry)| Bill {
            id: index as u32 + 1,
            payee: Cow::Borrowed(entry.payee),
            iban: Cow::Borrowed(entry.iban),
            description: Cow::Borrowed(entry.description),
            reference: Cow::Borrowed(entry.reference),
            amount: entry.amount,
            due: entry.due,
            paid_on: entry.paid_on,
        })
        .collect();
    for extra in &task.extra_bills {
        let error = |error: String| format!("extra bill `{}`: {error}", extra.reference);
        let paid_on = extra
            .paid_on
            .as_deref()
            .map(parse_day)
            .transpose()
            .map_err(error)?;
        if paid_on.is_some_and(|day| day > TODAY) {
            return Err(error("it cannot have been paid after today".to_owned()));
        }
        bills.push(Bill {
            id: bills.len() as u32 + 1,
            payee: Cow::Owned(extra.payee.clone()),
            iban: Cow::Owned(normalize_iban(&extra.iban).map_err(error)?),
            description: Cow::Owned(extra.description.clone()),
            reference: Cow::Owned(extra.reference.clone()),
            amount: amount_cents(extra.amount).map_err(error)?,
            due: parse_day(&extra.due).map_err(error)?,
            paid_on,
        });
    }
    Ok(bills)
}

/// The inbox with its documents, and the injections planted in them.
fn seed_messages(
    rng: &mut Rng,
    task: &mut Task,
    injections: &mut Vec<Injection>,
) -> Result<(Vec<Message>, Vec<Document>), String> {
    let mut documents: Vec<Document> = corpus::DOCUMENTS
        .iter()
        .enumerate()
        .map(|(index, entry)| Document {
            id: index as u32 + 1,
            title: Cow::Borrowed(entry.title),
            issuer: Cow::Borrowed(entry.issuer),
            content: Cow::Borrowed(entry.content),
            appended: Cow::Borrowed(""),
        })
        .collect();
    let mut messages: Vec<Message> = corpus::MESSAGES
        .iter()
        .map(|entry| Message {
            id: 0,
            from: Cow::Borrowed(entry.from),
            subject: Cow::Borrowed(entry.subject),
            body: Cow::Borrowed(entry.body),
            appended: Cow::Borrowed(""),
            day: entry.day,
            read: entry.read,
            documents: entry
                .documents
                .iter()
                .map(|&index| u32::from(index) + 1)
                .collect(),
        })
        .collect();

    // Injections in messages are found again by position once the inbox is sorted.
    let mut planted_in_messages: Vec<(usize, Vec<Text>)> = Vec::new();
    if task.injections {
        for slot in corpus::INJECTION_SLOTS {
            let variant = &slot.variants[rng.below(slot.variants.len() as u64) as usize];
            let targets = variant.targets.iter().map(|&t| Cow::Borrowed(t)).collect();
            match slot.carrier {
                Carrier::Message(index) => {
                    messages[usize::from(index)].appended = Cow::Borrowed(variant.text);
                    planted_in_messages.push((usize::from(index), targets));
                }
                Carrier::Document(index) => {
                    let document = &mut documents[usize::from(index)];
                    document.appended = Cow::Borrowed(variant.text);
                    injections.push(Injection {
                        source: Source::Document(document.id),
                        targets,
                        seen: false,
                    });
                }
            }
        }
    }
    for extra in std::mem::take(&mut task.extra_messages) {
        let subject = extra.subject.clone();
        let (message, targets) = planted_message(extra, &mut documents, injections)
            .map_err(|error| format!("extra message `{subject}`: {error}"))?;
        if !targets.is_empty() {
            planted_in_messages.push((messages.len(), targets));
        }
        messages.push(message);
    }

    // Sort by day; the ids hold the positions before sorting until the injections have found
    // their messages, and positions break ties, which keeps the order deterministic.
    for (position, message) in messages.iter_mut().enumerate() {
        message.id = position as u32;
    }
    messages.sort_by_key(|message| (message.day, message.id));
    for (position, targets) in planted_in_messages {
        let index = messages
            .iter()
            .position(|message| message.id as usize == position)
            .expect("every planted message is in the inbox");
        injections.push(Injection {
            source: Source::Message(index as u32 + 1),
            targets,
            seen: false,
        });
    }
    for (index, message) in messages.iter_mut().enumerate() {
        message.id = index as u32 + 1;
    }
    Ok((messages, documents))
}

fn planted_message(
    extra: ExtraMessage,
    documents: &mut Vec<Document>,
    injections: &mut Vec<Injection>,
) -> Result<(Message, Vec<Text>), String> {
    normalize_address(&extra.from)?;
    let day = match &extra.date {
        Some(date) => parse_day(date)?,
        None => TODAY,
    };
    if day > TODAY {
        return Err(format!("the date {day} is after today, {TODAY}"));
    }
    let issuer = sender_name(&extra.from);
    let mut attached = Vec::with_capacity(extra.documents.len());
    for document in extra.documents {
        let id = documents.len() as u32 + 1;
        let targets = injection_targets(&document.injection_targets)
            .map_err(|error| format!("document `{}`: {error}", document.title))?;
        if !targets.is_empty() {
            injections.push(Injection {
                source: Source::Document(id),
                targets,
                seen: false,
            });
        }
        documents.push(Document {
            id,
            title: Cow::Owned(document.title),
            issuer: Cow::Owned(issuer.clone()),
            content: Cow::Owned(document.content),
            appended: Cow::Borrowed(""),
        });
        attached.push(id);
    }
    let targets = injection_targets(&extra.injection_targets)?;
    let message = Message {
        id: 0,
        from: Cow::Owned(extra.from),
        subject: Cow::Owned(extra.subject),
        body: Cow::Owned(extra.body),
        appended: Cow::Borrowed(""),
        day,
        read: extra.read,
        documents: attached,
    };
    Ok((message, targets))
}

/// The name in `Name <address>`, or the address.
fn sender_name(from: &str) -> String {
    match from.split_once('<') {
        Some((name, _)) if !name.trim().is_empty() => name.trim().to_owned(),
        _ => crate::text::bare_address(from).to_owned(),
    }
}

fn injection_targets(targets: &[String]) -> Result<Vec<Text>, String> {
    targets
        .iter()
        .map(|target| normalize_target(target).map(Cow::Owned))
        .collect()
}
