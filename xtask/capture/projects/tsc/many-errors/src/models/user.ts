// The user model. `Role` was renamed to `Roles` in ./roles, so this import no longer resolves.
import { Role } from "./roles";

export interface Address {
  street: string;
  city: string;
  zip: number;
}

export interface User {
  id: number;
  name: string;
  email: string;
  role: Role;
  address?: Address;
}

export function createUser(id: number, name: string, email: string): User {
  return { id, name, email, role: "admin", address: { street: "Main", city: "Springfield", zip: "12345" } };
}

export function displayName(user: User): string {
  return user.name.toUpperCase() + user.address.city;
}
