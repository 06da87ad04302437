//! `agentbench serve` driven by clients it did not write: OpenEnv's own client (`openenv` from
//! PyPI) over the OpenEnv routes, a plain WebSocket client over our own socket (`/v1/ws`);
//! every step they take is checked against the durable record the REST API reads back.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use agentbench_tests::{Db, Server, python_venv, workspace_root};

/// Runs `tests/interop/SCRIPT` with the interop venv's Python; returns the JSON it prints.
fn python(script: &str, args: &[&str]) -> Value {
    let venv: PathBuf = python_venv("tests/interop/setup.sh");
    let output = Command::new(venv.join("bin/python"))
        .arg(workspace_root().join("tests/interop").join(script))
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{script} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn openenvs_own_client_plays_an_episode_and_every_step_is_recorded() {
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let base = format!("http://{}/openenv/workspace", server.addr);
    let seen = python("openenv_episode.py", &[&base]);

    let reset = &seen["reset"];
    assert!(reset["observation"]["instruction"].is_string(), "{reset}");
    assert_eq!(
        (reset["done"].clone(), reset["reward"].clone()),
        (json!(false), Value::Null)
    );
    let metadata = &reset["observation"]["metadata"];
    assert_eq!(
        metadata["action_mask"]["read_file"], "allowed",
        "{metadata}"
    );
    let id = metadata["episode_id"].as_str().unwrap();

    let tools = seen["tools"]["observation"]["tools"].as_array().unwrap();
    let read_file = tools
        .iter()
        .find(|tool| tool["name"] == "read_file")
        .unwrap();
    assert_eq!(read_file["input_schema"]["type"], "object", "{read_file}");

    let steps = seen["steps"].as_array().unwrap();
    let statuses: Vec<&Value> = steps
        .iter()
        .map(|step| &step["observation"]["metadata"]["status"])
        .collect();
    assert_eq!(
        statuses,
        ["ok", "invalid_arguments", "blocked", "ask_user", "message"]
    );
    let blocked = &steps[2]["observation"]["metadata"];
    assert!(
        !blocked["violations"].as_array().unwrap().is_empty(),
        "{blocked}"
    );
    assert!(steps[2]["reward"].as_f64().unwrap() < 0.0, "{}", steps[2]);
    assert_eq!(steps[3]["observation"]["reply"], "go ahead");
    let last = &steps[4];
    assert_eq!(last["done"], true);
    assert!(
        last["observation"]["metadata"]["outcome"]["checks"].is_array(),
        "{last}"
    );
    assert!(steps[..4].iter().all(|step| step["done"] == false));
    assert_eq!(seen["state"]["episode_id"], id);
    assert_eq!(seen["state"]["step_count"], 5);
    assert_eq!(seen["state"]["done"], true);
    let after_end = seen["after_end"].as_str().unwrap();
    assert!(
        after_end.contains("EXECUTION_ERROR") && after_end.contains("over"),
        "{after_end}"
    );
    let bad_action = seen["bad_action"].as_str().unwrap();
    assert!(bad_action.contains("VALIDATION_ERROR"), "{bad_action}");

    // The durable record holds exactly the steps the client took, as it saw them.
    let episode = server.episode(id);
    assert_eq!(episode["state"], "over");
    let recorded = episode["steps"].as_array().unwrap();
    assert_eq!(recorded.len(), steps.len());
    for (record, step) in recorded.iter().zip(steps) {
        let metadata = &step["observation"]["metadata"];
        for field in [
            "index",
            "status",
            "action",
            "violations",
            "scores",
            "action_mask",
        ] {
            assert_eq!(record[field], metadata[field], "{field} of {record}");
        }
    }
}

#[test]
fn openenvs_http_routes_answer_its_shapes() {
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let health = server.get("/openenv/workspace/health");
    assert_eq!(
        (health.status, health.body),
        (200, json!({"status": "healthy"}))
    );
    let metadata = server.get("/openenv/workspace/metadata");
    assert_eq!(metadata.body["name"], "workspace");
    let schema = server.get("/openenv/workspace/schema").body;
    let actions = schema["action"]["oneOf"].as_array().unwrap();
    assert!(
        actions
            .iter()
            .any(|action| action["properties"]["tool_name"]["const"] == "send_email")
    );
    assert_eq!(server.get("/openenv/nonesuch/health").status, 404);

    let reset = server.post("/openenv/workspace/reset", &json!({"seed": 4}));
    assert_eq!(reset.status, 200, "{}", reset.body);
    let id = reset.body["metadata"]["episode_id"].as_str().unwrap();
    let step = server.post(
        "/openenv/workspace/step",
        &json!({"action": {"type": "call_tool", "tool_name": "list_files", "arguments": {"dir": "/docs"}}, "episode_id": id, "request_id": "s1"}),
    );
    assert_eq!(step.status, 200, "{}", step.body);
    assert_eq!(step.body["done"], false);
    let state = server.get(&format!("/openenv/workspace/state?episode_id={id}"));
    assert_eq!(state.body["step_count"], 1, "{}", state.body);
    let no_episode = server.post(
        "/openenv/workspace/step",
        &json!({"action": {"message": "hi"}}),
    );
    assert_eq!(
        (no_episode.status, no_episode.code()),
        (422, "invalid_request")
    );
    assert_eq!(server.episode(id)["steps"][0]["request_id"], "s1");
}

#[test]
fn one_websocket_drives_many_episodes_with_the_rest_apis_messages() {
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let answers = python(
        "socket_session.py",
        &[&format!("ws://{}/v1/ws", server.addr)],
    );
    let answer = |id: Value| answers[id.to_string()].clone();
    let (created_a, created_b) = (answer(json!("create-a")), answer(json!("create-b")));
    assert_eq!(created_a["status"], 201, "{created_a}");
    assert_eq!(created_b["body"]["env"], "banking");
    let a = created_a["body"]["id"].as_str().unwrap();

    let statuses = |id: i64| {
        let answer = answer(json!(id));
        (answer["status"].as_u64().unwrap(), answer["body"].clone())
    };
    let (status, first) = statuses(1);
    assert_eq!((status, first["index"].clone()), (200, json!(0)));
    assert_eq!(statuses(2).1["status"], "ask_user");
    assert_eq!(statuses(3).1["index"], 1);
    let batch = statuses(4).1;
    assert_eq!(batch["results"][0]["step"]["status"], "message", "{batch}");
    assert_eq!(
        batch["results"][1]["error"]["code"], "episode_over",
        "{batch}"
    );
    // A retried request id answers from the record.
    assert_eq!(statuses(5).1, first);
    // Answers are the REST API's own: the trajectory read over the socket is the one over HTTP.
    assert_eq!(statuses(6).1, server.episode(a));
    assert_eq!(statuses(6).1["steps"][0], first);
    assert_eq!(statuses(7).1["name"], "workspace");
    let code = |id: Value| {
        let answer = answer(id);
        (
            answer["status"].as_u64().unwrap(),
            answer["body"]["error"]["code"].clone(),
        )
    };
    assert_eq!(code(json!(8)), (422, json!("invalid_request")));
    assert_eq!(code(json!(9)), (422, json!("invalid_request")));
    assert_eq!(code(json!(10)), (404, json!("not_found")));
    assert_eq!(code(json!(11)), (422, json!("unknown_field")));
    assert_eq!(code(Value::Null), (400, json!("malformed_json")));
    assert_eq!(server.episode(a)["steps"].as_array().unwrap().len(), 2);
}

#[test]
fn an_mcp_client_plays_an_episode_and_every_call_is_a_recorded_step() {
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let id = server
        .create(&json!({"env": "workspace", "seed": 4, "task": {"user_replies": ["go ahead"]}}));
    let seen = python(
        "mcp_episode.py",
        &[&format!("http://{}/v1/episodes/{id}/mcp", server.addr)],
    );
    assert_eq!(seen["server"], "agentbench");
    let tools = seen["tools"].as_array().unwrap();
    let tool = |name: &str| {
        tools
            .iter()
            .find(|tool| tool["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(tool("read_file")["inputSchema"]["type"], "object");
    assert_eq!(tool("read_file")["_meta"]["agentbench/mask"], "allowed");
    assert_eq!(tool("send_email")["annotations"]["destructiveHint"], true);
    assert_eq!(
        tool("final_message")["inputSchema"]["required"],
        json!(["message"])
    );

    let calls = seen["calls"].as_array().unwrap();
    let summary: Vec<(bool, Value)> = calls
        .iter()
        .map(|call| {
            (
                call["is_error"].as_bool().unwrap(),
                call["step"]["status"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (false, json!("ok")),
            (true, json!("invalid_arguments")),
            (true, json!("blocked")),
            (false, json!("ask_user")),
            (false, json!("message")),
            (true, Value::Null),
        ]
    );
    let after_end = calls[5]["text"][0].as_str().unwrap();
    assert!(after_end.contains("over"), "{after_end}");

    // Every call but the last is a step in the durable record, as the client saw it.
    let episode = server.episode(&id);
    assert_eq!(episode["state"], "over");
    let recorded = episode["steps"].as_array().unwrap();
    assert_eq!(recorded.len(), 5);
    for (record, call) in recorded.iter().zip(calls) {
        assert_eq!(*record, call["step"], "{record}");
    }
    assert!(!recorded[2]["violations"].as_array().unwrap().is_empty());
    assert!(recorded[4]["outcome"].is_object());

    let missing = server.post("/v1/episodes/ep_missing/mcp", &json!({}));
    assert_eq!((missing.status, missing.code()), (404, "not_found"));
}

#[test]
fn openenvs_mcp_tool_client_in_production_mode_shares_a_session_between_mcp_and_its_websocket() {
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let base = format!("http://{}/openenv/workspace", server.addr);
    let seen = python("openenv_mcp_episode.py", &[&base]);

    assert!(seen["session_id"].is_string(), "{seen}");
    assert_eq!(seen["second_socket"], 409, "one WebSocket per session");
    let id = seen["reset_metadata"]["episode_id"].as_str().unwrap();
    let tools = seen["tools"].as_array().unwrap();
    let read_file = tools.iter().find(|tool| tool["name"] == "read_file");
    assert_eq!(read_file.unwrap()["input_schema"]["type"], "object");
    assert!(tools.iter().any(|tool| tool["name"] == "final_message"));

    // The calls over HTTP and the step over the WebSocket are steps of one episode.
    assert!(seen["read"].is_object(), "{}", seen["read"]);
    let invalid = seen["invalid"].as_str().unwrap();
    assert!(invalid.contains("invalid_arguments"), "{invalid}");
    let blocked = seen["blocked"].as_str().unwrap();
    assert!(blocked.contains("share_file: blocked"), "{blocked}");
    let socket_step = &seen["socket_step"]["metadata"];
    assert_eq!(
        (socket_step["episode_id"].as_str(), &socket_step["index"]),
        (Some(id), &json!(3))
    );
    assert_eq!(seen["asked"]["reply"], "go ahead");
    assert_eq!(seen["state"], json!({"episode_id": id, "step_count": 6}));
    let after_end = seen["after_end"].as_str().unwrap();
    assert!(after_end.contains("over"), "{after_end}");

    // Closing the client closed its session; a call needs one; other methods are named.
    let closed = &seen["closed_session"];
    assert_eq!(closed["status"], 200);
    let message = closed["body"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("Unknown session_id"), "{message}");
    assert_eq!(seen["no_session"]["body"]["error"]["code"], -32602);
    assert_eq!(seen["unknown_method"]["body"]["error"]["code"], -32601);

    // The durable record holds every step the client took, judged and scored.
    let episode = server.episode(id);
    assert_eq!(episode["state"], "over");
    let recorded = episode["steps"].as_array().unwrap();
    let statuses: Vec<&Value> = recorded.iter().map(|step| &step["status"]).collect();
    assert_eq!(
        statuses,
        [
            "ok",
            "invalid_arguments",
            "blocked",
            "ok",
            "ask_user",
            "message"
        ]
    );
    assert!(!recorded[2]["violations"].as_array().unwrap().is_empty());
    assert!(
        recorded
            .iter()
            .all(|step| step["scores"].is_array() || step["scores"].is_object())
    );
    assert!(recorded[5]["outcome"].is_object());
    assert_eq!(recorded[0]["observation"], seen["read"]);
}

#[test]
fn our_python_client_and_its_trl_and_gym_adapters_play_against_a_real_server() {
    let db = Db::sqlite();
    let server = Server::start(&db, &[]);
    let seen = python("client_session.py", &[&format!("http://{}", server.addr)]);
    assert_eq!(seen["health"], "ok");
    assert!(
        seen["envs"]
            .as_array()
            .unwrap()
            .contains(&json!("workspace"))
    );
    let steps = &seen["steps"];
    assert_eq!(
        steps["tool"],
        json!({"status": "ok", "index": 0, "request_id": "read-agenda"})
    );
    assert_eq!(steps["retried"], json!({"index": 0, "same_record": true}));
    assert_eq!(steps["blocked"]["status"], "blocked");
    assert_eq!(
        steps["ask_user"],
        json!({"status": "ask_user", "reply": "go ahead"})
    );
    assert_eq!(steps["invalid_arguments"]["pointers"], json!(["/path"]));
    assert_eq!(steps["message"]["terminated"], true);
    assert_eq!(
        seen["episode_over"],
        json!({"status": 409, "code": "episode_over"})
    );
    assert_eq!(seen["generated_request_id"]["retry_same_index"], true);
    assert_eq!(seen["fork"]["after_step"], 5);
    assert_eq!(
        seen["step_many"],
        json!([{"status": "ok"}, {"status": "message"}, {"error": "not_found", "http_status": 404}])
    );
    assert_eq!(seen["trajectory"]["state"], "over");
    assert_eq!(seen["audit"]["status"], "ok");
    assert_eq!(seen["abandon"]["step_error"], "episode_abandoned");
    assert_eq!(seen["delete"]["attach_error"], "not_found");

    let trl = &seen["trl"];
    let methods = trl["tool_methods"].as_array().unwrap();
    for tool in ["read_file", "share_file", "final_message", "ask_user"] {
        assert!(methods.contains(&json!(tool)), "{methods:?}");
    }
    assert_eq!(
        trl["share_file_parameters"],
        json!(["path", "permission", "with_"])
    );
    assert_eq!(
        trl["statuses"],
        json!(["ok", "ask_user", "ok", "blocked", "message"])
    );
    assert_eq!(trl["reward_matches_trajectory"], true);
    assert_eq!(trl["reward_function"], json!([trl["reward"]]));
    assert_eq!(trl["ended_by_reply"]["last_status"], "message");
    assert_eq!(trl["reset_abandons_previous"], true);

    let gym = &seen["gym"];
    assert_eq!(gym["terminated"], json!([false, false, false, true]));
    assert_eq!(gym["last_status"], "message");
    assert_eq!(gym["closed_state"], "abandoned");
}
