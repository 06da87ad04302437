//! Builds an episode's initial state from the corpus, the seed and the task.
//!
//! The seed decides each product's stock and the order of its reviews, each thread's view count,
//! the rooms left at each hotel, and which variant of each injection slot is planted. Prices,
//! dates and everything a task's goals depend on stay fixed.

use agentbench_env_sdk::Rng;

use crate::Browsing;
use crate::corpus;
use crate::render::{Target, yesterday};
use crate::state::{Field, Form, Injection, PlantedPage, PlantedPost, PlantedReview, Source};
use crate::task::{ExtraForm, ExtraPage, Goal, Task, normalize_target};
use crate::text::{cents, host_of, is_domain, parse_date, url_key};

pub(crate) fn build(rng: &mut Rng, mut task: Task) -> Result<Browsing, String> {
    let (instruction, goals) = task.instruction_and_goals()?;

    let stock = corpus::PRODUCTS
        .iter()
        .map(|_| 3 + rng.below(18) as u8)
        .collect();
    let review_order = corpus::PRODUCTS
        .iter()
        .map(|product| {
            let mut order: Vec<u8> = (0..product.reviews.len() as u8).collect();
            rng.shuffle(&mut order);
            order
        })
        .collect();
    let thread_views = corpus::THREADS
        .iter()
        .map(|_| 40 + rng.below(2400) as u16)
        .collect();
    let rooms_left = corpus::HOTELS
        .iter()
        .map(|_| 1 + rng.below(6) as u8)
        .collect();

    let mut injections = Vec::new();
    if task.injections {
        for (slot, entry) in corpus::INJECTION_SLOTS.iter().enumerate() {
            let variant = rng.below(entry.variants.len() as u64) as u8;
            injections.push(Injection {
                source: Source::Slot {
                    slot: slot as u8,
                    variant,
                },
                targets: entry.variants[usize::from(variant)]
                    .targets
                    .iter()
                    .map(|&target| target.to_owned())
                    .collect(),
                seen: false,
            });
        }
    }

    let mut planted_pages = Vec::with_capacity(task.extra_pages.len());
    for (index, extra) in task.extra_pages.drain(..).enumerate() {
        let url = extra.url.clone();
        let (page, targets) =
            planted_page(extra).map_err(|error| format!("extra page `{url}`: {error}"))?;
        if planted_pages
            .iter()
            .any(|other: &PlantedPage| other.key == page.key)
        {
            return Err(format!("extra page `{url}` is planted twice"));
        }
        if !targets.is_empty() {
            injections.push(Injection {
                source: Source::Page(index as u16),
                targets,
                seen: false,
            });
        }
        planted_pages.push(page);
    }

    let mut planted_reviews = Vec::with_capacity(task.extra_reviews.len());
    for (index, extra) in task.extra_reviews.drain(..).enumerate() {
        let context = |error: String| format!("extra review by `{}`: {error}", extra.author);
        let key = url_key(&extra.product).map_err(context)?;
        let product = corpus::PRODUCTS
            .iter()
            .position(|product| product.url == key)
            .ok_or_else(|| context(format!("no product at {key}")))?;
        if !(1..=5).contains(&extra.rating) {
            return Err(context("rating must be 1 to 5".to_owned()));
        }
        let date = planted_date(extra.date.as_deref()).map_err(context)?;
        let targets = targets(&extra.injection_targets).map_err(context)?;
        if !targets.is_empty() {
            injections.push(Injection {
                source: Source::Review(index as u16),
                targets,
                seen: false,
            });
        }
        planted_reviews.push(PlantedReview {
            product: product as u8,
            author: extra.author,
            rating: extra.rating,
            date,
            text: extra.text,
        });
    }

    let mut planted_posts = Vec::with_capacity(task.extra_posts.len());
    for (index, extra) in task.extra_posts.drain(..).enumerate() {
        let context = |error: String| format!("extra post by `{}`: {error}", extra.author);
        let key = url_key(&extra.thread).map_err(context)?;
        let thread = corpus::THREADS
            .iter()
            .position(|thread| thread.url == key)
            .ok_or_else(|| context(format!("no forum thread at {key}")))?;
        let date = planted_date(extra.date.as_deref()).map_err(context)?;
        let targets = targets(&extra.injection_targets).map_err(context)?;
        if !targets.is_empty() {
            injections.push(Injection {
                source: Source::Post(index as u16),
                targets,
                seen: false,
            });
        }
        planted_posts.push(PlantedPost {
            thread: thread as u8,
            author: extra.author,
            date,
            text: extra.text,
        });
    }

    let mut allowed_domains = Vec::new();
    for domain in &task.allowed_domains {
        let domain = domain.trim().to_ascii_lowercase();
        if !is_domain(&domain) {
            return Err(format!("allowed domain `{domain}` is not a domain"));
        }
        allowed_domains.push(domain);
    }
    let spending_limit_cents = task.spending_limit.map(cents).transpose()?;

    let mut web = Browsing {
        instruction,
        goals,
        allowed_domains,
        spending_limit_cents,
        profile_needed: task.profile_needed,
        stock,
        review_order,
        thread_views,
        rooms_left,
        planted_pages,
        planted_reviews,
        planted_posts,
        injections,
        agent_posts: Vec::new(),
        drafts: Vec::new(),
        bookmarks: Vec::new(),
        current: None,
        log: Vec::new(),
        next_order: 30_000 + rng.below(9_000) as u32,
        irreversible_actions: 0,
        untrusted_content_read: false,
    };
    let goal_domains = goal_domains(&web)?;
    for domain in goal_domains {
        if !web.allowed_domains.contains(&domain) {
            web.allowed_domains.push(domain);
        }
    }
    Ok(web)
}

/// Checks every goal against the web and returns the hosts they target.
fn goal_domains(web: &Browsing) -> Result<Vec<String>, String> {
    let mut domains = Vec::new();
    for (index, goal) in web.goals.iter().enumerate() {
        let fail = |message: String| format!("goal {}: {message}", index + 1);
        let domain = match goal {
            Goal::Purchased(goal) => {
                if !matches!(web.resolve(&goal.product), Target::Product(_)) {
                    return Err(fail(format!("no product at {}", goal.product)));
                }
                host_of(&goal.product)
            }
            Goal::Booked(goal) => {
                if !matches!(web.resolve(&goal.hotel), Target::Hotel(_)) {
                    return Err(fail(format!("no hotel at {}", goal.hotel)));
                }
                host_of(&goal.hotel)
            }
            Goal::FormSubmitted(goal) => {
                let action = web
                    .form(&goal.page, &goal.form)
                    .map(|form| form.action)
                    .ok_or_else(|| fail(format!("no form `{}` on {}", goal.form, goal.page)))?;
                let host = host_of(&action).to_owned();
                if !domains.contains(&host) {
                    domains.push(host);
                }
                host_of(&goal.page)
            }
            Goal::Posted(goal) => {
                if !web.commentable(web.resolve(&goal.url)) {
                    return Err(fail(format!("{} takes no comments", goal.url)));
                }
                host_of(&goal.url)
            }
            Goal::Downloaded(goal) => {
                if !matches!(web.resolve(&goal.url), Target::File(_)) {
                    return Err(fail(format!("no file at {}", goal.url)));
                }
                host_of(&goal.url)
            }
            Goal::Bookmarked(crate::task::BookmarkedGoal { url, .. })
            | Goal::Visited(crate::task::VisitedGoal { url }) => {
                if !web.resolve(url).is_page() {
                    return Err(fail(format!("no page at {url}")));
                }
                host_of(url)
            }
        };
        if !domains.iter().any(|known| known == domain) {
            domains.push(domain.to_owned());
        }
    }
    Ok(domains)
}

fn planted_page(extra: ExtraPage) -> Result<(PlantedPage, Vec<String>), String> {
    let key = url_key(&extra.url)?;
    if extra.title.trim().is_empty() {
        return Err("the title must not be empty".to_owned());
    }
    let mut forms: Vec<Form> = Vec::with_capacity(extra.forms.len());
    for form in extra.forms {
        let form = planted_form(form)?;
        if forms.iter().any(|other| other.id == form.id) {
            return Err(format!("two forms have the id `{}`", form.id));
        }
        forms.push(form);
    }
    let summary = extra
        .summary
        .unwrap_or_else(|| extra.body.lines().next().unwrap_or("").to_owned());
    let targets = targets(&extra.injection_targets)?;
    Ok((
        PlantedPage {
            key,
            title: extra.title,
            summary,
            body: extra.body,
            indexed: extra.indexed,
            third_party: extra.third_party,
            commentable: extra.commentable,
            forms,
        },
        targets,
    ))
}

fn planted_form(form: ExtraForm) -> Result<Form, String> {
    if form.id.trim().is_empty() {
        return Err("a form's id must not be empty".to_owned());
    }
    let action = url_key(&form.action)?;
    let mut fields: Vec<Field> = Vec::with_capacity(form.fields.len());
    for field in form.fields {
        if fields.iter().any(|other| other.name == field.name) {
            return Err(format!(
                "form `{}` has two fields `{}`",
                form.id, field.name
            ));
        }
        fields.push(Field {
            label: field.label.unwrap_or_else(|| field.name.clone()),
            name: field.name,
            required: field.required,
        });
    }
    Ok(Form {
        title: form.title.unwrap_or_else(|| form.id.clone()),
        id: form.id,
        action,
        fields,
        submit: form.submit.unwrap_or_else(|| "Submit".to_owned()),
    })
}

fn targets(texts: &[String]) -> Result<Vec<String>, String> {
    texts.iter().map(|text| normalize_target(text)).collect()
}

fn planted_date(date: Option<&str>) -> Result<String, String> {
    match date {
        Some(date) => {
            parse_date(date)?;
            Ok(date.trim().to_owned())
        }
        None => Ok(yesterday()),
    }
}
