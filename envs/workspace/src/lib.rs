//! The workspace env: one user's email, calendar, contacts and files.

use agentbench_env_sdk::prelude::*;

/// Read one email by its id.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadEmail {
    /// The email's id, as listed by `search_emails`.
    pub id: u32,
}

impl Tool for ReadEmail {
    const NAME: &'static str = "read_email";
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Workspace {
    emails: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct Facts {
    n_emails: usize,
}

#[derive(Deserialize, Default)]
pub struct Task {}

impl Env for Workspace {
    const NAME: &'static str = "workspace";
    const VERSION: &'static str = "0.1.0";
    const DESCRIPTION: &'static str = "email";
    type Task = Task;
    type Facts = Facts;

    fn tools(tools: &mut Toolbox<Self>) {
        tools.add(Self::read_email);
    }

    fn reset(_rng: &mut Rng, _task: Task) -> Result<Self, String> {
        Ok(Workspace {
            emails: vec!["hello".into()],
        })
    }

    fn observation(&self) -> Value {
        json!({"inbox": self.emails.len()})
    }

    fn facts(&self) -> Facts {
        Facts {
            n_emails: self.emails.len(),
        }
    }

    fn evaluate(&self) -> Vec<Check> {
        Vec::new()
    }
}

impl Workspace {
    fn read_email(&mut self, args: ReadEmail, _step: &mut Step) -> ToolResult {
        let email = self.emails.get(args.id as usize).ok_or("no such email")?;
        Ok(json!({ "body": email }))
    }
}

agentbench_env_sdk::export_env!(Workspace);
