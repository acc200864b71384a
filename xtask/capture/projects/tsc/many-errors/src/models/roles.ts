export type Roles = "admin" | "editor" | "viewer";

export const DEFAULT_ROLE: Roles = "viewer";

export function isAdmin(role: Roles): boolean {
  return role === "owner";
}
