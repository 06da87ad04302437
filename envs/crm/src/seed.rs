//! Builds an episode's initial state from the corpus, the seed and the task.
//!
//! The key customers, their deals, tickets and requests are the same in every episode. The seed
//! draws the rest of the customer base (names, addresses, phones, products, consent, dates of
//! birth, the odd sensitive note), a few of their deals and tickets, and how long ago their
//! notes were written.

use std::borrow::Cow;

use agentbench_env_sdk::Rng;

use crate::corpus::{self, CustomerEntry, InjectionEntry, NoteEntry};
use crate::state::{Customer, Deal, Injection, Note, Request, Source, Text, Ticket};
use crate::task::{ExtraNote, ExtraRequest, ExtraTicket, Task, normalize_target};
use crate::text::{check_date, format_id, is_domain, is_trusted, normalize_address, parse_id};
use crate::{Crm, RequestStatus, Stage};

pub(crate) fn build(rng: &mut Rng, mut task: Task) -> Result<Crm, String> {
    let (instruction, goals) = task.instruction_and_goals()?;
    let trusted_domains = task
        .trusted_domains
        .iter()
        .map(|domain| normalize_domain(domain))
        .collect::<Result<Vec<_>, _>>()?;

    let mut crm = Crm {
        instruction,
        goals,
        trusted_domains,
        customers: Vec::with_capacity(corpus::CUSTOMERS.len() + corpus::FILLER_CUSTOMERS),
        deals: Vec::new(),
        tickets: Vec::new(),
        requests: Vec::new(),
        injections: Vec::new(),
        log: Vec::new(),
        minutes: 0,
        next_note_id: 1,
        next_email_id: 1,
        next_export_id: 1,
        irreversible_actions: 0,
        untrusted_content_read: false,
    };
    for entry in corpus::CUSTOMERS {
        let customer = crm.key_customer(entry, task.injections);
        crm.customers.push(customer);
    }
    crm.seed_filler(rng);
    crm.seed_key_records(task.injections);

    for extra in std::mem::take(&mut task.extra_notes) {
        crm.plant_note(extra)?;
    }
    for extra in std::mem::take(&mut task.extra_tickets) {
        crm.plant_ticket(extra)?;
    }
    for extra in std::mem::take(&mut task.extra_requests) {
        crm.plant_request(extra)?;
    }

    for (index, goal) in crm.goals.iter().enumerate() {
        for (kind, id) in goal.records() {
            if !crm.record_exists(kind, id) {
                return Err(format!(
                    "goal {}: no record {}",
                    index + 1,
                    format_id(kind, id)
                ));
            }
        }
    }
    Ok(crm)
}

impl Crm {
    fn key_customer(&mut self, entry: &'static CustomerEntry, injections: bool) -> Customer {
        let mut notes = Vec::with_capacity(entry.notes.len() + 1);
        for note_entry in entry.notes {
            let note = self.corpus_note(note_entry, injections);
            notes.push(note);
        }
        Customer {
            id: entry.id,
            name: Cow::Borrowed(entry.name),
            email: Cow::Borrowed(entry.email),
            phone: Cow::Borrowed(entry.phone),
            address: Cow::Borrowed(entry.address),
            date_of_birth: entry.date_of_birth.map(Cow::Borrowed),
            national_id: entry.national_id.map(Cow::Borrowed),
            sensitive_note: entry.sensitive_note.map(Cow::Borrowed),
            account: entry.account,
            owner: Cow::Borrowed(entry.owner),
            segments: entry
                .segments
                .iter()
                .map(|&tag| Cow::Borrowed(tag))
                .collect(),
            marketing_consent: entry.marketing_consent,
            created: Cow::Borrowed(entry.created),
            notes,
        }
    }

    fn corpus_note(&mut self, entry: &'static NoteEntry, injections: bool) -> Note {
        let id = self.take_note_id();
        let appended = self.planted(entry.injection.as_ref(), injections, Source::Note(id));
        Note {
            id,
            date: Cow::Borrowed(entry.date),
            author: Cow::Borrowed(entry.author),
            text: Cow::Borrowed(entry.text),
            appended,
            external: !is_trusted(entry.author, &self.trusted_domains),
        }
    }

    /// The text of a corpus injection when injections are on (and the injection it plants),
    /// or nothing.
    fn planted(
        &mut self,
        injection: Option<&'static InjectionEntry>,
        injections: bool,
        source: Source,
    ) -> Text {
        match injection {
            Some(entry) if injections => {
                self.injections.push(Injection {
                    source,
                    targets: entry
                        .targets
                        .iter()
                        .map(|&target| Cow::Borrowed(target))
                        .collect(),
                    live: true,
                    seen: false,
                });
                Cow::Borrowed(entry.text)
            }
            _ => Cow::Borrowed(""),
        }
    }

    fn take_note_id(&mut self) -> u32 {
        let id = self.next_note_id;
        self.next_note_id += 1;
        id
    }

    /// Draws the rest of the customer base, with a few deals and tickets of theirs.
    fn seed_filler(&mut self, rng: &mut Rng) {
        let mut first_names: Vec<usize> = (0..corpus::FIRST_NAMES.len()).collect();
        let mut last_names: Vec<usize> = (0..corpus::LAST_NAMES.len()).collect();
        rng.shuffle(&mut first_names);
        rng.shuffle(&mut last_names);
        // Phone numbers 07700 900 000 to 099 are kept for seeded customers, distinct.
        let mut phones: Vec<u32> = (0..100).collect();
        rng.shuffle(&mut phones);

        let reps: Vec<&'static str> = corpus::REPS.iter().map(|(address, _)| *address).collect();
        let mut ticket_id = 520;
        let mut deal_id = 330;
        for index in 0..corpus::FILLER_CUSTOMERS {
            let id = corpus::FIRST_ID_OF_FILLER + index as u32;
            let first = corpus::FIRST_NAMES[first_names[index % first_names.len()]];
            let last = corpus::LAST_NAMES[last_names[index % last_names.len()]];
            let domain = rng.pick(corpus::MAIL_DOMAINS);
            let email = format!(
                "{}.{}@{domain}",
                first.to_ascii_lowercase(),
                last.to_ascii_lowercase()
            );
            let (town, district) = *rng.pick(corpus::TOWNS);
            let street = rng.pick(corpus::STREETS);
            let letters = corpus::POSTCODE_LETTERS;
            let address = format!(
                "{} {street}, {town} {district} {}{}{}",
                1 + rng.below(120),
                rng.below(10),
                char::from(*rng.pick(letters)),
                char::from(*rng.pick(letters)),
            );
            // Mostly York and Harrogate customers seen by Jordan; a quarter each for the others.
            let owner = if rng.chance(1, 2) {
                reps[0]
            } else {
                reps[1 + rng.below(2) as usize]
            };

            let mut segments: Vec<Text> = Vec::with_capacity(4);
            let lead = rng.chance(1, 6);
            if lead {
                segments.push(Cow::Borrowed("lead"));
            }
            let products = 1 + rng.below(2) as usize;
            for _ in 0..products {
                let product = *rng.pick(corpus::PRODUCT_SEGMENTS);
                // A lead has bought nothing, so it has no service plan.
                let fits = !(lead && product == "service-plan");
                if fits && !segments.iter().any(|tag| tag == product) {
                    segments.push(Cow::Borrowed(product));
                }
            }
            let date_of_birth = rng.chance(2, 5).then(|| {
                Cow::Owned(format!(
                    "{}-{:02}-{:02}",
                    1940 + rng.below(56),
                    1 + rng.below(12),
                    1 + rng.below(28)
                ))
            });
            let grant = segments.iter().any(|tag| tag == "heat-pump") && rng.chance(1, 4);
            let national_id = grant.then(|| {
                Cow::Owned(format!(
                    "QQ {:02} {:02} {:02} {}",
                    rng.below(100),
                    rng.below(100),
                    rng.below(100),
                    char::from(b'A' + rng.below(4) as u8)
                ))
            });
            if grant {
                segments.push(Cow::Borrowed("bus-grant"));
            }
            let sensitive_note = rng.chance(1, 8).then(|| {
                let (note, priority) = *rng.pick(corpus::SENSITIVE_NOTES);
                if priority {
                    segments.push(Cow::Borrowed("priority-services"));
                }
                Cow::Borrowed(note)
            });
            let created = format!(
                "{}-{:02}-{:02}",
                2022 + rng.below(4),
                1 + rng.below(12),
                1 + rng.below(28)
            );
            let note_id = self.take_note_id();
            let note = Note {
                id: note_id,
                date: Cow::Owned(format!(
                    "2026-0{}-{:02}",
                    1 + rng.below(2),
                    1 + rng.below(28)
                )),
                author: Cow::Borrowed(owner),
                text: Cow::Borrowed(*rng.pick(corpus::ROUTINE_NOTES)),
                appended: Cow::Borrowed(""),
                external: false,
            };
            let customer = Customer {
                id,
                name: Cow::Owned(format!("{first} {last}")),
                email: Cow::Owned(email),
                phone: Cow::Owned(format!("07700 900 {:03}", phones[index])),
                address: Cow::Owned(address),
                date_of_birth,
                national_id,
                sensitive_note,
                account: None,
                owner: Cow::Borrowed(owner),
                segments,
                marketing_consent: rng.chance(11, 20),
                created: Cow::Owned(created),
                notes: vec![note],
            };

            if rng.chance(1, 4) {
                self.deals.push(filler_deal(rng, deal_id, &customer));
                deal_id += 1;
            }
            if rng.chance(1, 10) {
                let (subject, body) = *rng.pick(corpus::ROUTINE_TICKETS);
                self.tickets.push(Ticket {
                    id: ticket_id,
                    customer: id,
                    subject: Cow::Borrowed(subject),
                    opened: Cow::Owned(format!("2026-03-0{}", 1 + rng.below(8))),
                    open: true,
                    body: Cow::Borrowed(body),
                    appended: Cow::Borrowed(""),
                });
                ticket_id += 1;
            }
            self.customers.push(customer);
        }
    }

    /// The key customers' deals, tickets and requests.
    fn seed_key_records(&mut self, injections: bool) {
        for entry in corpus::DEALS {
            self.deals.push(Deal {
                id: entry.id,
                title: Cow::Borrowed(entry.title),
                customer: entry.customer,
                stage: entry.stage,
                amount: entry.amount,
                owner: Cow::Borrowed(entry.owner),
                close_date: Cow::Borrowed(entry.close_date),
            });
        }
        self.deals.sort_unstable_by_key(|deal| deal.id);
        for entry in corpus::TICKETS {
            let appended = self.planted(
                entry.injection.as_ref(),
                injections,
                Source::Ticket(entry.id),
            );
            self.tickets.push(Ticket {
                id: entry.id,
                customer: entry.customer,
                subject: Cow::Borrowed(entry.subject),
                opened: Cow::Borrowed(entry.opened),
                open: entry.open,
                body: Cow::Borrowed(entry.body),
                appended,
            });
        }
        self.tickets.sort_unstable_by_key(|ticket| ticket.id);
        for entry in corpus::REQUESTS {
            let appended = self.planted(
                entry.injection.as_ref(),
                injections,
                Source::Request(entry.id),
            );
            self.requests.push(Request {
                id: entry.id,
                customer: entry.customer,
                kind: entry.kind,
                received: Cow::Borrowed(entry.received),
                reply_to: Cow::Borrowed(entry.reply_to),
                identity_verified: entry.identity_verified,
                verification: Cow::Borrowed(entry.verification),
                status: if entry.open {
                    RequestStatus::Open
                } else {
                    RequestStatus::Fulfilled
                },
                message: Cow::Borrowed(entry.message),
                appended,
            });
        }
    }

    fn planted_targets(&mut self, targets: &[String], source: Source) -> Result<(), String> {
        if targets.is_empty() {
            return Ok(());
        }
        let targets = targets
            .iter()
            .map(|target| normalize_target(target).map(Cow::Owned))
            .collect::<Result<Vec<_>, _>>()?;
        self.injections.push(Injection {
            source,
            targets,
            live: true,
            seen: false,
        });
        Ok(())
    }

    fn planted_customer(&self, text: &str) -> Result<usize, String> {
        let id = parse_id('C', text)?;
        self.customer_index(id)
            .ok_or_else(|| format!("no customer {}", format_id('C', id)))
    }

    fn plant_note(&mut self, extra: ExtraNote) -> Result<(), String> {
        let context = |error: String| format!("extra note on {}: {error}", extra.customer);
        let index = self.planted_customer(&extra.customer).map_err(context)?;
        let date = check_date(extra.date.as_deref().unwrap_or("2026-03-08")).map_err(context)?;
        let author = extra.author.trim().to_owned();
        if author.is_empty() {
            return Err(context("the author must not be empty".to_owned()));
        }
        let external = !(author.contains('@') && is_trusted(&author, &self.trusted_domains));
        let id = self.take_note_id();
        self.planted_targets(&extra.injection_targets, Source::Note(id))
            .map_err(context)?;
        self.customers[index].notes.push(Note {
            id,
            date: Cow::Owned(date),
            author: Cow::Owned(author),
            text: Cow::Owned(extra.text),
            appended: Cow::Borrowed(""),
            external,
        });
        Ok(())
    }

    fn plant_ticket(&mut self, extra: ExtraTicket) -> Result<(), String> {
        let context = |error: String| format!("extra ticket `{}`: {error}", extra.subject);
        let index = self.planted_customer(&extra.customer).map_err(context)?;
        let customer = self.customers[index].id;
        let opened =
            check_date(extra.opened.as_deref().unwrap_or("2026-03-08")).map_err(context)?;
        let id = self
            .tickets
            .last()
            .map_or(501, |ticket| ticket.id + 1)
            .max(590);
        self.planted_targets(&extra.injection_targets, Source::Ticket(id))
            .map_err(context)?;
        self.tickets.push(Ticket {
            id,
            customer,
            subject: Cow::Owned(extra.subject),
            opened: Cow::Owned(opened),
            open: true,
            body: Cow::Owned(extra.body),
            appended: Cow::Borrowed(""),
        });
        Ok(())
    }

    fn plant_request(&mut self, extra: ExtraRequest) -> Result<(), String> {
        let context = |error: String| format!("extra request from {}: {error}", extra.customer);
        let index = self.planted_customer(&extra.customer).map_err(context)?;
        let customer = &self.customers[index];
        let reply_to = match &extra.reply_to {
            Some(address) => normalize_address(address).map_err(context)?,
            None => customer.email.to_string(),
        };
        let verification = extra.verification.clone().unwrap_or_else(|| {
            if extra.identity_verified {
                "Verified by support against the record.".to_owned()
            } else {
                "Not verified.".to_owned()
            }
        });
        let customer = customer.id;
        let id = self
            .requests
            .last()
            .map_or(701, |request| request.id + 1)
            .max(720);
        self.planted_targets(&extra.injection_targets, Source::Request(id))
            .map_err(context)?;
        self.requests.push(Request {
            id,
            customer,
            kind: extra.kind,
            received: Cow::Borrowed("2026-03-08"),
            reply_to: Cow::Owned(reply_to),
            identity_verified: extra.identity_verified,
            verification: Cow::Owned(verification),
            status: RequestStatus::Open,
            message: Cow::Owned(extra.message),
            appended: Cow::Borrowed(""),
        });
        Ok(())
    }

    /// Whether the record of `kind` (`C`, `D` or `R`) numbered `id` exists.
    fn record_exists(&self, kind: char, id: u32) -> bool {
        match kind {
            'C' => self.customer_index(id).is_some(),
            'D' => self.deals.iter().any(|deal| deal.id == id),
            'R' => self.requests.iter().any(|request| request.id == id),
            _ => false,
        }
    }
}

fn filler_deal(rng: &mut Rng, id: u32, customer: &Customer) -> Deal {
    let product = customer
        .segments
        .iter()
        .find(|tag| corpus::PRODUCT_SEGMENTS.contains(&tag.as_ref()))
        .map_or("solar", |tag| tag.as_ref());
    let (title, amount) = match product {
        "heat-pump" => {
            let kilowatts = 5 + rng.below(8);
            (
                format!("Air-source heat pump {kilowatts} kW"),
                7_000 + kilowatts as u32 * 600,
            )
        }
        "battery" => {
            let size = *rng.pick(&["5", "10", "13.5"]);
            (
                format!("Home battery {size} kWh"),
                3_500 + rng.below(50) as u32 * 100,
            )
        }
        "service-plan" => (
            "Annual service plan".to_owned(),
            180 + rng.below(13) as u32 * 10,
        ),
        _ => {
            let kilowatts = 3 + rng.below(6);
            (
                format!("Solar PV {kilowatts} kWp"),
                3_800 + kilowatts as u32 * 1_050,
            )
        }
    };
    let stage = *rng.pick(&[
        Stage::Lead,
        Stage::Qualified,
        Stage::Proposal,
        Stage::Negotiation,
        Stage::Won,
        Stage::Lost,
    ]);
    Deal {
        id,
        title: Cow::Owned(title),
        customer: customer.id,
        stage,
        amount,
        owner: customer.owner.clone(),
        close_date: Cow::Owned(format!(
            "2026-0{}-{:02}",
            3 + rng.below(3),
            1 + rng.below(28)
        )),
    }
}

/// Checks a trusted domain and returns it in lowercase.
fn normalize_domain(text: &str) -> Result<String, String> {
    let domain = text.trim().to_ascii_lowercase();
    if is_domain(&domain) {
        Ok(domain)
    } else {
        Err(format!("invalid trusted domain `{text}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RequestKind;

    fn crm(seed: u64, task: &str) -> Crm {
        build(&mut Rng::new(seed), serde_json::from_str(task).unwrap()).unwrap()
    }

    #[test]
    fn every_seed_fills_the_crm_consistently() {
        for seed in 0..30 {
            let crm = crm(seed, "{}");
            assert_eq!(crm.customers.len(), 66);
            assert!(crm.customers.windows(2).all(|pair| pair[0].id < pair[1].id));
            assert!(crm.deals.windows(2).all(|pair| pair[0].id < pair[1].id));
            assert!(crm.tickets.windows(2).all(|pair| pair[0].id < pair[1].id));
            let emails: BTreeSetOf<&str> = crm.customers.iter().map(|c| c.email.as_ref()).collect();
            assert_eq!(
                emails.len(),
                crm.customers.len(),
                "seed {seed}: emails collide"
            );
            let phones: BTreeSetOf<&str> = crm.customers.iter().map(|c| c.phone.as_ref()).collect();
            // The two John Smith records share a phone: one person entered twice.
            assert_eq!(phones.len(), crm.customers.len() - 1, "seed {seed}");
            for deal in &crm.deals {
                assert!(crm.customer_index(deal.customer).is_some(), "{deal:?}");
            }
            for ticket in &crm.tickets {
                assert!(crm.customer_index(ticket.customer).is_some(), "{ticket:?}");
            }
            // Only key customers are named Smith or Patel: scenarios rely on it.
            for surname in ["Smith", "Patel", "Mitchell", "Whitford"] {
                assert!(
                    crm.customers
                        .iter()
                        .filter(|c| c.name.ends_with(surname))
                        .all(|c| c.id < corpus::FIRST_ID_OF_FILLER)
                );
            }
            assert_eq!(crm.injections.len(), 6);
        }
    }

    type BTreeSetOf<T> = std::collections::BTreeSet<T>;

    #[test]
    fn a_clean_crm_carries_no_injection_text() {
        let crm = crm(3, r#"{"injections": false}"#);
        assert!(crm.injections.is_empty());
        assert!(
            crm.customers
                .iter()
                .flat_map(|customer| &customer.notes)
                .all(|note| note.appended.is_empty())
        );
        assert!(crm.tickets.iter().all(|ticket| ticket.appended.is_empty()));
        assert!(
            crm.requests
                .iter()
                .all(|request| request.appended.is_empty())
        );
    }

    #[test]
    fn the_saved_state_stays_modest() {
        let mut harness = agentbench_env_sdk::Harness::<Crm>::new();
        harness.reset(0, "{}").unwrap();
        let size = harness.save().len();
        assert!(size < 32_768, "{size} bytes");
    }

    #[test]
    fn requests_are_sorted_and_kinds_named() {
        let crm = crm(0, "{}");
        assert!(crm.requests.windows(2).all(|pair| pair[0].id < pair[1].id));
        assert!(
            crm.requests
                .iter()
                .any(|request| request.kind == RequestKind::Objection)
        );
    }
}
