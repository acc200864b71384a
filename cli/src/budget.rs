//! The digest's token budget: the one rule of what a budget is (a whole number of tokens, at
//! least 1: 0 would leave no room for what failed), applied to `--budget`, to `[run].budget` of
//! verdict.toml and to the MCP tools' `budget` argument, and where a run's budget comes from.

use verdict_core::digest::DEFAULT_BUDGET;

/// Why a budget is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BudgetError {
    /// Not a whole number.
    #[error("`{0}` is not a token budget (a whole number, at least 1)")]
    NotANumber(String),
    /// Zero tokens.
    #[error("`0` is not a token budget: it must be at least 1 token")]
    Zero,
}

/// Checks a budget given as a number.
pub(crate) fn check(tokens: usize) -> Result<usize, BudgetError> {
    match tokens {
        0 => Err(BudgetError::Zero),
        tokens => Ok(tokens),
    }
}

/// Parses `--budget` (the value parser of every command that takes one).
pub(crate) fn parse(text: &str) -> Result<usize, BudgetError> {
    let tokens = text
        .parse::<usize>()
        .map_err(|_| BudgetError::NotANumber(text.to_owned()))?;
    check(tokens)
}

/// The budget of a run: the command's own, else `[run].budget`, else the default (500).
pub(crate) fn resolve(flag: Option<usize>, config: Option<usize>) -> usize {
    flag.or(config).unwrap_or(DEFAULT_BUDGET)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_a_whole_number_of_at_least_one_token() {
        assert_eq!(parse("300"), Ok(300));
        assert_eq!(parse("1"), Ok(1));
        assert_eq!(parse("0"), Err(BudgetError::Zero));
        assert_eq!(parse("-1"), Err(BudgetError::NotANumber("-1".to_owned())));
        assert_eq!(parse("1.5"), Err(BudgetError::NotANumber("1.5".to_owned())));
        assert!(BudgetError::Zero.to_string().contains("at least 1 token"));
        assert_eq!(resolve(Some(10), Some(20)), 10);
        assert_eq!(resolve(None, Some(20)), 20);
        assert_eq!(resolve(None, None), DEFAULT_BUDGET);
    }
}
