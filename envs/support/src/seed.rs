//! Builds an episode's initial state from the corpus, the seed and the task.
//!
//! The story customers, orders and tickets are fixed, so that scenarios can name them. The seed
//! picks the injection variant planted in ticket T-5108, which filler customers join the store
//! and when, what they ordered, and which of them wrote a ticket.

use std::borrow::Cow;

use agentbench_env_sdk::Rng;

use crate::Support;
use crate::corpus::{self, CustomerEntry, OrderEntry, TicketEntry};
use crate::dates::{Day, START_OF_SHIFT, Stamp, TODAY};
use crate::state::{
    Customer, Goodwill, Injection, Item, Message, Order, OrderStatus, Text, Ticket, TicketStatus,
};
use crate::task::{ExtraTicket, Task, customer_id, order_id};
use crate::text::{display_name, normalize_address};

/// How many filler customers join, at least and at most.
const FILLER_CUSTOMERS: (u64, u64) = (16, 24);
/// How many filler tickets wait in the queue, at least and at most.
const FILLER_TICKETS: (u64, u64) = (4, 7);
/// How far back filler orders go, in days.
const FILLER_ORDER_DAYS: u64 = 75;
/// The first filler order's id; story orders are all below it.
const FIRST_FILLER_ORDER: u32 = 20_301;
/// The first filler ticket's number; they are older than the story tickets.
const FIRST_FILLER_TICKET: u32 = 4_901;
/// The first number of the tickets a task adds.
const FIRST_EXTRA_TICKET: u32 = 5_201;
/// When an extra ticket arrived, unless the task says: half an hour before the shift.
const EXTRA_TICKET_MINUTE: u32 = 8 * 60 + 30;
/// Minutes between an extra ticket's messages.
const MINUTES_BETWEEN_MESSAGES: u32 = 10;

pub(crate) fn build(rng: &mut Rng, mut task: Task) -> Result<Support, String> {
    let (instruction, goals) = task.instruction_and_goals()?;
    let variant = rng.below(corpus::INJECTIONS.len() as u64) as usize;

    let mut customers: Vec<Customer> = corpus::CUSTOMERS.iter().map(story_customer).collect();
    let mut orders: Vec<Order> = corpus::ORDERS
        .iter()
        .map(|entry| story_order(entry, &customers))
        .collect();
    add_filler_customers(rng, &mut customers, &mut orders);

    let mut injections = Vec::new();
    let mut tickets: Vec<Ticket> = Vec::new();
    add_filler_tickets(rng, &customers, &orders, &mut tickets);
    for entry in corpus::TICKETS {
        let mut ticket = story_ticket(entry, &customers);
        if task.injections && entry.id == corpus::INJECTED_TICKET {
            let injection = &corpus::INJECTIONS[variant];
            let last = ticket.messages.last().map_or(START_OF_SHIFT, |m| m.at);
            ticket.messages.push(Message {
                at: last.plus_minutes(MINUTES_BETWEEN_MESSAGES),
                text: Cow::Borrowed(injection.text),
            });
            injections.push(Injection {
                ticket: ticket.id.clone(),
                targets: injection
                    .targets
                    .iter()
                    .map(|&t| Cow::Borrowed(t))
                    .collect(),
                seen: false,
            });
        }
        tickets.push(ticket);
    }
    for (index, extra) in std::mem::take(&mut task.extra_tickets)
        .into_iter()
        .enumerate()
    {
        let id = format!("T-{}", FIRST_EXTRA_TICKET + index as u32);
        let subject = extra.subject.clone();
        let (ticket, targets) = extra_ticket(id, extra, &customers, &orders)
            .map_err(|error| format!("extra ticket `{subject}`: {error}"))?;
        if !targets.is_empty() {
            injections.push(Injection {
                ticket: ticket.id.clone(),
                targets,
                seen: false,
            });
        }
        tickets.push(ticket);
    }

    let mut verified = Vec::new();
    for id in &task.verified_customers {
        let id = customer_id(id);
        if !customers.iter().any(|customer| customer.id == id) {
            return Err(format!("verified_customers: no customer {id}"));
        }
        verified.push(Cow::Owned(id));
    }
    for flag in &task.risk_flags {
        let note: Text = Cow::Owned(flag.note.clone());
        match (&flag.order, &flag.customer) {
            (Some(id), None) => {
                let id = order_id(id);
                let order = orders
                    .iter_mut()
                    .find(|order| order.id == id)
                    .ok_or_else(|| format!("risk_flags: no order {id}"))?;
                order.risk_flag = Some(note);
            }
            (None, Some(id)) => {
                let id = customer_id(id);
                let customer = customers
                    .iter_mut()
                    .find(|customer| customer.id == id)
                    .ok_or_else(|| format!("risk_flags: no customer {id}"))?;
                customer.risk_flag = Some(note);
            }
            _ => return Err("a risk flag names an `order` or a `customer`".to_owned()),
        }
    }

    let support = Support {
        instruction,
        goals,
        customers,
        orders,
        tickets,
        injections,
        verified,
        log: Vec::new(),
        irreversible_actions: 0,
        untrusted_content_read: false,
        tickets_read: Vec::new(),
    };
    for goal in &support.goals {
        let (kind, id) = goal.named_ids();
        let exists = match kind {
            "order" => support.order(id).is_some(),
            "customer" => support.customer(id).is_some(),
            _ => support.ticket(id).is_some(),
        };
        if !exists {
            return Err(format!("a goal names {kind} {id}, which does not exist"));
        }
    }
    Ok(support)
}

fn story_customer(entry: &'static CustomerEntry) -> Customer {
    Customer {
        id: Cow::Borrowed(entry.id),
        name: Cow::Borrowed(entry.name),
        email: Cow::Borrowed(entry.email),
        phone: Cow::Borrowed(entry.phone),
        street: Cow::Borrowed(entry.street),
        city: Cow::Borrowed(entry.city),
        postcode: Cow::Borrowed(entry.postcode),
        card: Cow::Borrowed(entry.card),
        last_four: Cow::Borrowed(entry.last_four),
        since: entry.since,
        internal: entry.internal,
        goodwill: entry
            .goodwill
            .iter()
            .map(|credit| Goodwill {
                day: credit.day,
                cents: credit.cents,
                order: Cow::Borrowed(credit.order),
                reason: Cow::Borrowed(credit.reason),
            })
            .collect(),
        credit_balance_cents: 0,
        risk_flag: entry.risk_flag.map(Cow::Borrowed),
    }
}

fn story_order(entry: &'static OrderEntry, customers: &[Customer]) -> Order {
    let customer = customers
        .iter()
        .find(|customer| customer.id == entry.customer)
        .expect("every story order's customer is in the corpus");
    Order {
        id: Cow::Borrowed(entry.id),
        customer: Cow::Borrowed(entry.customer),
        items: entry
            .items
            .iter()
            .map(|item| Item {
                name: Cow::Borrowed(item.name),
                quantity: item.quantity,
                unit_cents: item.unit_cents,
            })
            .collect(),
        placed: entry.placed,
        promised: entry.promised,
        shipped: entry.shipped,
        delivered: entry.delivered,
        status: entry.status,
        refunded_cents: entry.refunded_cents,
        payment: Cow::Owned(customer.payment()),
        address: Cow::Owned(customer.address()),
        tracking: entry.tracking.map(Cow::Borrowed),
        risk_flag: entry.risk_flag.map(Cow::Borrowed),
        notes: entry
            .notes
            .iter()
            .map(|&note| Cow::Borrowed(note))
            .collect(),
    }
}

fn story_ticket(entry: &'static TicketEntry, customers: &[Customer]) -> Ticket {
    let from_email = crate::text::bare_address(entry.from).to_ascii_lowercase();
    let account = customers
        .iter()
        .find(|customer| customer.email.eq_ignore_ascii_case(&from_email));
    Ticket {
        id: Cow::Borrowed(entry.id),
        from_name: Cow::Borrowed(display_name(entry.from)),
        claimed: account
            .map(|customer| customer.id.clone())
            .or(entry.claims.map(Cow::Borrowed)),
        from_account_email: account.is_some(),
        from_email: Cow::Owned(from_email),
        subject: Cow::Borrowed(entry.subject),
        messages: entry
            .messages
            .iter()
            .map(|&(at, text)| Message {
                at,
                text: Cow::Borrowed(text),
            })
            .collect(),
        status: TicketStatus::Open,
    }
}

fn add_filler_customers(rng: &mut Rng, customers: &mut Vec<Customer>, orders: &mut Vec<Order>) {
    let mut pool: Vec<&'static CustomerEntry> = corpus::FILLER_CUSTOMERS.iter().collect();
    rng.shuffle(&mut pool);
    let count = FILLER_CUSTOMERS.0 + rng.below(FILLER_CUSTOMERS.1 - FILLER_CUSTOMERS.0 + 1);
    let mut next_order = FIRST_FILLER_ORDER;
    for (index, entry) in pool.into_iter().take(count as usize).enumerate() {
        let mut customer = story_customer(entry);
        customer.id = Cow::Owned(format!("C{}", 2001 + index));
        customer.since = Day::civil(2021, 1, 1).minus(-(rng.below(5 * 365) as i32));
        let order_count = 1 + rng.below(3);
        for _ in 0..order_count {
            orders.push(filler_order(rng, &customer, next_order));
            next_order += 1 + rng.below(40) as u32;
        }
        customers.push(customer);
    }
}

fn filler_order(rng: &mut Rng, customer: &Customer, id: u32) -> Order {
    let age = rng.below(FILLER_ORDER_DAYS) as i32;
    let placed = TODAY.minus(age);
    let item_count = 1 + rng.below(2);
    let mut items: Vec<Item> = Vec::new();
    for _ in 0..item_count {
        let &(name, unit_cents) = rng.pick(corpus::PRODUCTS);
        if items.iter().all(|item| item.name != name) {
            items.push(Item {
                name: Cow::Borrowed(name),
                quantity: 1 + u32::from(rng.chance(1, 5)),
                unit_cents,
            });
        }
    }
    let (status, shipped, delivered) = match age {
        0..=1 => (OrderStatus::Placed, None, None),
        2..=4 => (OrderStatus::Shipped, Some(placed.minus(-1)), None),
        _ => (
            OrderStatus::Delivered,
            Some(placed.minus(-1)),
            Some(placed.minus(-(3 + rng.below(3) as i32))),
        ),
    };
    let mut order = Order {
        id: Cow::Owned(id.to_string()),
        customer: customer.id.clone(),
        items,
        placed,
        promised: placed.minus(-6),
        shipped,
        delivered,
        status,
        refunded_cents: 0,
        payment: Cow::Owned(customer.payment()),
        address: Cow::Owned(customer.address()),
        tracking: shipped.map(|_| Cow::Owned(format!("UPS 1Z84F2A10{}", 300_000_000 + id * 7))),
        risk_flag: None,
        notes: Vec::new(),
    };
    if status == OrderStatus::Delivered && rng.chance(1, 10) {
        order.status = OrderStatus::Refunded;
        order.refunded_cents = order.total_cents();
    }
    order
}

fn add_filler_tickets(
    rng: &mut Rng,
    customers: &[Customer],
    orders: &[Order],
    tickets: &mut Vec<Ticket>,
) {
    let mut fillers: Vec<&Customer> = customers
        .iter()
        .filter(|customer| customer.id.starts_with("C2"))
        .collect();
    rng.shuffle(&mut fillers);
    let count = FILLER_TICKETS.0 + rng.below(FILLER_TICKETS.1 - FILLER_TICKETS.0 + 1);
    let mut written: Vec<(Stamp, &Customer, &Order, usize)> = Vec::new();
    for customer in fillers.into_iter().take(count as usize) {
        let Some(order) = orders.iter().find(|order| order.customer == customer.id) else {
            continue;
        };
        let template = rng.below(corpus::FILLER_TICKETS.len() as u64) as usize;
        let at = START_OF_SHIFT.minus_minutes(30 + rng.below(3 * 24 * 60) as u32);
        written.push((at, customer, order, template));
    }
    written.sort_by_key(|(at, ..)| *at);
    for (index, (at, customer, order, template)) in written.into_iter().enumerate() {
        let (subject, body) = corpus::FILLER_TICKETS[template];
        let first = customer.name.split(' ').next().unwrap_or(&customer.name);
        let item = order.items.first().map_or("order", |item| &item.name);
        let fill = |text: &str| {
            text.replace("{first}", first)
                .replace("{order}", &order.id)
                .replace("{item}", item)
        };
        tickets.push(Ticket {
            id: Cow::Owned(format!("T-{}", FIRST_FILLER_TICKET + index as u32)),
            from_name: customer.name.clone(),
            from_email: customer.email.clone(),
            claimed: Some(customer.id.clone()),
            from_account_email: true,
            subject: Cow::Owned(fill(subject)),
            messages: vec![Message {
                at,
                text: Cow::Owned(fill(body)),
            }],
            status: TicketStatus::Open,
        });
    }
}

/// A task's ticket, and the targets of its injection (empty when it carries none).
fn extra_ticket(
    id: String,
    extra: ExtraTicket,
    customers: &[Customer],
    orders: &[Order],
) -> Result<(Ticket, Vec<Text>), String> {
    let from_email = normalize_address(&extra.from)?;
    if extra.messages.is_empty() {
        return Err("a ticket has at least one message".to_owned());
    }
    let first = match &extra.date {
        Some(date) => Stamp::parse(date)?,
        None => Stamp::at(TODAY, EXTRA_TICKET_MINUTE),
    };
    let span = MINUTES_BETWEEN_MESSAGES * (extra.messages.len() as u32 - 1);
    if first.plus_minutes(span) >= START_OF_SHIFT {
        return Err(format!(
            "its messages must arrive before the shift starts at {START_OF_SHIFT}"
        ));
    }
    let account = customers
        .iter()
        .find(|customer| customer.email.eq_ignore_ascii_case(&from_email));
    let claimed = match (&extra.customer, account) {
        (Some(claimed), _) => {
            let claimed = customer_id(claimed);
            if !customers.iter().any(|customer| customer.id == claimed) {
                return Err(format!("no customer {claimed}"));
            }
            Some(Cow::Owned(claimed))
        }
        (None, Some(account)) => Some(account.id.clone()),
        (None, None) => None,
    };
    let from_account_email = account.is_some_and(|account| Some(&account.id) == claimed.as_ref());
    let mut targets = Vec::new();
    for target in &extra.injection_targets {
        let order = order_id(target);
        let customer = customer_id(target);
        if orders.iter().any(|known| known.id == order) {
            targets.push(Cow::Owned(order));
        } else if customers.iter().any(|known| known.id == customer) {
            targets.push(Cow::Owned(customer));
        } else {
            return Err(format!(
                "injection target `{target}` is neither an order nor a customer"
            ));
        }
    }
    let ticket = Ticket {
        id: Cow::Owned(id),
        from_name: Cow::Owned(display_name(&extra.from).to_owned()),
        from_email: Cow::Owned(from_email),
        claimed,
        from_account_email,
        subject: Cow::Owned(extra.subject),
        messages: extra
            .messages
            .into_iter()
            .enumerate()
            .map(|(index, text)| Message {
                at: first.plus_minutes(MINUTES_BETWEEN_MESSAGES * index as u32),
                text: Cow::Owned(text),
            })
            .collect(),
        status: TicketStatus::Open,
    };
    Ok((ticket, targets))
}
