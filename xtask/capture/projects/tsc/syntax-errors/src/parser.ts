export function tokenize(input: string): string[] {
  const tokens = [];
  for (const ch of input {
    tokens.push(ch);
  }
  return tokens;
}
