export const answer: number = 42;
