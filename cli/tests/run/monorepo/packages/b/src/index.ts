export const total: number = "one";
