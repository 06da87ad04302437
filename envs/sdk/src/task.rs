//! What every env's task config shares: an optional instruction and optional goals, and the
//! env's default task when a config gives neither.

/// The instruction and the goals of a task config, each goal checked into its canonical form by
/// `check`: the goals given; none when only an instruction is given; the env's default goals
/// when neither is. A goal that fails its check is named by its position (`goal 2: ...`).
pub fn instruction_and_goals<C, G>(
    instruction: Option<String>,
    goals: Option<Vec<C>>,
    default_goals: impl FnOnce() -> Vec<C>,
    check: impl Fn(C) -> Result<G, String>,
) -> Result<(Option<String>, Vec<G>), String> {
    let goals = match (goals, &instruction) {
        (Some(goals), _) => goals,
        (None, Some(_)) => Vec::new(),
        (None, None) => default_goals(),
    };
    let goals = goals
        .into_iter()
        .enumerate()
        .map(|(index, goal)| check(goal).map_err(|error| format!("goal {}: {error}", index + 1)))
        .collect::<Result<_, _>>()?;
    Ok((instruction, goals))
}

#[cfg(test)]
mod tests {
    use super::instruction_and_goals;

    fn check(goal: i32) -> Result<i32, String> {
        if goal < 0 {
            Err("negative".to_owned())
        } else {
            Ok(goal * 10)
        }
    }

    #[test]
    fn goals_come_from_the_config_else_the_default_unless_an_instruction_is_given() {
        let run = |instruction: Option<&str>, goals: Option<Vec<i32>>| {
            instruction_and_goals(instruction.map(str::to_owned), goals, || vec![7], check)
        };
        assert_eq!(run(None, Some(vec![1, 2])), Ok((None, vec![10, 20])));
        assert_eq!(run(None, None), Ok((None, vec![70])));
        assert_eq!(
            run(Some("do it"), None),
            Ok((Some("do it".to_owned()), Vec::new()))
        );
        assert_eq!(
            run(None, Some(vec![1, -1])),
            Err("goal 2: negative".to_owned())
        );
    }
}
