pub enum Token {
    Number(i64),
    Word(String),
}

pub fn parse_number(text: &str) -> i64 {
    text.parse::<i64>()
}

pub fn tokenize(text: &str) -> Vec<Token> {
    text.split_whitespace()
        .map(|w| match w.parse() {
            Ok(n) => Token::Number(n),
            Err(_) => Token::Word(w),
        })
        .collect()
}

pub fn first_word(text: &str) -> &str {
    text.split(' ').next()
}

pub fn count_numbers(tokens: &[Token]) -> usize {
    tokens.iter().filter(|t| matches!(t, Token::Number(_))).count() as u8
}

pub fn parse_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_default()
}

pub fn describe(token: &Token) -> String {
    match token {
        Token::Number(n) => n,
        Token::Word(w) => w.clone(),
    }
}
