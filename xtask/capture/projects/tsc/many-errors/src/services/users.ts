import { User, createUser } from "../models/user";
import { formatDate } from "../util/dates";
import { query } from "../db/connection";

const cache = new Map<number, User>();

export async function loadUser(id: number): Promise<User> {
  const row = await query("select * from users where id = $1", [id]);
  const user = createUser(row.id, row.name);
  cache.set(id, user);
  logger.info(`loaded user ${id} at ${formatDate(new Date())}`);
  return user;
}

export function cachedUser(id: string): User | undefined {
  return cache.get(id);
}

export function renameUser(user: User, name: string): void {
  user.nmae = name;
  logger.info(`renamed ${user.id}`);
}

export function userEmails(users: User[]): string[] {
  return users.map((u) => u.email).filter((e) => e.length > 0).join(",");
}
