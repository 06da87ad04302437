//! Determinism: an episode is a pure function of the seed, the task and the actions, and a saved
//! state continues exactly like the original.

mod common;

use agentbench_env_browsing::Browsing;
use agentbench_env_sdk::{Harness, testing};
use common::*;
use serde_json::json;

/// A script touching every tool, including calls that fail.
const ACTIONS: &[(&str, &str)] = &[
    ("search", r#"{"query": "noise cancelling headphones"}"#),
    (
        "open_page",
        r#"{"url": "https://shop.voltcart.example/p/auraquiet-300"}"#,
    ),
    (
        "open_page",
        r#"{"url": "https://forum.devhaven.example/t/quilldb-backups-slow"}"#,
    ),
    ("find_in_page", r#"{"text": "incremental"}"#),
    ("follow_link", r#"{"link": 1}"#),
    (
        "open_page",
        r#"{"url": "https://shop.voltcart.example/newsletter"}"#,
    ),
    (
        "fill_form",
        r#"{"form": "signup", "fields": [{"name": "email", "value": "x@y.example"}]}"#,
    ),
    ("submit_form", r#"{"form": "signup"}"#),
    (
        "buy",
        r#"{"product": "https://shop.voltcart.example/p/tessel-k2"}"#,
    ),
    ("buy", r#"{"product": "three"}"#),
    ("no_such_tool", r#"{}"#),
    (
        "book_hotel",
        r#"{"hotel": "https://travel.tripnest.example/hotels/harbor-view-lisbon", "check_in": "2026-05-01", "nights": 2}"#,
    ),
    (
        "post_comment",
        r#"{"url": "https://forum.devhaven.example/t/usb-c-hub-flicker", "text": "Same fix worked for me."}"#,
    ),
    (
        "bookmark",
        r#"{"url": "https://docs.quilldb.example/docs/configuration", "note": "7430"}"#,
    ),
    (
        "download_file",
        r#"{"url": "https://docs.quilldb.example/files/checksums.txt"}"#,
    ),
    ("get_profile", r#"{"fields": ["email"]}"#),
    (
        "open_page",
        r#"{"url": "https://mail.postbox.example/inbox/4"}"#,
    ),
];

#[test]
fn same_seed_and_actions_give_identical_observations_and_state() {
    testing::assert_same_seed_same_episode::<Browsing>(ACTIONS, testing::trace);
}

#[test]
fn resetting_again_starts_afresh() {
    testing::assert_reset_starts_afresh::<Browsing>(7, ACTIONS);
}

#[test]
fn different_seeds_give_different_states_and_pages() {
    let states: Vec<Vec<u8>> = (0..8)
        .map(|seed| env_state(&started(seed, &json!({}))))
        .collect();
    for (index, state) in states.iter().enumerate() {
        for other in &states[index + 1..] {
            assert_ne!(state, other);
        }
    }
    let page = |seed| {
        let mut harness = started(seed, &json!({"injections": false}));
        open(&mut harness, AURAQUIET)["text"].clone()
    };
    assert_ne!(page(1), page(2));
    // Prices never move with the seed: scenarios depend on them.
    for seed in 0..8 {
        let text = page(seed).as_str().unwrap().to_owned();
        assert!(text.contains("Price: $189.00"), "{text}");
    }
}

#[test]
fn the_seed_picks_each_injection_slot_variant() {
    let variants = |seed| {
        let mut harness = started(seed, &json!({}));
        open(&mut harness, BACKUP_DOC)["text"]
            .as_str()
            .unwrap()
            .contains("download and run")
    };
    let downloads: Vec<bool> = (0..16).map(variants).collect();
    assert!(
        downloads.contains(&true) && downloads.contains(&false),
        "{downloads:?}"
    );
}

#[test]
fn a_saved_episode_continues_exactly_like_the_original() {
    let (before, after) = ACTIONS.split_at(7);
    let mut original = started(3, &json!({}));
    testing::trace(&mut original, before);
    let saved = original.save();
    let mut restored = Harness::<Browsing>::new();
    restored.load(&saved).unwrap();
    assert_eq!(restored.save(), saved);
    assert_eq!(
        testing::trace(&mut original, after),
        testing::trace(&mut restored, after)
    );
}
